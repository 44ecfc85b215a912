// SVG as a `data:` URL usable in `src` (text-to-svg's `dataUrl`). Base64 of the UTF-8 bytes
// rather than percent-encoding: it is what clients expect to see and it survives any markup.

export function svgDataUrl(markup: string): string {
  const bytes = new TextEncoder().encode(markup);
  let binary = "";
  const CHUNK = 0x8000; // String.fromCharCode takes its arguments on the stack: keep calls small
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}
