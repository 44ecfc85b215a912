// `npm start`: apply local D1 migrations, seed the development account (its key and dashboard
// password), then run the worker with `wrangler dev` and print how to call it. Offline; state
// lives in .wrangler/state (or PERSIST_TO). The set-up steps print one line each (their full
// output only when they fail), so the banner is what a newcomer reads.
import { spawn, spawnSync } from "node:child_process";
import { hashPassword } from "../src/auth/password-hash.ts";
import { displayPrefix } from "../src/ids/api-key.ts";
import { sha256Hex } from "../src/ids/sha256.ts";
import { loadDevSettings, DEV_VARS_FILE } from "./dev-settings.ts";

const DEV_ACCOUNT = { id: "acct_dev", name: "Development account", email: "dev@localhost", credits: 1000 };
// No request.cf download from workers.cloudflare.com: offline it fails with a stack trace, and
// local runs do without it (Miniflare's placeholder values).
const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

/** Runs a wrangler set-up command quietly; its output is shown only if it fails. */
function wrangler(args: string[]): string {
  const result = spawnSync("wrangler", args, { stdio: ["ignore", "pipe", "pipe"], env: { ...wranglerEnv, CI: "true" }, encoding: "utf8" });
  if (result.status !== 0) {
    process.stdout.write(result.stdout ?? "");
    process.stderr.write(result.stderr ?? "");
    console.error(`wrangler ${args.join(" ")} failed (exit ${result.status ?? result.signal}).`);
    process.exit(1);
  }
  return result.stdout;
}

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

async function seedSql(devApiKey: string, devPassword: string): Promise<string> {
  const hash = await sha256Hex(devApiKey);
  const now = new Date().toISOString();
  // Idempotent: the account is created once; each distinct DEV_API_KEY gets its own key row; the
  // password is set to DEV_PASSWORD on every start.
  return [
    `INSERT OR IGNORE INTO accounts (id, name, email, provider, plan, opening_credits, created_at)
       VALUES (${sqlString(DEV_ACCOUNT.id)}, ${sqlString(DEV_ACCOUNT.name)}, ${sqlString(DEV_ACCOUNT.email)}, 'local', 'free', ${DEV_ACCOUNT.credits}, ${sqlString(now)});`,
    `INSERT OR IGNORE INTO api_keys (id, account_id, name, prefix, hash, created_at)
       VALUES (${sqlString("key_dev_" + hash.slice(0, 16))}, ${sqlString(DEV_ACCOUNT.id)}, 'development', ${sqlString(displayPrefix(devApiKey))}, ${sqlString(hash)}, ${sqlString(now)});`,
    `INSERT INTO account_passwords (account_id, hash, updated_at)
       VALUES (${sqlString(DEV_ACCOUNT.id)}, ${sqlString(await hashPassword(devPassword))}, ${sqlString(now)})
       ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at;`,
  ].join("\n");
}

async function waitUntilServing(url: string, child: ReturnType<typeof spawn>): Promise<boolean> {
  for (let attempt = 0; attempt < 600 && child.exitCode === null; attempt++) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

const settings = loadDevSettings();
if (settings.createdDevVars) console.log(`Created ${DEV_VARS_FILE} with a new development API key, dashboard password and operator token.`);
if (settings.addedDevPassword) console.log(`Added a development dashboard password (DEV_PASSWORD) to ${DEV_VARS_FILE}.`);

const persist = settings.persistTo ? ["--persist-to", settings.persistTo] : [];
const applied = wrangler(["d1", "migrations", "apply", "DB", "--local", ...persist]);
const count = /About to apply (\d+) migration/.exec(applied)?.[1];
console.log(count ? `Applied ${count} local D1 ${count === "1" ? "migration" : "migrations"}.` : "Local D1 database is up to date.");
wrangler(["d1", "execute", "DB", "--local", ...persist, "--command", await seedSql(settings.devApiKey, settings.devPassword)]);
console.log(`Seeded the development account (${DEV_ACCOUNT.email}). Starting wrangler dev...`);

const vars = Object.entries(settings.worker).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
const dev = spawn("wrangler", ["dev", "--port", String(settings.port), "--ip", "127.0.0.1", ...persist, ...vars], {
  stdio: ["inherit", "inherit", "inherit"],
  env: wranglerEnv,
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));

const local = `http://localhost:${settings.port}`;
if (await waitUntilServing(`${local}/v1`, dev)) {
  console.log(`
Pixelgate is running at ${local}
  Development account: ${DEV_ACCOUNT.email} (plan free, ${DEV_ACCOUNT.credits} credits on first start)
  API key (from ${DEV_VARS_FILE}): ${settings.devApiKey}

Try it:
  curl -s ${local}/v1/me -H "Authorization: Bearer ${settings.devApiKey}"

  curl -s ${local}/v1/generate -H "Authorization: Bearer ${settings.devApiKey}" -H 'Content-Type: application/json' -d '{"prompt":"a red kite over the sea"}'

Endpoints: ${local}/v1   OpenAPI: ${local}/v1/openapi.json   MCP: ${local}/mcp
Dashboard: ${local}/dashboard
  sign in as ${DEV_ACCOUNT.email} with the password ${settings.devPassword} (DEV_PASSWORD in ${DEV_VARS_FILE})
CLI: PIXELGATE_URL=${local} PIXELGATE_API_KEY=${settings.devApiKey} npx pixelgate me
Operator API: Authorization: Bearer <ADMIN_TOKEN from ${DEV_VARS_FILE}>
`);
}
