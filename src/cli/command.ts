import { parseArgs } from "node:util";
import { DEFAULT_URL, PixelgateClient, settingsFromEnv } from "./client.ts";
import { MissingKeyError, UsageError } from "./exit-codes.ts";
import type { SaveTarget } from "./output-target.ts";

// What a command is (its options, help and run function) and the context it runs in. Parsing is
// node:util's parseArgs in strict mode, so an unknown option is a usage error, not ignored.

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** Shown in help after the option name, e.g. "N" for --limit N. */
  value?: string;
  description: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** The line after "Usage:", e.g. "pixelgate generate PROMPT [options]". */
  usage: string;
  /** Extra paragraphs under the usage line. */
  details?: string;
  /** Positional names; a trailing "?" marks an optional one. */
  positionals: string[];
  options: Record<string, OptionSpec>;
  /** Whether -o, --json and --idempotency-key mean something for this command. */
  output: "file" | "dir" | "none";
  /** The result always comes inline (no hosted copy): without -o it is saved into the current folder. */
  inlineResult?: boolean;
  billed: boolean;
  examples: string[];
  run(ctx: CommandContext): Promise<number>;
}

export interface CommandContext {
  /** The command's name, which names the files it saves without -o. */
  command: string;
  args: Record<string, string>;
  values: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
  output: string | undefined;
  /** Where a single command's result is saved, checked before anything is sent (saveTargetOf). */
  saveTarget?: SaveTarget;
  idempotencyKey: string | undefined;
  /** Built on first use, so `--help` and usage errors need no key. */
  client(): PixelgateClient;
  /** Where the human summary goes: stdout, or stderr when stdout carries the image (-o -). */
  say(line: string): void;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  json: { type: "boolean", description: "Print the raw JSON response on stdout (errors too), for scripts." },
  help: { type: "boolean", short: "h", description: "Show help for the command." },
};

const OUTPUT_OPTIONS: Record<string, Record<string, OptionSpec>> = {
  file: { output: { type: "string", short: "o", value: "PATH", description: "Save the result to PATH, or into PATH if it is a directory (downloaded from the hosted URL, or decoded from the data URI; - for stdout)." } },
  dir: { output: { type: "string", short: "o", value: "DIR", description: "Save each successful item's result into DIR." } },
  none: {},
};

const IDEMPOTENCY_OPTION: Record<string, OptionSpec> = {
  "idempotency-key": { type: "string", value: "K", description: "Send Idempotency-Key: K; a retry with the same key and body replays the first answer at no charge." },
};

export function optionsOf(command: CommandSpec): Record<string, OptionSpec> {
  return { ...command.options, ...OUTPUT_OPTIONS[command.output], ...(command.billed ? IDEMPOTENCY_OPTION : {}), ...GLOBAL_OPTIONS };
}

export function parseCommandLine(command: CommandSpec, argv: string[]): { values: CommandContext["values"]; args: Record<string, string>; help: boolean } {
  const options = Object.fromEntries(
    Object.entries(optionsOf(command)).map(([name, spec]) => [
      name,
      { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command.name}: ${(error as Error).message}`);
  }
  const values = parsed.values as CommandContext["values"];
  if (values.help === true) return { values, args: {}, help: true };

  const required = command.positionals.filter((name) => !name.endsWith("?"));
  if (parsed.positionals.length < required.length) {
    throw new UsageError(`${command.name}: missing ${required.slice(parsed.positionals.length).join(" and ")} (usage: ${command.usage})`);
  }
  if (parsed.positionals.length > command.positionals.length) {
    throw new UsageError(`${command.name}: unexpected argument "${parsed.positionals[command.positionals.length]}" (quote a prompt that has spaces)`);
  }
  const args: Record<string, string> = {};
  command.positionals.forEach((name, index) => {
    const value = parsed.positionals[index];
    if (value !== undefined) args[name.replace(/\?$/, "")] = value;
  });
  return { values, args, help: false };
}

export function createContext(command: CommandSpec, argv: string[]): CommandContext | "help" {
  const { values, args, help } = parseCommandLine(command, argv);
  if (help) return "help";
  const output = typeof values.output === "string" ? values.output : undefined;
  const json = values.json === true;
  if (json && output === "-") throw new UsageError(`${command.name}: --json and -o - both write to stdout; pick one.`);
  let client: PixelgateClient | undefined;
  return {
    command: command.name,
    args,
    values,
    json,
    output,
    idempotencyKey: typeof values["idempotency-key"] === "string" ? values["idempotency-key"] : undefined,
    client() {
      client ??= new PixelgateClient(serviceSettings());
      return client;
    },
    say(line: string) {
      (output === "-" ? process.stderr : process.stdout).write(`${line}\n`);
    },
  };
}

/**
 * PIXELGATE_URL and PIXELGATE_API_KEY, checked before anything is sent: a URL that is not
 * http(s) is a usage error (2), a missing key an authentication one (3).
 */
export function serviceSettings(): { baseUrl: string; apiKey: string } {
  const settings = settingsFromEnv();
  let url: URL | undefined;
  try {
    url = new URL(settings.baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new UsageError(`PIXELGATE_URL must be an http(s) URL such as ${DEFAULT_URL}, got "${settings.baseUrl}".`);
  }
  if (!settings.apiKey) throw new MissingKeyError();
  return { baseUrl: settings.baseUrl, apiKey: settings.apiKey };
}

/** Option value helpers: a wrong type is a usage error naming the option. */
export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.values[name];
  return typeof value === "string" ? value : undefined;
}

export function integerOption(ctx: CommandContext, name: string, range?: { min: number; max: number }): number | undefined {
  const text = stringOption(ctx, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || (range && (value < range.min || value > range.max))) {
    throw new UsageError(`--${name} must be a whole number${range ? ` from ${range.min} to ${range.max}` : ""}, got "${text}".`);
  }
  return value;
}

export function choiceOption(ctx: CommandContext, name: string, choices: readonly string[]): string | undefined {
  const text = stringOption(ctx, name)?.toLowerCase();
  if (text !== undefined && !choices.includes(text)) throw new UsageError(`--${name} must be one of ${choices.join(", ")}, got "${text}".`);
  return text;
}
