// The jsquash (Squoosh) Emscripten glue assigns `self.location = { href: "" }` when it finds no
// `location`. A location without origin/protocol later breaks code that resolves URLs against
// it (the MCP SDK's JSON-schema validator fails with "Invalid URL string"). Defining a complete,
// inert location first means the glue finds one and leaves it alone. Import this module before
// any codec glue runs.

const PLACEHOLDER = new URL("https://pixelgate.invalid/");

if ((globalThis as { location?: unknown }).location === undefined) {
  Object.defineProperty(globalThis, "location", {
    configurable: true,
    enumerable: false,
    writable: true,
    value: Object.freeze({
      href: PLACEHOLDER.href,
      origin: PLACEHOLDER.origin,
      protocol: PLACEHOLDER.protocol,
      host: PLACEHOLDER.host,
      hostname: PLACEHOLDER.hostname,
      port: PLACEHOLDER.port,
      pathname: PLACEHOLDER.pathname,
      search: PLACEHOLDER.search,
      hash: PLACEHOLDER.hash,
      ancestorOrigins: Object.freeze([]),
      toString: () => PLACEHOLDER.href,
      assign: () => {},
      reload: () => {},
      replace: () => {},
    }),
  });
}

// The same glue also defines `globalThis.ImageData` inside the first codec call of an isolate
// when the runtime has none (workerd has none). The class it defines closes over that first
// codec instance, so its WASM memory (16 to 50 MB) would stay alive for the isolate's lifetime.
// A plain class defined here first keeps every codec instance collectable (measured by
// npm run bench:codecs: a 4 MP JPEG compress peaked at 99 MB with the leak, 80 MB without).
if ((globalThis as { ImageData?: unknown }).ImageData === undefined) {
  class ImageData {
    readonly data: Uint8ClampedArray;
    readonly width: number;
    readonly height: number;
    readonly colorSpace = "srgb";
    constructor(dataOrWidth: Uint8ClampedArray | number, widthOrHeight: number, height?: number) {
      if (typeof dataOrWidth === "number") {
        this.width = dataOrWidth;
        this.height = widthOrHeight;
        this.data = new Uint8ClampedArray(dataOrWidth * widthOrHeight * 4);
      } else {
        this.data = dataOrWidth;
        this.width = widthOrHeight;
        this.height = height ?? dataOrWidth.length / 4 / widthOrHeight;
      }
    }
  }
  Object.defineProperty(globalThis, "ImageData", { configurable: true, enumerable: false, writable: true, value: ImageData });
}

export {};
