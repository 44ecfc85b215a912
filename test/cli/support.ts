// Helpers for the Node-side CLI tests: accounts and keys through the operator API of the server
// the globalSetup started, the CLI run as a child process, and small PNG files built and read
// with node:zlib (the worker's codecs are workerd modules, not importable here).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { inject } from "vitest";

export const CLI = path.resolve(import.meta.dirname, "../../src/cli/pixelgate.ts");
export const baseUrl = (): string => inject("pixelgateUrl");

async function admin(route: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl()}/admin/v1${route}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${inject("adminToken")}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`POST /admin/v1${route} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A fresh account with `credits` and one key; every test file gets its own balance and rate window. */
export async function newKey(name: string, credits: number): Promise<string> {
  const created = await admin("/accounts", { name, email: `${name.replace(/\W+/g, "-").toLowerCase()}-${crypto.randomUUID()}@example.com`, credits });
  const id = (created.account as { id: string }).id;
  return (await admin(`/accounts/${id}/keys`, { name: "cli tests" })).secret as string;
}

export async function getJson<T>(route: string, key: string): Promise<T> {
  const response = await fetch(`${baseUrl()}${route}`, { headers: { Authorization: `Bearer ${key}` } });
  if (!response.ok) throw new Error(`GET ${route} answered ${response.status}`);
  return (await response.json()) as T;
}

export async function balanceOf(key: string): Promise<number> {
  return (await getJson<{ user: { credits: number } }>("/v1/me", key)).user.credits;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  /** stdout as bytes, for -o - */
  stdoutBytes: Buffer;
  stderr: string;
}

export interface CliOptions {
  key?: string;
  stdin?: Buffer | string;
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Runs the CLI under `ulimit -f 0`: every write into a regular file fails (EFBIG), as on a
   * full disk, while pipes (stdout, stderr) and creating empty files still work.
   */
  noFileSpace?: boolean;
  /** The Node binary and the bin to run (default: this Node and the TypeScript bin). */
  node?: string;
  bin?: string;
}

/** Runs `node src/cli/pixelgate.ts ...args` with PIXELGATE_URL and the key, like a user's shell. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, PIXELGATE_URL: baseUrl(), ...options.env };
  if (options.key === undefined) delete env.PIXELGATE_API_KEY;
  else env.PIXELGATE_API_KEY = options.key;
  const command = [options.node ?? process.execPath, options.bin ?? CLI, ...args];
  const [file, ...argv] = options.noFileSpace ? ["/bin/sh", "-c", 'ulimit -f 0 && exec "$@"', "sh", ...command] : command;
  return new Promise((resolve, reject) => {
    // A folder of its own by default: without -o the CLI saves inline results into the current folder.
    const child = spawn(file!, argv, { cwd: options.cwd ?? scratchFolder(), env, stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, stdout: stdoutBytes.toString("utf8"), stdoutBytes, stderr: Buffer.concat(err).toString("utf8") });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

export function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), "pixelgate-cli-"));
}

let scratch: string | undefined;

/** The working folder of CLI runs that name none (one per test file), never the repository. */
function scratchFolder(): string {
  scratch ??= tempDir();
  return scratch;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from a PNG's IHDR, after checking the signature; throws for anything else. */
export function pngSize(bytes: Buffer): { width: number; height: number; colorType: number } {
  if (!bytes.subarray(0, 8).equals(PNG_MAGIC)) throw new Error(`not a PNG: starts with ${bytes.subarray(0, 8).toString("hex")}`);
  if (bytes.subarray(12, 16).toString("latin1") !== "IHDR") throw new Error("PNG without IHDR first");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), colorType: bytes[25]! };
}

/** Whether a PNG can hold transparency: an alpha channel, or a palette/key with a tRNS chunk. */
export function pngHasAlpha(bytes: Buffer): boolean {
  const { colorType } = pngSize(bytes);
  if (colorType === 4 || colorType === 6) return true;
  for (let at = 8; at + 8 <= bytes.length; at += 12 + bytes.readUInt32BE(at)) {
    const type = bytes.subarray(at + 4, at + 8).toString("latin1");
    if (type === "tRNS") return true;
    if (type === "IDAT") return false;
  }
  return false;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * An RGBA PNG: a dark red disc on a flat light-blue background, the kind of picture the local
 * cut-out model can separate (a background connected to the border).
 */
export function testPng(width: number, height: number): Buffer {
  const rows: Buffer[] = [];
  const [cx, cy, r] = [width / 2, height / 2, Math.min(width, height) / 3];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 4);
    for (let x = 0; x < width; x++) {
      const inside = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 < r * r;
      row.set(inside ? [150, 20, 30, 255] : [200, 225, 250, 255], 1 + x * 4);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([PNG_MAGIC, chunk("IHDR", ihdr), chunk("IDAT", deflateSync(Buffer.concat(rows))), chunk("IEND", Buffer.alloc(0))]);
}
