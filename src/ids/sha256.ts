// Node scripts import this file directly, so it has no imports.

/** SHA-256 as lowercase hex, of text (UTF-8) or of bytes: how keys, tokens and request bodies are fingerprinted. */
export async function sha256Hex(value: string | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", typeof value === "string" ? new TextEncoder().encode(value) : value);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
