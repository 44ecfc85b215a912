import { constants } from "node:fs";
import { access, mkdir, open, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "./exit-codes.ts";

// -o is checked before anything is sent, so a call is never charged for a result that then has
// nowhere to go: the directory must exist (for -o DIR of a batch: it is created) and a file must
// be creatable there, which is tried for real (a probe file, removed at once), because
// permission bits alone say little when running as root or on read-only mounts.

function reasonOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

async function probeDirectory(dir: string, option: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (!info) throw new UsageError(`${option}: the directory ${dir} does not exist. Nothing was sent.`);
  if (!info.isDirectory()) throw new UsageError(`${option}: ${dir} is not a directory. Nothing was sent.`);
  const probe = path.join(dir, `.pixelgate-write-test-${process.pid}-${Date.now()}`);
  try {
    await (await open(probe, "wx")).close();
    await unlink(probe);
  } catch (error) {
    throw new UsageError(`${option}: cannot create files in ${dir} (${reasonOf(error)}). Nothing was sent.`);
  }
}

/** -o FILE: its directory takes new files, and an existing FILE can be overwritten. */
export async function checkOutputFile(target: string): Promise<void> {
  if (target === "-") return;
  const option = `-o ${target}`;
  await probeDirectory(path.dirname(path.resolve(target)), option);
  // Without an extension the file gets one from the result (logo -> logo.png), unknown yet.
  if (path.extname(target) === "") return;
  const info = await stat(target).catch(() => null);
  if (!info) return;
  if (info.isDirectory()) throw new UsageError(`${option} is a directory; give a file name (or use the command's directory option). Nothing was sent.`);
  await access(target, constants.W_OK).catch((error: unknown) => {
    throw new UsageError(`${option}: the file cannot be overwritten (${reasonOf(error)}). Nothing was sent.`);
  });
}

/** -o DIR: created when missing, then checked to take new files. */
export async function prepareOutputDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw new UsageError(`-o ${dir}: cannot create the directory (${reasonOf(error)}). Nothing was sent.`);
  });
  await probeDirectory(path.resolve(dir), `-o ${dir}`);
}
