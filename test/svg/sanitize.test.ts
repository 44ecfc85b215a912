// The SVG sanitiser against hostile markup (what an upstream model or an attacker controlling
// one could return) and against innocent SVG that must come through intact.

import { describe, expect, it } from "vitest";
import { PixelgateError } from "../../src/errors.ts";
import { sanitizeSvg, svgDataUrl } from "../../src/svg/sanitize.ts";
import { checkWellFormed } from "./well-formed.ts";

const NS = 'xmlns="http://www.w3.org/2000/svg"';

/** Each case: hostile input, and what must not survive it (matched case-insensitively). */
const HOSTILE: { name: string; svg: string; forbidden: string[] }[] = [
  { name: "script element", svg: `<svg ${NS}><script>alert(1)</script><rect width="1" height="1"/></svg>`, forbidden: ["script", "alert"] },
  { name: "upper-case script", svg: `<SVG><SCRIPT>alert(1)</SCRIPT></SVG>`, forbidden: ["script", "alert"] },
  { name: "namespaced script", svg: `<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:script>alert(1)</svg:script></svg:svg>`, forbidden: ["script", "alert"] },
  { name: "script with CDATA", svg: `<svg><script><![CDATA[alert(1)]]></script></svg>`, forbidden: ["script", "alert", "cdata"] },
  { name: "onload on the root", svg: `<svg onload="alert(1)" ONLOAD='x'><circle r="1" onclick="alert(2)" onmouseover=alert(3)/></svg>`, forbidden: ["onload", "onclick", "onmouseover", "alert"] },
  { name: "javascript: href", svg: `<svg><a href="javascript:alert(1)"><text>hi</text></a></svg>`, forbidden: ["javascript", "alert", "<a"] },
  { name: "entity-encoded javascript:", svg: `<svg><use href="&#106;avascript&#x3a;alert(1)"/><use href="&#0000106;ava&#9;script:alert(1)"/></svg>`, forbidden: ["javascript", "alert", "&#"] },
  { name: "javascript: with spaces and case", svg: `<svg><use xlink:href=" JaVa\tScRiPt:alert(1)"/></svg>`, forbidden: ["script", "alert"] },
  { name: "external xlink:href", svg: `<svg xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="http://evil.test/sprite.svg#a"/><use href="//evil.test/s.svg#b"/></svg>`, forbidden: ["evil", "http", "xlink"] },
  { name: "data: references", svg: `<svg><use href="data:image/svg+xml;base64,PHN2Zz4="/><rect fill="url(data:image/png;base64,AAAA)"/></svg>`, forbidden: ["data:", "base64"] },
  { name: "image element", svg: `<svg><image href="https://evil.test/x.png" width="10" height="10"/></svg>`, forbidden: ["image", "evil"] },
  { name: "foreignObject", svg: `<svg><foreignObject width="100" height="100"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.test"></iframe></body></foreignObject></svg>`, forbidden: ["foreignobject", "iframe", "evil", "body"] },
  { name: "ENTITY declarations (XXE, billion laughs)", svg: `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg><text>&xxe;&b;</text></svg>`, forbidden: ["entity", "doctype", "passwd", "aaaa", "<?xml"] },
  { name: "style with external url()", svg: `<svg><rect style="fill:url(http://evil.test/x)" width="1" height="1"/><rect fill="url('https://evil.test/y')"/></svg>`, forbidden: ["evil", "http"] },
  { name: "style element with @import", svg: `<svg><style>@import url(https://evil.test/a.css); rect{fill:red}</style></svg>`, forbidden: ["import", "evil"] },
  { name: "CSS escapes and expressions", svg: `<svg><style>rect{background:u\\72l(https://evil.test)}</style><rect style="width:expression(alert(1))"/></svg>`, forbidden: ["evil", "expression", "alert"] },
  { name: "CDATA closing a style early", svg: `<svg><style><![CDATA[</style><script>alert(1)</script>]]></style></svg>`, forbidden: ["<script", "alert"] },
  { name: "markup smuggled in a title", svg: `<svg><title><![CDATA[</title><script>alert(1)</script>]]></title></svg>`, forbidden: ["<script"] },
  { name: "animation rewriting href", svg: `<svg><a><animate attributeName="href" values="javascript:alert(1)"/><set attributeName="onmouseover" to="alert(2)"/><text>x</text></a></svg>`, forbidden: ["animate", "set", "javascript", "alert"] },
  { name: "comments and processing instructions", svg: `<svg><!-- <script>alert(1)</script> --><?xml-stylesheet href="https://evil.test/x.css"?><rect/></svg>`, forbidden: ["<!--", "script", "evil", "<?"] },
  { name: "unclosed tags", svg: `<svg><g><rect width="10" height="10"><circle r="4" onload="alert(1)"`, forbidden: ["onload", "alert"] },
  { name: "unterminated attribute quote", svg: `<svg><rect fill="red/><script>alert(1)</script></svg>`, forbidden: ["script", "alert"] },
  { name: "iframe and embed inside", svg: `<svg><iframe src="https://evil.test"/><embed src="x.swf"/><object data="x"/></svg>`, forbidden: ["iframe", "embed", "object", "evil"] },
  { name: "xml:base and event namespaces", svg: `<svg xml:base="https://evil.test/"><g ev:event="click" xmlns:ev="http://www.w3.org/2001/xml-events"/></svg>`, forbidden: ["xml:base", "evil", "ev:"] },
  { name: "a second root after the first", svg: `<svg><rect/></svg><svg onload="alert(1)"><script>alert(2)</script></svg>`, forbidden: ["onload", "alert", "script"] },
  { name: "HTML around the SVG", svg: `<html><script>alert(1)</script><body><svg><circle r="3"/></svg><img src=x onerror=alert(2)></body></html>`, forbidden: ["html", "alert", "img", "onerror"] },
];

describe("sanitizeSvg: hostile markup", () => {
  for (const c of HOSTILE) {
    it(`removes ${c.name}`, () => {
      const out = sanitizeSvg(c.svg);
      const withoutNamespace = out.replace(` ${NS}`, ""); // the one URL we add ourselves
      for (const bad of c.forbidden) expect(withoutNamespace.toLowerCase(), `${bad} survived: ${out}`).not.toContain(bad.toLowerCase());
      const outline = checkWellFormed(out);
      expect(outline.root).toBe("svg");
      expect(outline.rootAttributes.xmlns).toBe("http://www.w3.org/2000/svg");
    });
  }

  it("keeps only one root and the drawing inside it", () => {
    const out = sanitizeSvg(`<html><body><svg><circle r="3"/></svg><svg><rect/></svg></body></html>`);
    expect(out).toBe(`<svg ${NS}><circle r="3"/></svg>`);
  });

  it("closes unclosed elements in order and drops a tag cut off at the end", () => {
    expect(sanitizeSvg(`<svg><g><rect width="10" height="10"><circle r="4"`)).toBe(`<svg ${NS}><g><rect width="10" height="10"/></g></svg>`);
  });

  it("refuses markup with no <svg> root as an upstream error", () => {
    for (const input of ["", "hello", "<html><body>no image</body></html>", '{"error":"model overloaded"}', "<!-- <svg> -->", "<svgfoo/>"]) {
      let error: unknown;
      try {
        sanitizeSvg(input);
      } catch (e) {
        error = e;
      }
      expect(error, input).toBeInstanceOf(PixelgateError);
      expect((error as PixelgateError).code).toBe("upstream_error");
    }
  });
});

describe("sanitizeSvg: innocent markup", () => {
  const innocent = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100" width="100" height="100">`,
    `  <title>Logo &amp; mark</title>`,
    `  <defs><linearGradient id="g1" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f" stop-opacity="0.5"/></linearGradient>`,
    `  <circle id="dot" r="4"/><filter id="soft"><feGaussianBlur stdDeviation="2"/></filter></defs>`,
    `  <style><![CDATA[ .thick > path { stroke-width: 4; fill: url(#g1) } ]]></style>`,
    `  <g class="thick" transform="translate(10 10)"><path d="M0 0L50 50Z" stroke="black"/></g>`,
    `  <rect x="5" y="5" width="90" height="90" rx="8" fill="url(#g1)" filter="url('#soft')"/>`,
    `  <use xlink:href="#dot" x="20" y="20"/>`,
    `  <text x="10" y="90" font-family="sans-serif" font-size="12">Hello &lt;world&gt; caf\u00e9</text>`,
    `</svg>`,
  ].join("\n");

  it("keeps shapes, gradients, filters, local references, text and safe CSS", () => {
    const out = sanitizeSvg(innocent);
    checkWellFormed(out);
    for (const kept of [
      `<svg ${NS} viewBox="0 0 100 100" width="100" height="100">`,
      `<title>Logo &amp; mark</title>`,
      `<linearGradient id="g1" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f" stop-opacity="0.5"/></linearGradient>`,
      `<filter id="soft"><feGaussianBlur stdDeviation="2"/></filter>`,
      `<style> .thick &gt; path { stroke-width: 4; fill: url(#g1) } </style>`,
      `<g class="thick" transform="translate(10 10)"><path d="M0 0L50 50Z" stroke="black"/></g>`,
      `<rect x="5" y="5" width="90" height="90" rx="8" fill="url(#g1)" filter="url('#soft')"/>`,
      `<use href="#dot" x="20" y="20"/>`,
      `<text x="10" y="90" font-family="sans-serif" font-size="12">Hello &lt;world&gt; caf\u00e9</text>`,
    ]) {
      expect(out).toContain(kept);
    }
  });

  it("is idempotent: sanitised output sanitises to itself", () => {
    const once = sanitizeSvg(innocent);
    expect(sanitizeSvg(once)).toBe(once);
    for (const c of HOSTILE) {
      const out = sanitizeSvg(c.svg);
      expect(sanitizeSvg(out), c.name).toBe(out);
    }
  });

  it("accepts case and prefix variants of allowed elements, written in SVG spelling", () => {
    expect(sanitizeSvg(`<SVG VIEWBOX="0 0 1 1"><svg:LINEARGRADIENT ID="a"/><RECT FILL="red"/></SVG>`)).toBe(
      `<svg ${NS} viewBox="0 0 1 1"><linearGradient id="a"/><rect fill="red"/></svg>`,
    );
  });
});

describe("svgDataUrl", () => {
  it("is the UTF-8 markup in base64 under the SVG media type", () => {
    const markup = `<svg ${NS}><title>caf\u00e9 \u2615</title></svg>`;
    const url = svgDataUrl(markup);
    expect(url.startsWith("data:image/svg+xml;base64,")).toBe(true);
    const bytes = Uint8Array.from(atob(url.slice("data:image/svg+xml;base64,".length)), (c) => c.charCodeAt(0));
    expect(new TextDecoder().decode(bytes)).toBe(markup);
  });
});
