// A deliberately strict XML well-formedness check for sanitiser and composer output (workerd
// has no DOMParser): one root element, properly nested and closed tags, double-quoted
// attributes without duplicates, "<" never in text or values, only predefined or numeric
// character references, nothing but whitespace outside the root. Returns the root element's
// name and the element names in document order, so tests can also look at the structure.

const NAME = "[A-Za-z_][\\w.:-]*";
const REF = "&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);";
const VALUE = `"(?:[^"<&]|${REF})*"`;
const START = new RegExp(`^<(${NAME})((?:\\s+${NAME}=${VALUE})*)\\s*(/?)>`);
const ATTR = new RegExp(`(${NAME})=(${VALUE})`, "g");
const END = new RegExp(`^</(${NAME})\\s*>`);
const TEXT = new RegExp(`^(?:[^<&]|${REF})*`);

export interface XmlOutline {
  root: string;
  rootAttributes: Record<string, string>;
  elements: string[];
}

export function checkWellFormed(xml: string): XmlOutline {
  const stack: string[] = [];
  const elements: string[] = [];
  let rootAttributes: Record<string, string> = {};
  let roots = 0;
  let i = 0;
  while (i < xml.length) {
    const rest = xml.slice(i);
    if (rest.startsWith("</")) {
      const m = END.exec(rest);
      if (!m) throw new Error(`malformed end tag at ${i}: ${rest.slice(0, 40)}`);
      const open = stack.pop();
      if (open !== m[1]) throw new Error(`</${m[1]}> closes <${open}> at ${i}`);
      i += m[0].length;
    } else if (rest.startsWith("<")) {
      const m = START.exec(rest);
      if (!m) throw new Error(`malformed start tag at ${i}: ${rest.slice(0, 60)}`);
      const attrs: Record<string, string> = {};
      for (const a of m[2]!.matchAll(ATTR)) {
        if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]} at ${i}`);
        attrs[a[1]!] = a[2]!.slice(1, -1);
      }
      if (stack.length === 0) {
        roots++;
        rootAttributes = attrs;
      }
      elements.push(m[1]!);
      if (m[3] !== "/") stack.push(m[1]!);
      i += m[0].length;
    } else {
      const m = TEXT.exec(rest)!;
      if (m[0].length === 0) throw new Error(`bad character reference at ${i}: ${rest.slice(0, 20)}`);
      if (stack.length === 0 && m[0].trim() !== "") throw new Error(`text outside the root at ${i}`);
      i += m[0].length;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed elements: ${stack.join(", ")}`);
  if (roots !== 1) throw new Error(`expected one root element, found ${roots}`);
  return { root: elements[0]!, rootAttributes, elements };
}
