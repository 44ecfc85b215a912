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

export {};
