// Wrangler (and the vitest pool, which follows wrangler.toml) bundles `.wasm` imports as a
// compiled WebAssembly.Module.
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
