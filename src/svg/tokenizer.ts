// A small, forgiving tokenizer for SVG markup from any provider, hostile or broken. There is no
// DOM in Workers, and the sanitiser must see the markup the way a lenient parser would, so it
// never gives up: a stray "<" is text, an unclosed tag at the end is dropped, comments,
// processing instructions and DOCTYPE declarations (with their internal subset, where ENTITY
// tricks live) are skipped whole. Entities are decoded here, so "&#106;avascript:" reaches the
// checks as "javascript:".

export type Token =
  | { type: "start"; name: string; attrs: [string, string][]; selfClosing: boolean }
  | { type: "end"; name: string }
  | { type: "text"; text: string };

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", copy: "\u00a9", reg: "\u00ae",
  ndash: "\u2013", mdash: "\u2014", hellip: "\u2026", deg: "\u00b0", times: "\u00d7", middot: "\u00b7",
};

/** Decodes character references; numeric ones out of range become U+FFFD, unknown names stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);?/g, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : "\ufffd";
    }
    return NAMED_ENTITIES[ref] ?? NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

const isSpace = (c: string | undefined): boolean => c === " " || c === "\n" || c === "\t" || c === "\r" || c === "\f";
const isNameStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_:\u00c0-\uffff]/.test(c);

/** The index just after a `<!...>` declaration, skipping quoted strings and a [...] internal subset. */
function endOfDeclaration(s: string, from: number): number {
  let depth = 0;
  let quote = "";
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "[") depth++;
    else if (c === "]") depth = Math.max(0, depth - 1);
    else if (c === ">" && depth === 0) return i + 1;
  }
  return s.length;
}

function endOf(s: string, from: number, terminator: string): number {
  const at = s.indexOf(terminator, from);
  return at < 0 ? s.length : at + terminator.length;
}

export function tokenize(s: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf("<", i);
    if (lt < 0 || lt > i) {
      const end = lt < 0 ? s.length : lt;
      tokens.push({ type: "text", text: decodeEntities(s.slice(i, end)) });
      i = end;
      continue;
    }
    if (s.startsWith("<!--", i)) i = endOf(s, i + 4, "-->");
    else if (s.slice(i, i + 9).toUpperCase() === "<![CDATA[") {
      const close = s.indexOf("]]>", i + 9);
      tokens.push({ type: "text", text: s.slice(i + 9, close < 0 ? s.length : close) }); // raw: no entity decoding inside CDATA
      i = close < 0 ? s.length : close + 3;
    } else if (s.startsWith("<!", i)) i = endOfDeclaration(s, i + 2);
    else if (s.startsWith("<?", i)) i = endOf(s, i + 2, "?>");
    else if (s[i + 1] === "/" && isNameStart(s[i + 2])) {
      const match = /^[^\s>/]+/.exec(s.slice(i + 2, i + 2 + 256));
      tokens.push({ type: "end", name: match ? match[0] : "" });
      i = endOf(s, i + 2, ">");
    } else if (isNameStart(s[i + 1])) {
      const tag = readStartTag(s, i + 1);
      if (!tag) break; // an unclosed tag at the end: nothing after it can be trusted
      tokens.push(tag.token);
      i = tag.next;
    } else {
      tokens.push({ type: "text", text: "<" });
      i++;
    }
  }
  return tokens;
}

function readStartTag(s: string, from: number): { token: Token; next: number } | undefined {
  let i = from;
  while (i < s.length && !isSpace(s[i]) && s[i] !== ">" && s[i] !== "/") i++;
  const name = s.slice(from, i);
  const attrs: [string, string][] = [];
  while (i < s.length) {
    while (isSpace(s[i])) i++;
    if (s[i] === ">") return { token: { type: "start", name, attrs, selfClosing: false }, next: i + 1 };
    if (s[i] === "/" && s[i + 1] === ">") return { token: { type: "start", name, attrs, selfClosing: true }, next: i + 2 };
    if (s[i] === "/") {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < s.length && !isSpace(s[i]) && s[i] !== "=" && s[i] !== ">" && !(s[i] === "/" && s[i + 1] === ">")) i++;
    const attrName = s.slice(nameStart, i);
    while (isSpace(s[i])) i++;
    let value = "";
    if (s[i] === "=") {
      i++;
      while (isSpace(s[i])) i++;
      const quote = s[i];
      if (quote === '"' || quote === "'") {
        const close = s.indexOf(quote, i + 1);
        if (close < 0) return undefined;
        value = s.slice(i + 1, close);
        i = close + 1;
      } else {
        const valueStart = i;
        while (i < s.length && !isSpace(s[i]) && s[i] !== ">") i++;
        value = s.slice(valueStart, i);
      }
    }
    if (attrName.length > 0) attrs.push([attrName, decodeEntities(value)]);
  }
  return undefined;
}
