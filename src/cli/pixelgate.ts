#!/usr/bin/env node
// The `pixelgate` CLI. package.json's "bin" is its compiled JavaScript (dist/cli, built by
// `npm run build:cli` on npm install), which runs on Node 20 and newer; Node 22.18+ also runs
// this TypeScript directly (npm run pixelgate, the tests), so everything under src/cli imports
// with `.ts` extensions and uses only erasable syntax.
import { ApiError, CLI_VERSION } from "./client.ts";
import type { CommandSpec } from "./command.ts";
import { createContext } from "./command.ts";
import { me, models, usage } from "./commands/account.ts";
import { batch } from "./commands/batch.ts";
import { mcp } from "./commands/mcp.ts";
import { compress, convert } from "./commands/codec-tools.ts";
import { edit, generate, removeBg, svg, transparent, upscale } from "./commands/tools.ts";
import { describeFailure, EXIT, exitCodeOf, UsageError } from "./exit-codes.ts";
import { commandHelp, mainHelp } from "./help.ts";
import { prepareOutputDirectory, saveTargetOf } from "./output-target.ts";

const COMMANDS: CommandSpec[] = [me, models, usage, generate, transparent, edit, removeBg, upscale, svg, compress, convert, batch, mcp];

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    process.stdout.write(mainHelp(COMMANDS));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version" || name === "-v") {
    process.stdout.write(`${CLI_VERSION}\n`);
    return EXIT.ok;
  }
  if (name === "help") {
    const topic = COMMANDS.find((command) => command.name === rest[0]);
    process.stdout.write(topic ? commandHelp(topic) : mainHelp(COMMANDS));
    return EXIT.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) throw new UsageError(`unknown command "${name}".`);
  const ctx = createContext(command, rest);
  if (ctx === "help") {
    process.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  // Before anything is sent (and charged): where the result goes must be writable.
  if (command.output === "file") ctx.saveTarget = await saveTargetOf(ctx.output, command.inlineResult === true && !ctx.json);
  if (ctx.output !== undefined && command.output === "dir") await prepareOutputDirectory(ctx.output);
  try {
    return await command.run(ctx);
  } catch (error) {
    // --json callers get the service's error envelope on stdout as well as the exit code.
    if (ctx.json && error instanceof ApiError && error.body) process.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
    throw error;
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${describeFailure(error)}\n`);
  process.exitCode = exitCodeOf(error);
}
