// A Pixelgate worker of its own for `npm run stress` and `npm run bench:batch`: `wrangler dev` on
// a free loopback port with its own state directory, migrated, its upstream providers pointed at
// the fake upstream (test/upstream) over plain loopback HTTP, and extra model rows inserted.
//
// The worker runs a bundle built once at start (`wrangler deploy --dry-run`, served with
// --no-bundle), not src/ itself: others edit src/ in this working tree, and wrangler dev would
// reload on every save and drop the requests in flight, which a ledger proof cannot tell from a
// lost charge.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { fakeDirectBaseUrls, FAKE_OPENAI_KEY, FAKE_REPLICATE_TOKEN } from "../../test/upstream/scenarios.ts";
import { ChildGroup, childEnv, cleanups, freePort, REPO_ROOT, runCommand, waitUntilServing } from "../bench/processes.ts";

export interface ModelRow {
  modelId: string;
  provider: "local" | "openai" | "replicate";
  upstreamModel: string;
  task: "image" | "remove_bg" | "upscale" | "svg";
  /** null: the service's default price (15). */
  costPerReq: number | null;
}

export interface WorkerOptions {
  /** Names the state directory and the child in messages. */
  label: string;
  /** The fake upstream's origin, e.g. "http://127.0.0.1:41234". */
  upstreamOrigin: string;
  upstreamTimeoutMs: number;
  /** HOLD_MARGIN_MS: short, so a crash's interrupted calls settle within seconds of a restart. */
  holdMarginMs?: number;
  adminToken: string;
  models: ModelRow[];
  /** More vars (the fake Stripe's settings). */
  extraVars?: Record<string, string>;
  log: (line: string) => void;
}

export interface StressWorker {
  baseUrl: string;
  /** The running wrangler dev; a new one after each restart. */
  group: ChildGroup;
  /** Kills the whole process group at once (SIGKILL), as a crash would; the state directory stays. */
  crash(): Promise<void>;
  /** Starts wrangler dev again on the same port and the same state, and waits until it serves. */
  restart(): Promise<void>;
  /** Rows of a read-only query on the worker's local D1 (run after the worker stopped). */
  query<Row>(sql: string): Promise<Row[]>;
  stop(): Promise<void>;
}

const CONFIG = "wrangler.toml";
const STEP_TIMEOUT_MS = 180_000;

/** Wrangler's children must not reach out either: no telemetry, no Request.cf download. */
function offlineEnv(): NodeJS.ProcessEnv {
  return childEnv({ CI: "true", CLOUDFLARE_CF_FETCH_ENABLED: "false" });
}

const sqlText = (value: string) => `'${value.replace(/'/g, "''")}'`;

/**
 * Seeded rows of upstream providers are switched off: with the fake configured they would become
 * live under their real names, and a name the fake does not know answers an https output URL the
 * worker would try to download from the network. Scripts name their models explicitly.
 */
function modelsSql(models: ModelRow[]): string {
  const rows = models.map((m) =>
    `(${[m.modelId, `Stress ${m.modelId}`, "inserted by a load script", m.provider, m.upstreamModel, m.task].map(sqlText).join(", ")}, ${m.costPerReq ?? "NULL"}, -100)`,
  );
  return [
    "UPDATE models SET enabled = 0 WHERE provider <> 'local';",
    rows.length > 0
      ? `INSERT INTO models (model_id, name, description, provider, upstream_model, task, cost_per_req, priority) VALUES ${rows.join(", ")};`
      : "",
  ].join(" ");
}

function capture(args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("wrangler", args, { cwd: REPO_ROOT, env: offlineEnv(), timeout: timeoutMs, maxBuffer: 512 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed: ${error.message}\n${stderr.slice(-2000)}`));
      else resolve(stdout);
    });
  });
}

export async function startWorker(options: WorkerOptions): Promise<StressWorker> {
  const { label, log } = options;
  mkdirSync(path.join(REPO_ROOT, ".wrangler"), { recursive: true });
  const dir = mkdtempSync(path.join(REPO_ROOT, ".wrangler", `${label}-`));
  cleanups.add(() => rmSync(dir, { recursive: true, force: true }));
  const [bundle, persistTo] = [path.join(dir, "bundle"), path.join(dir, "state")];
  const wrangler = (what: string, args: string[]) => runCommand(what, "wrangler", args, STEP_TIMEOUT_MS, offlineEnv());

  log("building a snapshot of the worker (wrangler deploy --dry-run)");
  await wrangler("wrangler deploy --dry-run", ["deploy", "--dry-run", "--config", CONFIG, "--outdir", bundle]);
  log("applying D1 migrations and inserting the scripts' model rows");
  await wrangler("wrangler d1 migrations apply", ["d1", "migrations", "apply", "DB", "--local", "--config", CONFIG, "--persist-to", persistTo]);
  await wrangler("wrangler d1 execute (models)", ["d1", "execute", "DB", "--local", "--config", CONFIG, "--persist-to", persistTo, "--command", modelsSql(options.models)]);

  const [port, inspectorPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const upstream = fakeDirectBaseUrls(options.upstreamOrigin);
  const vars: Record<string, string> = {
    ADMIN_TOKEN: options.adminToken,
    PUBLIC_BASE_URL: baseUrl,
    UPSTREAM_TIMEOUT_MS: String(options.upstreamTimeoutMs),
    // A call whose worker died is settled (refunded, logged as interrupted) this long after its limit.
    HOLD_MARGIN_MS: String(options.holdMarginMs ?? 2_000),
    OPENAI_BASE_URL: upstream.OPENAI_BASE_URL,
    OPENAI_API_KEY: FAKE_OPENAI_KEY,
    REPLICATE_BASE_URL: upstream.REPLICATE_BASE_URL,
    REPLICATE_API_TOKEN: FAKE_REPLICATE_TOKEN,
    ...options.extraVars,
  };
  const launch = async (): Promise<ChildGroup> => {
    log(`starting wrangler dev on ${baseUrl}`);
    const group = new ChildGroup(`wrangler dev (${label})`, "wrangler", [
      "dev", "--config", CONFIG, "--no-bundle", path.join(bundle, "index.js"), "--persist-to", persistTo,
      "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ], offlineEnv());
    if (!(await waitUntilServing(`${baseUrl}/v1`, group, STEP_TIMEOUT_MS))) {
      await group.stop();
      throw new Error(`the worker did not start:\n${group.tail()}`);
    }
    return group;
  };
  const worker: StressWorker = {
    baseUrl,
    group: await launch(),
    stop: () => worker.group.stop(),
    crash: () => worker.group.kill(),
    async restart() {
      worker.group = await launch();
    },
    async query<Row>(sql: string): Promise<Row[]> {
      const out = await capture(["d1", "execute", "DB", "--local", "--config", CONFIG, "--persist-to", persistTo, "--json", "--command", sql], STEP_TIMEOUT_MS);
      const parsed = JSON.parse(out) as Array<{ results: Row[] }>;
      return parsed.flatMap((statement) => statement.results);
    },
  };
  return worker;
}
