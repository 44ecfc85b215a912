import { DEFAULT_URL } from "./client.ts";
import { optionsOf, type CommandSpec } from "./command.ts";
import { EXIT_CODE_HELP } from "./exit-codes.ts";

// `pixelgate --help` and `pixelgate <command> --help`.

const ENVIRONMENT = `Environment:
  PIXELGATE_API_KEY   your key (pg_...); required for every command
  PIXELGATE_URL       the service, default ${DEFAULT_URL}
  PIXELGATE_SAVE_DIR  pixelgate mcp only: where to save results (same as --save-dir)`;

export function mainHelp(commands: CommandSpec[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return `pixelgate: the Pixelgate image API from the command line, and a stdio MCP server.

Usage: pixelgate <command> [arguments] [options]

Commands:
${commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n")}

Options for every command:
  --json        print the raw JSON response on stdout (errors too), for scripts
  -h, --help    help for the command: pixelgate <command> --help
Image commands also take -o PATH (save the result) and --idempotency-key K.
Images are file paths, https URLs, data URIs, or - for stdin. A progress spinner shows on
stderr when it is a terminal; stdout only carries results.

${ENVIRONMENT}

${EXIT_CODE_HELP}

Examples:
  export PIXELGATE_API_KEY=pg_...
  pixelgate me
  pixelgate generate "a red hot-air balloon over green hills" -o balloon.png
  pixelgate upscale balloon.png --scale 2x -o balloon@2x.png
  pixelgate svg "a green leaf" -o leaf.svg
  pixelgate usage --limit 5
`;
}

function optionLine(name: string, spec: ReturnType<typeof optionsOf>[string]): [string, string] {
  const flag = `${spec.short ? `-${spec.short}, ` : "    "}--${name}${spec.value ? ` ${spec.value}` : ""}`;
  return [flag, spec.description];
}

export function commandHelp(command: CommandSpec): string {
  const lines = Object.entries(optionsOf(command)).map(([name, spec]) => optionLine(name, spec));
  const width = Math.max(...lines.map(([flag]) => flag.length));
  return `${command.summary}

Usage: ${command.usage}
${command.details ? `\n${command.details}\n` : ""}
Options:
${lines.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`).join("\n")}

Examples:
${command.examples.map((example) => `  ${example}`).join("\n")}

${ENVIRONMENT}

${EXIT_CODE_HELP}
`;
}
