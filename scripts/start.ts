// `npm start`: apply local D1 migrations, seed the development account and key, then run the
// worker with `wrangler dev` and print how to call it. Offline; state lives in .wrangler/state.
import { spawn, spawnSync } from "node:child_process";
import { sha256Hex } from "../src/ids/sha256.ts";
import { displayPrefix } from "../src/ids/api-key.ts";
import { loadDevSettings, DEV_VARS_FILE } from "./dev-settings.ts";

const DEV_ACCOUNT = { id: "acct_dev", name: "Development account", email: "dev@localhost", credits: 1000 };
const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "true" };

function wrangler(args: string[]): void {
  const result = spawnSync("wrangler", args, { stdio: ["ignore", "inherit", "inherit"], env: wranglerEnv });
  if (result.status !== 0) {
    console.error(`wrangler ${args.join(" ")} failed (exit ${result.status ?? result.signal}).`);
    process.exit(1);
  }
}

function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

async function seedSql(devApiKey: string): Promise<string> {
  const hash = await sha256Hex(devApiKey);
  const now = new Date().toISOString();
  // Idempotent: the account is created once; each distinct DEV_API_KEY gets its own key row.
  return [
    `INSERT OR IGNORE INTO accounts (id, name, email, provider, plan, opening_credits, created_at)
       VALUES (${sqlString(DEV_ACCOUNT.id)}, ${sqlString(DEV_ACCOUNT.name)}, ${sqlString(DEV_ACCOUNT.email)}, 'local', 'free', ${DEV_ACCOUNT.credits}, ${sqlString(now)});`,
    `INSERT OR IGNORE INTO api_keys (id, account_id, name, prefix, hash, created_at)
       VALUES (${sqlString("key_dev_" + hash.slice(0, 16))}, ${sqlString(DEV_ACCOUNT.id)}, 'development', ${sqlString(displayPrefix(devApiKey))}, ${sqlString(hash)}, ${sqlString(now)});`,
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
if (settings.createdDevVars) console.log(`Created ${DEV_VARS_FILE} with a new development API key and operator token.`);

console.log("Applying local D1 migrations...");
wrangler(["d1", "migrations", "apply", "DB", "--local"]);
console.log("Seeding the development account...");
wrangler(["d1", "execute", "DB", "--local", "--command", await seedSql(settings.devApiKey)]);

const vars = Object.entries(settings.worker).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
const dev = spawn("wrangler", ["dev", "--port", String(settings.port), "--ip", "127.0.0.1", ...vars], {
  stdio: ["inherit", "inherit", "inherit"],
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
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
CLI: PIXELGATE_URL=${local} PIXELGATE_API_KEY=${settings.devApiKey} npx pixelgate me
Operator API: Authorization: Bearer <ADMIN_TOKEN from ${DEV_VARS_FILE}>
`);
}
