// Sanitises SVG from any provider, including upstream models that may return hostile markup,
// before it is returned or stored, inline or as a hosted result. The markup is tokenized by
// our own forgiving tokenizer, then rebuilt from an allowlist: the first <svg> element becomes
// the single root (anything before or after it is ignored), disallowed elements go with their
// whole subtree, attributes are kept only when allowed and their values pass the reference
// checks. The output is always well-formed XML in the SVG namespace, in one canonical form
// (double quotes, empty elements self-closed, no whitespace between elements).

import { PixelgateError } from "../errors.ts";
import { attributeName, judgeElement, localName, TEXT_ELEMENTS } from "./allowlist.ts";
import { isSafeAttributeValue, isSafeCss, isSafeHref } from "./references.ts";
import { tokenize } from "./tokenizer.ts";

export { svgDataUrl } from "./data-url.ts";

const SVG_NAMESPACE = "http://www.w3.org/2000/svg";
/** Far above any real icon or illustration; bounds the work on a hostile body. */
const MAX_SVG_CHARS = 5_000_000;
const MAX_DEPTH = 128;

/** Characters XML 1.0 forbids (C0 controls other than tab, newline, carriage return; U+FFFE/U+FFFF). */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function escapeText(text: string): string {
  return text.replace(NOT_XML, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttr(value: string): string {
  return escapeText(value).replace(/"/g, "&quot;");
}

function keptAttributes(attrs: [string, string][]): string {
  let out = "";
  const seen = new Set<string>();
  for (const [raw, value] of attrs) {
    const name = attributeName(raw);
    if (!name || seen.has(name)) continue; // unknown, handler, namespaced, or a duplicate (XML allows one)
    const safe = name === "href" ? isSafeHref(value) : name === "style" ? isSafeCss(value) : isSafeAttributeValue(value);
    if (!safe) continue;
    seen.add(name);
    out += ` ${name}="${escapeAttr(value)}"`;
  }
  return out;
}

interface Open {
  /** Lower-case local name, to match end tags. */
  local: string;
  /** The output name when this element is written, else undefined (dropped or unwrapped). */
  written: string | undefined;
  /** Inside a dropped subtree: nothing below is written. */
  dropped: boolean;
  /** Index in `out` of this element's unfinished start tag, to close it as `/>` or `>`. */
  startAt: number;
  hasContent: boolean;
  text: boolean;
}

export function sanitizeSvg(markup: string): string {
  if (typeof markup !== "string" || markup.length > MAX_SVG_CHARS) {
    throw new PixelgateError("upstream_error", "The provider returned an SVG that is missing or too large to use.");
  }
  const out: string[] = [];
  const stack: Open[] = [];
  let rooted = false;
  let cssOf: Open | undefined; // a <style> whose text is collected and checked as a whole
  let css = "";

  const writtenParent = (): Open | undefined => {
    for (let i = stack.length - 1; i >= 0; i--) if (stack[i]!.written) return stack[i];
    return undefined;
  };
  const markContent = (): void => {
    const parent = writtenParent();
    if (parent && !parent.hasContent) {
      parent.hasContent = true;
      out[parent.startAt] += ">";
    }
  };
  const close = (open: Open): void => {
    if (open === cssOf) {
      if (isSafeCss(css) && css.trim() !== "") {
        open.hasContent = true; // the <style> itself is off the stack by now: finish its start tag here
        out[open.startAt] += ">";
        out.push(escapeText(css));
      }
      cssOf = undefined;
      css = "";
    }
    if (!open.written) return;
    if (open.hasContent) out.push(`</${open.written}>`);
    else out[open.startAt] += "/>";
  };

  for (const token of tokenize(markup)) {
    if (!rooted) {
      if (token.type !== "start" || localName(token.name) !== "svg") continue;
      rooted = true;
    }
    if (token.type === "text") {
      const top = stack.at(-1);
      if (!top || top.dropped) continue;
      if (cssOf) css += token.text;
      else if (top.text && top.written && token.text.length > 0) {
        markContent();
        out.push(escapeText(token.text));
      }
      continue;
    }
    if (token.type === "end") {
      const local = localName(token.name);
      let at = stack.length - 1;
      while (at >= 0 && stack[at]!.local !== local) at--;
      if (at < 0) continue; // an end tag nothing opened: ignore
      while (stack.length > at) close(stack.pop()!);
      if (stack.length === 0) break; // the root closed: anything after it is not part of the image
      continue;
    }
    const parent = stack.at(-1);
    const verdict = judgeElement(token.name);
    // A <style> holds only text: an element inside it would slip past the CSS check.
    const dropped = (parent?.dropped ?? false) || verdict === "drop" || stack.length >= MAX_DEPTH || cssOf !== undefined;
    const open: Open = { local: localName(token.name), written: undefined, dropped, startAt: -1, hasContent: false, text: false };
    if (!dropped && typeof verdict === "object") {
      markContent();
      const root = stack.length === 0;
      open.written = verdict.keep;
      open.text = TEXT_ELEMENTS.has(verdict.keep) || (parent?.text ?? false);
      open.startAt = out.length;
      out.push(`<${verdict.keep}${root ? ` xmlns="${SVG_NAMESPACE}"` : ""}${keptAttributes(token.attrs)}`);
      if (verdict.keep === "style") cssOf = open;
    } else if (!dropped) {
      open.text = parent?.text ?? false; // unwrapped: its children belong to the parent
    }
    if (token.selfClosing) {
      close(open);
      if (stack.length === 0) break;
    } else stack.push(open);
  }
  if (!rooted) {
    throw new PixelgateError("upstream_error", "The provider returned no usable SVG: there is no <svg> element in its answer.");
  }
  while (stack.length > 0) close(stack.pop()!); // unclosed elements at the end are closed in order
  return out.join("");
}
