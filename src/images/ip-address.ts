// IP literals in every spelling a URL host can carry, and which of them a reference-image fetch
// must never reach. The URL parser already normalises most spellings (2130706433, 0177.0.0.1,
// 0x7f.1 and 127.1 all become 127.0.0.1), but the guard parses again itself: a parser difference
// must not be the only thing between a client and the loopback interface.

/**
 * A host read as an IPv4 address the way URL parsers and inet_aton do: one to four dot-separated
 * parts, each decimal, octal (leading 0) or hex (0x), the last part filling the remaining bytes
 * (127.1 is 127.0.0.1, 2130706433 is 127.0.0.1). Returns the 32-bit value, or null when the host
 * is not an IPv4 literal.
 */
export function parseIPv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIPv4Part(part);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  return numbers.reduce((value, n, i) => value + n * 256 ** (3 - i), last);
}

function parseIPv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part, 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

/** Whether the last label looks numeric: such a host is an IPv4 literal or malformed, never a name. */
export function endsInNumber(host: string): boolean {
  const last = host.split(".").pop() ?? "";
  return /^[0-9]+$/.test(last) || /^0x[0-9a-f]*$/i.test(last);
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join(".");
}

/** An IPv6 literal (no brackets, no zone id) as a 128-bit number; a dotted IPv4 tail is allowed. */
export function parseIPv6(text: string): bigint | null {
  const halves = text.toLowerCase().split("::");
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const head = parseGroups(halves[0]!, !compressed);
  const tail = compressed ? parseGroups(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  const explicit = head.length + tail.length;
  if (compressed ? explicit > 7 : explicit !== 8) return null;
  const groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...tail];
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

function parseGroups(text: string, ipv4TailAllowed: boolean): number[] | null {
  if (text === "") return [];
  const pieces = text.split(":");
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (/^[0-9a-f]{1,4}$/.test(piece)) {
      groups.push(parseInt(piece, 16));
    } else if (ipv4TailAllowed && i === pieces.length - 1 && /^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) {
      const octets = piece.split(".").map(Number);
      if (octets.some((o) => o > 255)) return null;
      groups.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
    } else {
      return null;
    }
  }
  return groups;
}

interface Block<T> {
  base: T;
  bits: number;
  why: string;
}

function v4(cidr: string, why: string): Block<number> {
  const [address, bits] = cidr.split("/");
  return { base: parseIPv4(address!)!, bits: Number(bits), why };
}

function inV4(value: number, block: Block<number>): boolean {
  if (block.bits === 0) return true;
  const mask = (0xffffffff << (32 - block.bits)) >>> 0;
  return ((value & mask) >>> 0) === ((block.base & mask) >>> 0);
}

// Cloud metadata endpoints first, so the refusal names them; most also sit inside a range below.
// Then every IPv4 special-purpose block (IANA registry) that is not globally reachable.
const IPV4_REFUSED: Block<number>[] = [
  v4("169.254.169.254/32", "a cloud metadata endpoint (AWS, GCP, Azure, ...)"),
  v4("169.254.170.2/32", "a cloud metadata endpoint (AWS ECS task metadata)"),
  v4("100.100.100.200/32", "a cloud metadata endpoint (Alibaba Cloud)"),
  v4("192.0.0.192/32", "a cloud metadata endpoint (Oracle Cloud)"),
  v4("168.63.129.16/32", "a cloud platform endpoint (Azure WireServer)"),
  v4("0.0.0.0/8", "an unspecified ('this network') address"),
  v4("10.0.0.0/8", "a private address"),
  v4("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
  v4("127.0.0.0/8", "a loopback address"),
  v4("169.254.0.0/16", "a link-local address"),
  v4("172.16.0.0/12", "a private address"),
  v4("192.0.0.0/24", "an IETF protocol-assignment address"),
  v4("192.0.2.0/24", "a documentation address"),
  v4("192.88.99.0/24", "a 6to4 relay anycast address"),
  v4("192.168.0.0/16", "a private address"),
  v4("198.18.0.0/15", "a benchmarking address"),
  v4("198.51.100.0/24", "a documentation address"),
  v4("203.0.113.0/24", "a documentation address"),
  v4("224.0.0.0/4", "a multicast address"),
  v4("240.0.0.0/4", "a reserved or broadcast address"),
];

/** Why the address must not be fetched, or null for a public unicast address. */
export function ipv4Refusal(value: number): string | null {
  return IPV4_REFUSED.find((block) => inV4(value, block))?.why ?? null;
}

function v6(cidr: string, why: string): Block<bigint> {
  const [address, bits] = cidr.split("/");
  return { base: parseIPv6(address!)!, bits: Number(bits), why };
}

function inV6(value: bigint, block: Block<bigint>): boolean {
  const shift = BigInt(128 - block.bits);
  return value >> shift === block.base >> shift;
}

// IPv6 forms that carry an IPv4 address inside. A translator or tunnel on the path may deliver
// them to that IPv4 address, so they are refused whatever it is: public sites have a plain IPv4
// or a native IPv6 address, and nobody needs these spellings to share an image.
const IPV6_EMBEDDING: Block<bigint>[] = [
  v6("::ffff:0:0/96", "an IPv4-mapped IPv6 address"),
  v6("::ffff:0:0:0/96", "an IPv4-translated IPv6 address"),
  v6("64:ff9b::/96", "a NAT64 address"),
  v6("64:ff9b:1::/48", "a local-use NAT64 address"),
  v6("2002::/16", "a 6to4 address"),
  v6("2001::/32", "a Teredo address"),
  v6("::/96", "an IPv4-compatible IPv6 address"),
];

const IPV6_REFUSED: Block<bigint>[] = [
  v6("fd00:ec2::254/128", "a cloud metadata endpoint (AWS)"),
  v6("100::/64", "a discard-only address"),
  v6("fc00::/7", "a unique-local (private) address"),
  v6("fe80::/10", "a link-local address"),
  v6("fec0::/10", "a site-local address"),
  v6("ff00::/8", "a multicast address"),
  v6("2001:db8::/32", "a documentation address"),
  v6("2001::/23", "an IETF protocol-assignment address"),
  v6("3fff::/20", "a documentation address"),
  v6("5f00::/16", "a segment-routing address"),
];

const GLOBAL_UNICAST = v6("2000::/3", "");

/** Why the address must not be fetched, or null for a public (global unicast) address. */
export function ipv6Refusal(value: bigint): string | null {
  if (value === 0n) return "an unspecified address";
  if (value === 1n) return "a loopback address";
  const embedding = IPV6_EMBEDDING.find((block) => inV6(value, block));
  if (embedding) {
    const embedded = embedding.base >> 112n === 0x2002n ? Number((value >> 80n) & 0xffffffffn) : Number(value & 0xffffffffn);
    // Teredo obscures its embedded client address; naming it would mislead.
    return embedding.base >> 96n === 0x20010000n ? embedding.why : `${embedding.why} embedding ${formatIPv4(embedded)}`;
  }
  const refused = IPV6_REFUSED.find((block) => inV6(value, block));
  if (refused) return refused.why;
  return inV6(value, GLOBAL_UNICAST) ? null : "not a global unicast address";
}
