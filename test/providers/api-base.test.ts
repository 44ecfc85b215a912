import { describe, expect, it } from "vitest";
import { isAllowedApiBase } from "../../src/providers/upstream-http";

// Provider API bases: https anywhere, plain http only on loopback (local OpenAI-compatible servers).
describe("isAllowedApiBase", () => {
  it.each([
    ["https://api.openai.com/v1", true],
    ["https://example.com:8443/v1", true],
    ["http://127.0.0.1:8080/v1", true],
    ["http://localhost:11434/v1", true],
    ["http://[::1]:9000", true],
    ["http://api.openai.com/v1", false],
    ["http://10.0.0.5/v1", false],
    ["http://127.0.0.1.nip.io/v1", false],
    ["ftp://127.0.0.1/", false],
    ["not a url", false],
  ])("%s -> %s", (base, allowed) => {
    expect(isAllowedApiBase(base)).toBe(allowed);
  });
});
