// The checks that keep sanitised SVG from reaching outside itself: links only to fragments of
// the same document (#id), url() only as url(#id), no script schemes, and CSS only without
// imports, escapes or legacy script hooks. Anything doubtful is dropped whole rather than
// repaired: a lost attribute costs a little drawing, a repaired one can be a bypass.

const LOCAL_FRAGMENT = /^#[A-Za-z_][\w.:-]*$/;
const URL_FUNCTION = /url\s*\(/gi;
const LOCAL_URL = /^url\s*\(\s*(['"]?)#[A-Za-z_][\w.:-]*\1\s*\)/i;

/** Letters only, lower case: how a browser might still read "java\tscript:" or "JaVaScRiPt:". */
function squashed(value: string): string {
  return value.toLowerCase().replace(/[\s\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028\u2029\ufeff]+/g, "");
}

function hasScriptScheme(value: string): boolean {
  const s = squashed(value);
  return s.includes("javascript:") || s.includes("vbscript:") || s.includes("data:") || s.includes("livescript:");
}

/** Every url( in the value points to #id in this document (and there is no scheme anywhere). */
function onlyLocalUrls(value: string): boolean {
  for (const match of value.matchAll(URL_FUNCTION)) {
    if (!LOCAL_URL.test(value.slice(match.index))) return false;
  }
  return true;
}

export function isSafeHref(value: string): boolean {
  return LOCAL_FRAGMENT.test(value.trim());
}

export function isSafeAttributeValue(value: string): boolean {
  return !hasScriptScheme(value) && onlyLocalUrls(value);
}

/** For <style> text and style="" attributes. */
export function isSafeCss(css: string): boolean {
  const s = squashed(css);
  if (css.includes("\\") || css.includes("<")) return false; // CSS escapes can spell anything; "<" has no business here
  for (const banned of ["@import", "expression(", "behavior", "-moz-binding", "image-set(", "image(", "src(", "@namespace"]) {
    if (s.includes(banned)) return false;
  }
  return isSafeAttributeValue(css);
}
