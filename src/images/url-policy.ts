// Which reference-image URLs the worker may fetch (https only, no loopback,
// private or link-local hosts). Checked on the client's URL and again on every redirect target.
//
// What this cannot see: Workers have no DNS resolver of their own, so a public name that
// resolves to a private address (127.0.0.1.nip.io, a rebinding domain) passes here. In
// production Cloudflare's egress does not route Worker subrequests to private networks, which
// stops those; this guard refuses everything that can be judged from the URL text itself.

import { endsInNumber, ipv4Refusal, ipv6Refusal, parseIPv4, parseIPv6 } from "./ip-address";

/**
 * Names that only mean something inside a private network or on the machine itself. Matched as
 * the whole name or as a suffix (`*.localhost`, `printer.local`, `metadata.google.internal`).
 */
const INTERNAL_SUFFIXES = ["localhost", "local", "internal", "localdomain", "home.arpa"];

/** Cloud metadata names outside those suffixes. */
const METADATA_NAMES = new Set(["metadata.goog"]);

/**
 * Parses and judges a URL. Returns the URL to fetch, or the reason it is refused, phrased to
 * follow "The image URL ...".
 */
export function checkImageUrl(text: string, base?: URL): URL | { refused: string } {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return { refused: "is not a valid absolute URL" };
  }
  const refused = urlRefusal(url);
  return refused === null ? url : { refused };
}

/** Why this parsed URL must not be fetched, or null when it may be. */
export function urlRefusal(url: URL): string | null {
  if (url.protocol !== "https:") return `must use https (got ${url.protocol.replace(/:$/, "") || "no scheme"})`;
  if (url.username !== "" || url.password !== "") return "must not carry credentials (user:password@)";
  // Only the default port: other ports are where internal services listen, and a public image
  // host has no reason to use one. The parser drops an explicit :443, so any port left is refused.
  if (url.port !== "" && url.port !== "443") return `must use the default https port 443 (got ${url.port})`;
  const refused = hostRefusal(url.hostname);
  return refused === null ? null : `points to ${refused}`;
}

/**
 * Why a host must not be fetched, or null when it may be. Accepts raw spellings as well as the
 * URL parser's normalised ones (bracketed IPv6, trailing dots, octal/hex/short IPv4).
 */
export function hostRefusal(rawHost: string): string | null {
  const host = rawHost.toLowerCase().replace(/\.+$/, ""); // "localhost." is localhost
  if (host === "") return "an empty host";

  if (host.startsWith("[") || host.includes(":")) {
    const literal = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
    const address = parseIPv6(literal);
    if (address === null) return "a malformed IPv6 address";
    const refused = ipv6Refusal(address);
    return refused === null ? null : `${rawHost}, ${refused}`;
  }

  const ipv4 = parseIPv4(host);
  if (ipv4 !== null) {
    const refused = ipv4Refusal(ipv4);
    return refused === null ? null : `${rawHost}, ${refused}`;
  }
  if (endsInNumber(host)) return `${rawHost}, a malformed numeric host`;

  const suffix = INTERNAL_SUFFIXES.find((s) => host === s || host.endsWith(`.${s}`));
  if (suffix !== undefined) return `${rawHost}, an internal host name (${suffix === host ? host : `*.${suffix}`} is never public)`;
  if (METADATA_NAMES.has(host)) return `${rawHost}, a cloud metadata endpoint`;
  // A name with no dot is completed from the network's search domains: always an internal host
  // (intranet, metadata, kubernetes, ...), never a public one.
  if (!host.includes(".")) return `${rawHost}, a single-label host name that only resolves inside private networks`;
  return null;
}
