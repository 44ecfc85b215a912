import { constants } from "node:fs";
import { access, mkdir, open, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "./exit-codes.ts";

// Where a result will be saved is checked before anything is sent, so a call is never charged
// for a result that then has nowhere to go: the directory must exist (for -o DIR of a batch: it
// is created) and a file must be creatable there, which is tried for real (a probe file, removed
// at once), because permission bits alone say little when running as root or on read-only mounts.

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

/**
 * Where a single command's result goes: `-o -` stdout, `-o DIR` (an existing directory, or a
 * path ending in a separator) a generated name inside it, `-o FILE` that file; without -o, a
 * generated name in the current folder when the result comes inline (it has no hosted copy),
 * else nowhere (the summary prints the hosted URL).
 */
export type SaveTarget = { kind: "stdout" } | { kind: "file"; path: string } | { kind: "dir"; dir: string; generated: boolean };

export async function saveTargetOf(output: string | undefined, inlineResult: boolean): Promise<SaveTarget | undefined> {
  if (output === undefined) {
    if (!inlineResult) return undefined;
    const cwd = process.cwd();
    await probeDirectory(cwd, "without -o (an inline result is saved into the current folder; give -o PATH to save it elsewhere)");
    return { kind: "dir", dir: cwd, generated: true };
  }
  if (output === "-") return { kind: "stdout" };
  const option = `-o ${output}`;
  const info = await stat(output).catch(() => null);
  if (info?.isDirectory() || /[\\/]$/.test(output)) {
    await probeDirectory(path.resolve(output), option);
    return { kind: "dir", dir: path.resolve(output), generated: false };
  }
  await probeDirectory(path.dirname(path.resolve(output)), option);
  // An existing file is replaced (by renaming a finished copy over it), so it must be writable.
  if (info) {
    await access(output, constants.W_OK).catch((error: unknown) => {
      throw new UsageError(`${option}: the file cannot be overwritten (${reasonOf(error)}). Nothing was sent.`);
    });
  }
  return { kind: "file", path: output };
}

/** -o DIR (or the stdio server's --save-dir DIR): created when missing, then checked to take new files. */
export async function prepareOutputDirectory(dir: string, option = `-o ${dir}`): Promise<void> {
  await mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw new UsageError(`${option}: cannot create the directory (${reasonOf(error)}). Nothing was sent.`);
  });
  await probeDirectory(path.resolve(dir), option);
}
