// Signing secrets a deployment needs no setup for: when the operator configured none, one is
// generated on first use and kept in D1 (table dashboard_secrets, one row per name), so every
// isolate of the deployment signs and checks with the same one.

/** `configured` when set; else the secret kept under `name`, created once. */
export async function keptSecret(db: D1Database, name: string, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const fresh = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  await db.prepare("INSERT OR IGNORE INTO dashboard_secrets (name, value) VALUES (?, ?)").bind(name, fresh).run();
  const row = await db.prepare("SELECT value FROM dashboard_secrets WHERE name = ?").bind(name).first<{ value: string }>();
  return row!.value;
}

/** HMAC-SHA256 of `message` under `secret`, as lowercase hex. */
export async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message));
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
}
