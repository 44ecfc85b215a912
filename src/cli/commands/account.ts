import type { CommandSpec } from "../command.ts";
import { integerOption } from "../command.ts";
import { withProgress } from "../progress.ts";
import { printJson, table } from "../summary.ts";

// The free, read-only commands: the account, the model list and the usage log.

export const me: CommandSpec = {
  name: "me",
  summary: "Show the account behind the key: name, email, plan and credit balance (free).",
  usage: "pixelgate me [--json]",
  positionals: [],
  options: {},
  output: "none",
  billed: false,
  examples: ["pixelgate me", "pixelgate me --json | jq .user.credits"],
  async run(ctx) {
    const body = await withProgress("Reading the account", () => ctx.client().me());
    if (ctx.json) return printJson(body);
    const { user } = body;
    ctx.say(`${user.name} <${user.email}>  id ${user.id}`);
    ctx.say(`Plan ${user.plan}, ${user.credits} credits.`);
    return 0;
  },
};

export const models: CommandSpec = {
  name: "models",
  summary: "List the live image models with their cost per call (free).",
  usage: "pixelgate models [--json]",
  positionals: [],
  options: {},
  output: "none",
  billed: false,
  examples: ["pixelgate models", "pixelgate models --json | jq -r '.models[].modelId'"],
  async run(ctx) {
    const body = await withProgress("Listing models", () => ctx.client().models());
    if (ctx.json) return printJson(body);
    ctx.say(table(["MODEL", "PROVIDER", "CREDITS", "NAME"], body.models.map((m) => [m.modelId, m.provider, String(m.costPerReq), m.name])));
    ctx.say(`${body.count} live model${body.count === 1 ? "" : "s"}.`);
    return 0;
  },
};

export const usage: CommandSpec = {
  name: "usage",
  summary: "Show the newest usage-log entries: REST, MCP and CLI calls alike (free).",
  usage: "pixelgate usage [--limit N] [--json]",
  positionals: [],
  options: { limit: { type: "string", value: "N", description: "How many entries, 1 to 100 (default 20)." } },
  output: "none",
  billed: false,
  examples: ["pixelgate usage", "pixelgate usage --limit 5", "pixelgate usage --limit 100 --json | jq '[.logs[].creditsDeducted] | add'"],
  async run(ctx) {
    const limit = integerOption(ctx, "limit", { min: 1, max: 100 });
    const body = await withProgress("Reading the usage log", () => ctx.client().usage(limit));
    if (ctx.json) return printJson(body);
    const rows = body.logs.map((entry) => [
      entry.createdAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
      entry.tool,
      entry.source,
      entry.status,
      entry.creditsRefunded ? `${entry.creditsDeducted} (-${entry.creditsRefunded} refunded)` : String(entry.creditsDeducted),
      entry.latency,
      entry.model,
      entry.prompt.length > 40 ? `${entry.prompt.slice(0, 39)}…` : entry.prompt,
    ]);
    ctx.say(table(["TIME", "TOOL", "SOURCE", "STATUS", "CREDITS", "LATENCY", "MODEL", "PROMPT"], rows));
    ctx.say(`${body.count} entr${body.count === 1 ? "y" : "ies"}.`);
    return 0;
  },
};
