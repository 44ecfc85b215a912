// Settings for local runs, read in this order: the environment first, then
// .dev.vars, then the development defaults. A missing .dev.vars is created with a fresh
// development key and operator token, so a new clone needs no setup.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { passwordProblem } from "../src/auth/password-hash.ts";
import { generateApiKey, isWellFormedApiKey } from "../src/ids/api-key.ts";
import { randomBase62 } from "../src/ids/random.ts";

export const DEV_VARS_FILE = ".dev.vars";

/** Names passed to the worker. PORT, PERSIST_TO, DEV_API_KEY and DEV_PASSWORD are for the start script only. */
export const WORKER_SETTINGS = [
  "ADMIN_TOKEN",
  "PUBLIC_BASE_URL",
  "DEFAULT_MODEL",
  "UPSTREAM_TIMEOUT_MS",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "REPLICATE_BASE_URL",
  "REPLICATE_API_TOKEN",
] as const;

export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith("#")) continue;
    vars[match[1]!] = match[2]!.replace(/^(["'])(.*)\1$/, "$2");
  }
  return vars;
}

/** The development account's dashboard password: random per clone, long enough for the sign-in rules. */
function newDevPassword(): string {
  return `dev-${randomBase62(16)}`;
}

function createDevVars(): void {
  writeFileSync(
    DEV_VARS_FILE,
    [
      "# Local development settings (not committed). Environment variables override these.",
      `DEV_API_KEY=${generateApiKey()}`,
      `ADMIN_TOKEN=adm_${randomBase62(32)}`,
      `DEV_PASSWORD=${newDevPassword()}`,
      "",
    ].join("\n"),
  );
}

export interface DevSettings {
  port: number;
  /** Where wrangler keeps local state (D1, R2, Durable Objects): PERSIST_TO, or wrangler's .wrangler/state. */
  persistTo?: string;
  devApiKey: string;
  /** The development account's dashboard password (DEV_PASSWORD). */
  devPassword: string;
  /** What to pass to the worker as --var (environment values that override .dev.vars). */
  worker: Record<string, string>;
  adminToken: string;
  baseUrl: string;
  createdDevVars: boolean;
  /** DEV_PASSWORD was missing (a .dev.vars from before it) and was added to the file now. */
  addedDevPassword: boolean;
}

export function loadDevSettings(env: NodeJS.ProcessEnv = process.env): DevSettings {
  // Settings given whole in the environment need no file (a test's own server).
  const fromEnvironment = Boolean(env.DEV_API_KEY && env.DEV_PASSWORD);
  const createdDevVars = !existsSync(DEV_VARS_FILE) && !fromEnvironment;
  if (createdDevVars) createDevVars();
  let file = existsSync(DEV_VARS_FILE) ? parseDevVars(readFileSync(DEV_VARS_FILE, "utf8")) : {};
  const addedDevPassword = !env.DEV_PASSWORD && !file.DEV_PASSWORD;
  if (addedDevPassword) {
    appendFileSync(DEV_VARS_FILE, `${readFileSync(DEV_VARS_FILE, "utf8").endsWith("\n") ? "" : "\n"}DEV_PASSWORD=${newDevPassword()}\n`);
    file = parseDevVars(readFileSync(DEV_VARS_FILE, "utf8"));
  }
  const pick = (name: string) => env[name] || file[name] || "";

  const port = Number(pick("PORT") || 8787);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`PORT must be a port number, got ${pick("PORT")}`);
  const devApiKey = pick("DEV_API_KEY");
  if (!isWellFormedApiKey(devApiKey)) {
    throw new Error(`DEV_API_KEY is missing or not a valid Pixelgate key (pg_ + 38 characters with a checksum). Delete ${DEV_VARS_FILE} to get a fresh one.`);
  }
  const worker: Record<string, string> = {};
  for (const name of WORKER_SETTINGS) {
    if (env[name]) worker[name] = env[name]!;
  }
  const baseUrl = pick("PUBLIC_BASE_URL") || `http://localhost:${port}`;
  worker.PUBLIC_BASE_URL = baseUrl;
  const devPassword = pick("DEV_PASSWORD");
  const passwordIssue = passwordProblem(devPassword, "");
  if (passwordIssue) throw new Error(`DEV_PASSWORD: ${passwordIssue}`);
  return { port, persistTo: pick("PERSIST_TO") || undefined, devApiKey, devPassword, worker, adminToken: pick("ADMIN_TOKEN"), baseUrl, createdDevVars, addedDevPassword };
}
