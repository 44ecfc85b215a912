// `npm run deploy`: take Pixelgate to your own Cloudflare account. Needs `wrangler login` (or
// CLOUDFLARE_API_TOKEN). Safe to run again: it reuses what already exists.
//   1. creates the D1 database `pixelgate` (once) and writes its id into wrangler.toml
//   2. creates the R2 bucket `pixelgate-files` and the usage queue `pixelgate-usage` (once)
//   3. applies the D1 migrations remotely
//   4. sets the ADMIN_TOKEN secret (generated, printed once) and any provider or Stripe secrets in the env
//   5. deploys the worker
// `npm run deploy -- --dry-run` does none of that: it prints the model rows this configuration
// (wrangler.toml's [ai] binding, OPENAI_API_KEY, REPLICATE_API_TOKEN, MODERATION in the
// environment) would serve, and which it would not and why (scripts/served-models.ts).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { randomBase62 } from "../src/ids/random.ts";
import { deployConfiguration, describeServedModels, servedModels } from "./served-models.ts";

const DATABASE = "pixelgate";
const BUCKET = "pixelgate-files";
/** Carries usage-log entries from the account ledgers to D1 (wrangler.toml [[queues]]). */
const USAGE_QUEUE = "pixelgate-usage";
const CONFIG = "wrangler.toml";
const PLACEHOLDER_ID = "00000000-0000-0000-0000-000000000000";
const PROVIDER_SECRETS = ["OPENAI_API_KEY", "REPLICATE_API_TOKEN", "MODERATION_API_KEY", "STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "FILE_URL_SECRET"];

function wrangler(args: string[], input?: string): { ok: boolean; out: string } {
  const result = spawnSync("wrangler", args, {
    input,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  return { ok: result.status === 0, out: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

function must(args: string[], input?: string): string {
  const { ok, out } = wrangler(args, input);
  if (!ok) {
    console.error(out);
    console.error(`\nwrangler ${args.join(" ")} failed.`);
    process.exit(1);
  }
  return out;
}

function step(text: string): void {
  console.log(`\n> ${text}`);
}

if (process.argv.includes("--dry-run")) {
  console.log(describeServedModels(servedModels(deployConfiguration())));
  console.log("\nDry run: nothing was created, migrated or deployed.");
  process.exit(0);
}

step("Checking the Cloudflare login");
must(["whoami"]);

step(`D1 database "${DATABASE}"`);
let config = readFileSync(CONFIG, "utf8");
if (config.includes(PLACEHOLDER_ID)) {
  const listed = JSON.parse(must(["d1", "list", "--json"])) as Array<{ name: string; uuid: string }>;
  let id = listed.find((db) => db.name === DATABASE)?.uuid;
  if (!id) {
    const created = must(["d1", "create", DATABASE]);
    id = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(created)?.[0];
    if (!id) throw new Error(`could not read the new database id from:\n${created}`);
  }
  config = config.replace(PLACEHOLDER_ID, id);
  writeFileSync(CONFIG, config);
  console.log(`database_id = ${id} written to ${CONFIG} (commit it).`);
} else {
  console.log(`already configured in ${CONFIG}.`);
}

step(`R2 bucket "${BUCKET}"`);
const bucket = wrangler(["r2", "bucket", "create", BUCKET]);
if (!bucket.ok && !/already exists/i.test(bucket.out)) {
  console.error(bucket.out);
  process.exit(1);
}

step(`Queue "${USAGE_QUEUE}"`);
const queue = wrangler(["queues", "create", USAGE_QUEUE]);
if (!queue.ok && !/already (exists|taken)/i.test(queue.out)) {
  console.error(queue.out);
  process.exit(1);
}

step("Applying D1 migrations remotely");
must(["d1", "migrations", "apply", "DB", "--remote"], "y\n");

step("Secrets");
const existing = wrangler(["secret", "list", "--format", "json"]);
const secretNames = existing.ok ? (JSON.parse(existing.out) as Array<{ name: string }>).map((s) => s.name) : [];
if (!secretNames.includes("ADMIN_TOKEN")) {
  const token = process.env.ADMIN_TOKEN || `adm_${randomBase62(40)}`;
  must(["secret", "put", "ADMIN_TOKEN"], token);
  console.log(`ADMIN_TOKEN set. Keep it safe; it is shown only now:\n  ${token}`);
} else {
  console.log("ADMIN_TOKEN already set.");
}
for (const name of PROVIDER_SECRETS) {
  const value = process.env[name];
  if (value) {
    must(["secret", "put", name], value);
    console.log(`${name} set from the environment.`);
  }
}

step("Deploying the worker");
const vars = [
  "PUBLIC_BASE_URL", "DEFAULT_MODEL", "OPENAI_BASE_URL", "REPLICATE_BASE_URL", "UPSTREAM_TIMEOUT_MS",
  "MODERATION", "MODERATION_MODEL", "MODERATION_BASE_URL", "MODERATION_FAILURE", "GET_CREDITS_URL",
]
  .filter((name) => process.env[name])
  .flatMap((name) => ["--var", `${name}:${process.env[name]}`]);
console.log(must(["deploy", ...vars]));
console.log("Done. Create an account and a key with the operator API (docs/api.md, \"Operator API\").");
