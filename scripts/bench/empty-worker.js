// @ts-check
// Bench-only worker (scripts/bench/wrangler.empty.toml): answers every request with two bytes
// and does nothing else. `npm run bench:codecs` times it beside a tiny compress under the same
// `wrangler dev`, so the figures separate what the local runtime costs any request on this
// machine (wrangler's proxy, miniflare's entry worker, the HTTP hops) from what Pixelgate adds.
export default {
  fetch() {
    return new Response("ok");
  },
};
