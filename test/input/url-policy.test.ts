import { describe, expect, it } from "vitest";
import { ipv4Refusal, ipv6Refusal, parseIPv4, parseIPv6 } from "../../src/images/ip-address";
import { loadImageBytes } from "../../src/images/input";
import { checkImageUrl, hostRefusal } from "../../src/images/url-policy";
import { countingFetcher, expectRefusal } from "./helpers";

// Which reference-image URLs may be fetched (https only, no loopback, private
// or link-local hosts). Every refusal must happen before any network call.

const DISALLOWED: Array<[string, string]> = [
  // Schemes other than https
  ["plain http", "http://images.pixelgate.test/photo.png"],
  ["ftp", "ftp://images.pixelgate.test/photo.png"],
  ["file", "file:///etc/passwd"],
  ["javascript", "javascript:alert(1)"],
  ["blob", "blob:https://images.pixelgate.test/0b3c9a1e"],
  ["gopher", "gopher://127.0.0.1:6379/_INFO"],
  ["scheme-relative", "//images.pixelgate.test/photo.png"],
  // Loopback in every IPv4 spelling
  ["IPv4 loopback", "https://127.0.0.1/photo.png"],
  ["decimal integer", "https://2130706433/photo.png"],
  ["octal", "https://0177.0.0.1/photo.png"],
  ["octal integer", "https://017700000001/photo.png"],
  ["hex short form", "https://0x7f.1/photo.png"],
  ["hex integer", "https://0x7f000001/photo.png"],
  ["hex per octet", "https://0x7f.0x0.0x0.0x1/photo.png"],
  ["short form", "https://127.1/photo.png"],
  ["trailing dot", "https://127.0.0.1./photo.png"],
  ["percent-encoded", "https://%31%32%37.0.0.1/photo.png"],
  ["full-width digits", "https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/photo.png"],
  ["backslashes", "https:\\\\127.0.0.1\\photo.png"],
  ["explicit port 443", "https://127.0.0.1:443/photo.png"],
  // Other non-public IPv4
  ["unspecified", "https://0.0.0.0/photo.png"],
  ["bare zero", "https://0/photo.png"],
  ["private 10/8", "https://10.0.0.1/photo.png"],
  ["private 172.16/12", "https://172.16.5.4/photo.png"],
  ["private 192.168/16", "https://192.168.1.1/photo.png"],
  ["CGNAT", "https://100.64.0.1/photo.png"],
  ["link-local", "https://169.254.1.1/photo.png"],
  ["multicast", "https://224.0.0.1/photo.png"],
  ["broadcast", "https://255.255.255.255/photo.png"],
  // Cloud metadata
  ["AWS/GCP/Azure metadata IP", "https://169.254.169.254/latest/meta-data/"],
  ["metadata IP in decimal", "https://2852039166/latest/meta-data/"],
  ["Alibaba metadata", "https://100.100.100.200/latest/meta-data/"],
  ["Azure WireServer", "https://168.63.129.16/machine"],
  ["GCP metadata name", "https://metadata.google.internal/computeMetadata/v1/"],
  ["GCP metadata name, trailing dot", "https://metadata.google.internal./computeMetadata/v1/"],
  ["bare metadata name", "https://metadata/computeMetadata/v1/"],
  ["AWS IPv6 metadata", "https://[fd00:ec2::254]/latest/meta-data/"],
  // IPv6
  ["IPv6 loopback", "https://[::1]/photo.png"],
  ["IPv6 loopback, long form", "https://[0:0:0:0:0:0:0:1]/photo.png"],
  ["IPv6 unspecified", "https://[::]/photo.png"],
  ["IPv4-mapped dotted", "https://[::ffff:127.0.0.1]/photo.png"],
  ["IPv4-mapped hex", "https://[::ffff:7f00:1]/photo.png"],
  ["IPv4-mapped metadata", "https://[::ffff:169.254.169.254]/latest/meta-data/"],
  ["IPv4-mapped public address", "https://[::ffff:8.8.8.8]/photo.png"],
  ["NAT64 loopback", "https://[64:ff9b::127.0.0.1]/photo.png"],
  ["NAT64 metadata", "https://[64:ff9b::a9fe:a9fe]/latest/meta-data/"],
  ["6to4 loopback", "https://[2002:7f00:1::]/photo.png"],
  ["Teredo", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/photo.png"],
  ["unique local", "https://[fd12:3456::1]/photo.png"],
  ["link-local", "https://[fe80::1]/photo.png"],
  ["multicast", "https://[ff02::1]/photo.png"],
  ["documentation", "https://[2001:db8::1]/photo.png"],
  // Internal names
  ["localhost", "https://localhost/photo.png"],
  ["LOCALHOST, trailing dot", "https://LOCALHOST./photo.png"],
  ["localhost in circled letters", "https://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/photo.png"],
  ["*.localhost", "https://images.localhost/photo.png"],
  ["*.local", "https://printer.local/photo.png"],
  ["*.internal", "https://billing.corp.internal/photo.png"],
  ["*.home.arpa", "https://nas.home.arpa/photo.png"],
  ["single-label name", "https://intranet/photo.png"],
  // Credentials and ports
  ["credentials", "https://user:pass@images.pixelgate.test/photo.png"],
  ["user only", "https://user@images.pixelgate.test/photo.png"],
  ["credentials hiding the real host", "https://images.pixelgate.test@127.0.0.1/photo.png"],
  ["non-default port", "https://images.pixelgate.test:8443/photo.png"],
  ["port 80 on https", "https://images.pixelgate.test:80/photo.png"],
  ["loopback with a port", "https://127.0.0.1:8787/photo.png"],
  // Not a URL at all
  ["unparseable host", "https://exa mple.com/photo.png"],
  ["malformed IPv4", "https://1.2.3.999/photo.png"],
];

describe("disallowed image URLs", () => {
  it("has a table of at least 25 spellings", () => {
    expect(DISALLOWED.length).toBeGreaterThanOrEqual(25);
  });

  it.each(DISALLOWED)("refuses %s (%s) with image_fetch_failed and no network call", async (_name, url) => {
    const { fetcher, calls } = countingFetcher();
    const error = await expectRefusal(loadImageBytes(url, { param: "image", fetcher }), "image_fetch_failed", "image");
    expect(calls).toEqual([]);
    expect(error.message).toMatch(/^The image URL /);
  });

  it("explains the refusal", async () => {
    const { fetcher } = countingFetcher();
    const loopback = await expectRefusal(loadImageBytes("https://0x7f.1/x.png", { param: "image", fetcher }), "image_fetch_failed", "image");
    expect(loopback.message).toMatch(/loopback/);
    const metadata = await expectRefusal(loadImageBytes("https://169.254.169.254/", { param: "image", fetcher }), "image_fetch_failed", "image");
    expect(metadata.message).toMatch(/metadata/);
    const http = await expectRefusal(loadImageBytes("http://images.pixelgate.test/x.png", { param: "image", fetcher }), "image_fetch_failed", "image");
    expect(http.message).toMatch(/https/);
    const mapped = await expectRefusal(loadImageBytes("https://[::ffff:7f00:1]/", { param: "image", fetcher }), "image_fetch_failed", "image");
    expect(mapped.message).toMatch(/IPv4-mapped IPv6 address embedding 127\.0\.0\.1/);
  });
});

describe("allowed image URLs", () => {
  it.each([
    "https://images.pixelgate.test/photo.png",
    "https://images.pixelgate.test:443/photo.png",
    "https://cdn.example.com/a/b.png?size=large#top",
    "https://8.8.8.8/photo.png",
    "https://1.1.1.1./photo.png",
    "https://[2606:4700:4700::1111]/photo.png",
    "https://localhost.example.com/photo.png",
    "https://internal.example.com/photo.png",
  ])("lets %s through", (url) => {
    expect(checkImageUrl(url)).toBeInstanceOf(URL);
  });

  it("resolves a relative redirect target against the current URL before judging it", () => {
    const base = new URL("https://images.pixelgate.test/a/b.png");
    expect((checkImageUrl("../c.png", base) as URL).href).toBe("https://images.pixelgate.test/c.png");
    expect(checkImageUrl("//127.0.0.1/c.png", base)).toEqual({ refused: expect.stringMatching(/loopback/) });
  });
});

// The URL parser normalises most spellings before the guard sees them; the guard must refuse the
// raw spellings too, so a parser difference can never be the only line of defence.
describe("host guard on raw spellings", () => {
  it.each([
    "127.0.0.1",
    "0177.0.0.1",
    "0x7f.1",
    "2130706433",
    "017700000001",
    "127.1",
    "127.0.0.1.",
    "127.0.0.1..",
    "0",
    "[::ffff:127.0.0.1]",
    "::ffff:7f00:1",
    "[0:0:0:0:0:ffff:7f00:1]",
    "[0000:0000:0000:0000:0000:0000:0000:0001]",
    "[64:ff9b::7f00:1]",
    "[::127.0.0.1]",
    "LOCALHOST.",
    "Metadata.Google.Internal",
    "1.2.3.999",
    "0x1g.0.0.1",
    "[::1",
    "[1::2::3]",
    "[12345::1]",
    "",
    "...",
  ])("refuses %j", (host) => {
    expect(hostRefusal(host)).toEqual(expect.any(String));
  });

  it.each(["8.8.8.8", "8.8.8.8.", "134744072", "[2606:4700::1111]", "images.pixelgate.test", "images.pixelgate.test."])("allows %j", (host) => {
    expect(hostRefusal(host)).toBeNull();
  });
});

describe("IP literal parsing", () => {
  it.each([
    ["127.0.0.1", 0x7f000001],
    ["0177.0.0.1", 0x7f000001],
    ["0x7f.1", 0x7f000001],
    ["127.1", 0x7f000001],
    ["127.0.1", 0x7f000001],
    ["2130706433", 0x7f000001],
    ["0x7F000001", 0x7f000001],
    ["0x", 0],
    ["255.255.255.255", 0xffffffff],
  ])("reads IPv4 %s", (text, value) => {
    expect(parseIPv4(text)).toBe(value);
  });

  it.each(["256.0.0.1", "1.2.3.4.5", "4294967296", "1.16777216", "08.0.0.1", "1..2.3", "example.com", ""])("rejects IPv4 %j", (text) => {
    expect(parseIPv4(text)).toBeNull();
  });

  it.each([
    ["::1", 1n],
    ["::", 0n],
    ["::ffff:127.0.0.1", 0xffff7f000001n],
    ["::FFFF:7F00:1", 0xffff7f000001n],
    ["1:2:3:4:5:6:7:8", 0x00010002000300040005000600070008n],
    ["fe80::", 0xfe80n << 112n],
  ])("reads IPv6 %s", (text, value) => {
    expect(parseIPv6(text)).toBe(value);
  });

  it.each(["1:2:3:4:5:6:7", "1::2::3", "12345::", "::ffff:256.0.0.1", "1.2.3.4::", ":1", "g::"])("rejects IPv6 %j", (text) => {
    expect(parseIPv6(text)).toBeNull();
  });

  it("classifies IPv4 ranges", () => {
    expect(ipv4Refusal(parseIPv4("172.31.255.255")!)).toMatch(/private/);
    expect(ipv4Refusal(parseIPv4("172.32.0.0")!)).toBeNull();
    expect(ipv4Refusal(parseIPv4("100.127.255.255")!)).toMatch(/carrier-grade/);
    expect(ipv4Refusal(parseIPv4("100.128.0.0")!)).toBeNull();
    expect(ipv4Refusal(parseIPv4("169.254.169.254")!)).toMatch(/metadata/);
    expect(ipv4Refusal(parseIPv4("93.184.216.34")!)).toBeNull();
  });

  it("classifies IPv6 ranges", () => {
    expect(ipv6Refusal(parseIPv6("fe80::1")!)).toMatch(/link-local/);
    expect(ipv6Refusal(parseIPv6("fc00::1")!)).toMatch(/unique-local/);
    expect(ipv6Refusal(parseIPv6("64:ff9b::a9fe:a9fe")!)).toMatch(/NAT64.*169\.254\.169\.254/);
    expect(ipv6Refusal(parseIPv6("2002:a9fe:a9fe::1")!)).toMatch(/6to4.*169\.254\.169\.254/);
    expect(ipv6Refusal(parseIPv6("2606:4700:4700::1111")!)).toBeNull();
    expect(ipv6Refusal(parseIPv6("4000::1")!)).toMatch(/global unicast/);
  });
});
