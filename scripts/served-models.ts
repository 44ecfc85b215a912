// The model rows a configuration would serve: the migrations applied to an empty in-memory SQLite
// database (as D1 applies them), each row judged by the catalogue's own rules
// (src/models/catalog.ts: enabled, provider configured, not retired) under the given
// configuration and day. `npm run deploy -- --dry-run` prints it before anything is deployed.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { MODEL_TASKS, isRetired, toModel, type Model, type ModelRow } from "../src/models/model-row.ts";
import { moderationKind } from "../src/safety/moderation.ts";

export interface ServingConfiguration {
  /** An `[ai]` binding in wrangler.toml. */
  aiBinding: boolean;
  OPENAI_API_KEY?: string;
  REPLICATE_API_TOKEN?: string;
  MODERATION?: string;
}

export interface ServedModels {
  live: Model[];
  /** Rows that would not serve, each with why. */
  notLive: { model: Model; why: string }[];
  moderation: string;
}

const ROOT = path.join(import.meta.dirname, "..");

/** Every row the migrations seed, in task order, highest priority first. */
export function seededRows(): ModelRow[] {
  const db = new DatabaseSync(":memory:");
  const dir = path.join(ROOT, "migrations");
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".sql")).sort()) db.exec(readFileSync(path.join(dir, file), "utf8"));
  const rows = db.prepare("SELECT * FROM models ORDER BY priority DESC, model_id").all() as unknown as ModelRow[];
  db.close();
  return MODEL_TASKS.flatMap((task) => rows.filter((row) => row.task === task));
}

export function servedModels(config: ServingConfiguration, now = new Date()): ServedModels {
  const env = { AI: config.aiBinding ? {} : undefined, OPENAI_API_KEY: config.OPENAI_API_KEY, REPLICATE_API_TOKEN: config.REPLICATE_API_TOKEN };
  const models = seededRows().map((row) => toModel(env, row, now));
  const why = (model: Model): string => {
    if (!model.enabled) return "disabled";
    if (isRetired(model, now)) return `retired ${model.retiresAt}${model.replacedBy ? `, served by ${model.replacedBy}` : ""}`;
    return `needs ${{ local: "nothing", "workers-ai": "the AI binding", openai: "OPENAI_API_KEY", replicate: "REPLICATE_API_TOKEN" }[model.provider]}`;
  };
  return {
    live: models.filter((model) => model.isLive),
    notLive: models.filter((model) => !model.isLive).map((model) => ({ model, why: why(model) })),
    moderation: moderationKind({ AI: env.AI, MODERATION: config.MODERATION }),
  };
}

/** The configuration `npm run deploy` would deploy: wrangler.toml's [ai] binding and the environment. */
export function deployConfiguration(environment: NodeJS.ProcessEnv = process.env): ServingConfiguration {
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  return {
    aiBinding: /^\s*\[ai\]\s*$/m.test(toml),
    OPENAI_API_KEY: environment.OPENAI_API_KEY,
    REPLICATE_API_TOKEN: environment.REPLICATE_API_TOKEN,
    MODERATION: environment.MODERATION,
  };
}

/** The listing `--dry-run` prints. */
export function describeServedModels(served: ServedModels): string {
  const line = (model: Model) => `  ${model.task.padEnd(9)} ${model.modelId.padEnd(24)} ${model.provider.padEnd(10)} priority ${model.priority}`;
  return [
    `Rows this configuration serves (${served.live.length}), by task, highest priority first:`,
    ...served.live.map((model) => `${line(model)}${model.retiresAt ? `  (retires ${model.retiresAt}${model.replacedBy ? `, then served by ${model.replacedBy}` : ""})` : ""}`),
    `Rows it does not serve (${served.notLive.length}):`,
    ...served.notLive.map(({ model, why }) => `${line(model)}  (${why})`),
    `Second stage of the safety screen: ${served.moderation === "off" ? "off (the word list alone)" : served.moderation}`,
  ].join("\n");
}
