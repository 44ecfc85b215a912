// Child processes for the benchmark. Every child we start leads its own process group
// (detached), so stopping it also stops what it spawned (node -> wrangler -> workerd) and never
// touches processes someone else started, e.g. a vitest run in the same directory.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Whether the wrangler dev servers we start collect local traces. Wrangler 4 attaches a trace
 * collector to every local worker by default and writes each invocation (every request, every
 * Durable Object call) to a SQLite store under .wrangler/state; production has no such cost in
 * the request path, so it is off unless the caller sets X_LOCAL_OBSERVABILITY themselves.
 */
export const LOCAL_TRACING = process.env.X_LOCAL_OBSERVABILITY ?? "false";

/** Environment for every child: this repo's wrangler first on PATH, no telemetry, tracing as above. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const bin = path.join(REPO_ROOT, "node_modules", ".bin");
  return {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`,
    WRANGLER_SEND_METRICS: "false",
    X_LOCAL_OBSERVABILITY: LOCAL_TRACING,
    ...extra,
  };
}

/** A loopback port nobody listens on right now (the OS picks it; we release it at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const TAIL_LINES = 60;

/** A child process group whose output is kept (last lines only) to explain a failure. */
export class ChildGroup {
  readonly label: string;
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly keepLines: number;
  private stopping: Promise<void> | undefined;
  readonly exited: Promise<number | null>;

  /** `keepLines`: how much of the output to keep (the tail; more when a caller reads it all). */
  constructor(label: string, command: string, args: string[], env: NodeJS.ProcessEnv, keepLines = TAIL_LINES) {
    this.keepLines = keepLines;
    // After stopAll (Ctrl-C, watchdog) nothing new may start: it would outlive this script.
    if (ChildGroup.closed) throw new Error(`not starting ${label}: shutting down`);
    this.label = label;
    this.child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
    // Output must be read or the child blocks on a full pipe; only the tail is worth keeping.
    for (const stream of [this.child.stdout, this.child.stderr]) stream?.on("data", (chunk: Buffer) => this.keep(chunk));
    this.child.on("error", (err) => this.keep(Buffer.from(`spawn failed: ${err.message}\n`)));
    ChildGroup.live.add(this);
  }

  /** Every group still to be stopped, so an error or Ctrl-C can clean up. */
  static readonly live = new Set<ChildGroup>();
  private static closed = false;

  /** The group id (the child's pid, since it leads its group). */
  get pgid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined;
  }

  tail(): string {
    return this.lines.map((line) => `  | ${line}`).join("\n");
  }

  /** The kept output lines (blank lines left out). */
  output(): readonly string[] {
    return this.lines;
  }

  /** SIGTERM to the whole group (wrangler then shuts workerd down), SIGKILL what is left after `graceMs`. */
  stop(graceMs = 8_000): Promise<void> {
    this.stopping ??= this.stopGroup(graceMs).finally(() => ChildGroup.live.delete(this));
    return this.stopping;
  }

  /**
   * A crash, not a shutdown: SIGKILL to the whole group at once (wrangler, workerd and anything
   * they started), so nothing gets to finish a request, flush or save. State already on disk stays.
   */
  async kill(): Promise<void> {
    const pgid = this.child.pid;
    if (pgid === undefined) return;
    signalGroup(pgid, "SIGKILL");
    while (groupAlive(pgid)) await sleep(50);
    await Promise.race([this.exited, sleep(2_000)]);
    ChildGroup.live.delete(this);
  }

  /** Stops every group and refuses new ones; for the end of the run. */
  static async stopAll(): Promise<void> {
    ChildGroup.closed = true;
    await Promise.all([...ChildGroup.live].map((group) => group.stop()));
  }

  private async stopGroup(graceMs: number): Promise<void> {
    const pgid = this.child.pid;
    if (pgid === undefined) return;
    signalGroup(pgid, "SIGTERM");
    const deadline = Date.now() + graceMs;
    while (groupAlive(pgid) && Date.now() < deadline) await sleep(100);
    if (groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
    await Promise.race([this.exited, sleep(2_000)]);
  }

  /**
   * How often wrangler dev rebuilt the worker because a source file changed (someone editing
   * src/ while the bench runs): each rebuild disturbs the figures around it.
   */
  reloads = 0;

  private keep(chunk: Buffer): void {
    for (const line of chunk.toString("utf8").split(/\r?\n/)) {
      if (line.trim() === "") continue;
      if (line.includes("Reloading local server")) this.reloads++;
      this.lines.push(line);
      if (this.lines.length > this.keepLines) this.lines.shift();
    }
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs a command to completion (bounded by `timeoutMs`); throws with its output when it fails. */
export async function runCommand(label: string, command: string, args: string[], timeoutMs: number, env = childEnv()): Promise<void> {
  const group = new ChildGroup(label, command, args, env);
  const code = await Promise.race([group.exited, sleep(timeoutMs).then(() => "timeout" as const)]);
  await group.stop();
  if (code !== 0) throw new Error(`${label} ${code === "timeout" ? `timed out after ${timeoutMs} ms` : `failed (exit ${code})`}:\n${group.tail()}`);
}

/** Polls `url` until it answers 2xx, the child exits, or `timeoutMs` passes. */
export async function waitUntilServing(url: string, group: ChildGroup, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && group.running) {
    if (await answers(url, 2_000)) return true;
    await sleep(250);
  }
  return false;
}

/** True when GET `url` answers 2xx within `timeoutMs`. */
async function answers(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Synchronous clean-ups (temporary directories) that must also run when the script is interrupted. */
export const cleanups = new Set<() => void>();

export function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // best effort: the run is ending anyway
    }
  }
  cleanups.clear();
}

/**
 * Runs a script's `main` to its exit code with the clean-up every long-running script needs:
 * child process groups stopped and temporary directories removed on success, failure, Ctrl-C
 * and when the watchdog fires (a hung run must never outlive its bound).
 */
export function runScript(main: () => Promise<number>, options: { watchdogMs: number; watchdogMessage: string }): void {
  let finishing = false;
  const finish = async (code: number, why?: string): Promise<never> => {
    if (!finishing) {
      finishing = true;
      if (why) console.error(why);
      await ChildGroup.stopAll();
      runCleanups();
    }
    process.exit(code);
  };
  setTimeout(() => void finish(2, options.watchdogMessage), options.watchdogMs).unref();
  process.on("SIGINT", () => void finish(130, "interrupted"));
  process.on("SIGTERM", () => void finish(143, "terminated"));
  main().then(
    (code) => finish(code),
    (error: unknown) => finish(1, `BROKEN ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  );
}

export interface LocalWorker {
  group: ChildGroup;
  baseUrl: string;
}

/**
 * Applies the D1 migrations to `persistTo` (unless `migrate` is false: a worker without D1) and
 * serves `config` with `wrangler dev` on free loopback ports, with `vars` passed as --var;
 * resolves once `readyPath` answers 2xx.
 */
export async function startLocalWorker(options: {
  label: string;
  config: string;
  persistTo: string;
  readyPath: string;
  migrate?: boolean;
  vars?: (baseUrl: string) => Record<string, string>;
}): Promise<LocalWorker> {
  const { config, persistTo } = options;
  if (options.migrate !== false) {
    // CI=true: apply without the interactive confirmation.
    await runCommand("wrangler d1 migrations apply", "wrangler",
      ["d1", "migrations", "apply", "DB", "--local", "--config", config, "--persist-to", persistTo], 120_000, childEnv({ CI: "true" }));
  }
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const vars = Object.entries(options.vars?.(baseUrl) ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const group = new ChildGroup(`wrangler dev (${options.label})`, "wrangler", [
    "dev", "--config", config, "--persist-to", persistTo, "--ip", "127.0.0.1", "--port", String(port),
    "--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false", ...vars,
  ], childEnv());
  if (!(await waitUntilServing(`${baseUrl}${options.readyPath}`, group, 120_000))) {
    await group.stop();
    throw new Error(`The ${options.label} worker did not start on port ${port}. Its last output:\n${group.tail()}`);
  }
  return { group, baseUrl };
}
