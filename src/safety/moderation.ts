import { settingsOf, type SettingStrings } from "../config/settings.ts";
import { PixelgateError } from "../errors.ts";
import { SAFETY_CATEGORIES, type SafetyCategory } from "./terms/types.ts";

// The second stage of the safety screen: a moderation model, asked only about text the word
// list let through (so it can add refusals, never clear one). On by default wherever it can run:
//   MODERATION unset        Llama Guard 3 when the AI binding is present (a deployment on
//                           Cloudflare with Workers AI), none without it (the offline local run).
//   MODERATION=llama-guard  Llama Guard 3 on the Workers AI binding (MODERATION_MODEL, default
//                           @cf/meta/llama-guard-3-8b), asked for JSON ({ safe, categories }).
//   MODERATION=openai       an OpenAI-compatible POST {MODERATION_BASE_URL}/moderations with
//                           MODERATION_API_KEY (both default to the OPENAI_ settings) and
//                           MODERATION_MODEL (default omni-moderation-latest).
//   MODERATION=off          the word list alone, on purpose.
//   MODERATION_FAILURE=closed (default) | open: what an unreachable or unreadable moderation
//                           model means. Closed refuses the call with 502 before any charge, so
//                           an operator who turned moderation on never serves unscreened text;
//                           open lets the word list's verdict stand and serves it.
// Categories outside what Pixelgate refuses (Llama Guard's defamation, specialised advice,
// privacy, intellectual property, elections, code-interpreter abuse; OpenAI's plain harassment)
// do not refuse: the policy is the same whichever stage answers.

export type ModerationVerdict = SafetyCategory | null;

/** What this module reads: the settings (src/config/settings.ts) and the AI binding; plain so Node scripts load it. */
export interface ModerationEnv extends SettingStrings {
  AI?: unknown;
}

/** Llama Guard 3's hazard codes (the MLCommons taxonomy) in our categories. */
const LLAMA_GUARD_CATEGORIES: Record<string, SafetyCategory> = {
  S1: "violence", // violent crimes
  S2: "illegal", // non-violent crimes
  S3: "sexual", // sex-related crimes
  S4: "sexual_minors", // child sexual exploitation
  S9: "illegal", // indiscriminate weapons
  S10: "hate",
  S11: "self_harm", // suicide and self-harm
  S12: "sexual", // sexual content
};

/** OpenAI's moderation categories in ours. */
const OPENAI_CATEGORIES: Record<string, SafetyCategory> = {
  "sexual/minors": "sexual_minors",
  sexual: "sexual",
  hate: "hate",
  "hate/threatening": "hate",
  "harassment/threatening": "violence",
  "self-harm": "self_harm",
  "self-harm/intent": "self_harm",
  "self-harm/instructions": "self_harm",
  violence: "violence",
  "violence/graphic": "violence",
  illicit: "illegal",
  "illicit/violent": "illegal",
};

const DEFAULT_LLAMA_GUARD = "@cf/meta/llama-guard-3-8b";
const DEFAULT_OPENAI_MODEL = "omni-moderation-latest";
const TIMEOUT_MS = 10_000;

type Classifier = (text: string, signal: AbortSignal) => Promise<ModerationVerdict>;

/** Which second stage runs: the configured one, else Llama Guard wherever the AI binding is. */
export function moderationKind(env: ModerationEnv): "llama-guard" | "openai" | "off" {
  return settingsOf(env).moderation.kind ?? (env.AI !== undefined ? "llama-guard" : "off");
}

/** The classifier of the second stage, or null when there is none. */
export function moderationOf(env: ModerationEnv): Classifier | null {
  switch (moderationKind(env)) {
    case "llama-guard":
      return (text, signal) => askLlamaGuard(env, text, signal);
    case "openai":
      return (text, signal) => askOpenAi(env, text, signal);
    case "off":
      return null;
  }
}

/** The most serious of the categories a model named (our order of precedence). */
export function mostSerious(categories: Iterable<SafetyCategory>): ModerationVerdict {
  const named = new Set(categories);
  return SAFETY_CATEGORIES.find((category) => named.has(category)) ?? null;
}

/** Llama Guard's answer in our categories: `{ safe, categories }`, or its plain-text form "unsafe\nS1,S10". */
export function llamaGuardVerdict(answer: unknown): ModerationVerdict {
  const response = (answer as { response?: unknown } | null)?.response;
  let safe: unknown;
  let codes: unknown;
  if (typeof response === "string") {
    const [first, second] = response.trim().split(/\s*\n\s*/);
    safe = first === "safe" ? true : first === "unsafe" ? false : undefined;
    codes = second?.split(/\s*,\s*/) ?? [];
  } else if (typeof response === "object" && response !== null) {
    ({ safe, categories: codes } = response as { safe?: unknown; categories?: unknown });
  }
  if (typeof safe !== "boolean") throw new Error("Llama Guard answered without a safe/unsafe verdict");
  if (safe) return null;
  const list = Array.isArray(codes) ? codes.map((code) => String(code).trim().toUpperCase()) : [];
  return mostSerious(list.flatMap((code) => LLAMA_GUARD_CATEGORIES[code] ?? []));
}

/** An OpenAI moderation object's first result in our categories. */
export function openAiVerdict(answer: unknown): ModerationVerdict {
  const result = (answer as { results?: { flagged?: unknown; categories?: Record<string, unknown> }[] } | null)?.results?.[0];
  if (typeof result?.flagged !== "boolean" || typeof result.categories !== "object" || result.categories === null) {
    throw new Error("the moderation endpoint answered without results[0].flagged and categories");
  }
  if (!result.flagged) return null;
  const flagged = Object.entries(result.categories).filter(([, on]) => on === true).map(([name]) => name);
  return mostSerious(flagged.flatMap((name) => OPENAI_CATEGORIES[name] ?? []));
}

async function askLlamaGuard(env: ModerationEnv, text: string, signal: AbortSignal): Promise<ModerationVerdict> {
  const ai = env.AI as unknown as { run(model: string, inputs: object): Promise<unknown> } | undefined;
  if (!ai) throw new Error("MODERATION=llama-guard needs the AI binding");
  const model = settingsOf(env).moderation.model ?? DEFAULT_LLAMA_GUARD;
  // The binding takes no AbortSignal: the race holds the deadline.
  const answer = await Promise.race([
    ai.run(model, { messages: [{ role: "user", content: text }], response_format: { type: "json_object" }, temperature: 0, max_tokens: 64 }),
    new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error(`${model} did not answer in time`)), { once: true })),
  ]);
  return llamaGuardVerdict(answer);
}

async function askOpenAi(env: ModerationEnv, text: string, signal: AbortSignal): Promise<ModerationVerdict> {
  const moderation = settingsOf(env).moderation;
  const base = (moderation.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  const key = moderation.apiKey;
  if (!key) throw new Error("MODERATION=openai needs MODERATION_API_KEY (or OPENAI_API_KEY)");
  const response = await fetch(`${base}/moderations`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ model: moderation.model ?? DEFAULT_OPENAI_MODEL, input: text }),
    signal,
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`the moderation endpoint answered HTTP ${response.status}`);
  }
  return openAiVerdict(await response.json());
}

/**
 * Each field's verdict, asked in parallel. A failure of the model throws 502 upstream_error
 * (before any charge) when MODERATION_FAILURE is closed, and counts as "nothing found" when open.
 */
export async function moderateFields(env: ModerationEnv, fields: { param: string; text: string }[]): Promise<{ param: string; category: SafetyCategory } | null> {
  const classify = moderationOf(env);
  if (!classify || fields.length === 0) return null;
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  let verdicts: ModerationVerdict[];
  try {
    verdicts = await Promise.all(fields.map(({ text }) => classify(text, signal)));
  } catch (error) {
    if (settingsOf(env).moderation.failsOpen) return null;
    const reason = error instanceof Error ? error.message : String(error);
    throw new PixelgateError("upstream_error", `The moderation model could not screen the request (${reason.slice(0, 200)}); nothing was charged. Retry shortly.`);
  }
  const index = verdicts.findIndex((verdict) => verdict !== null);
  return index < 0 ? null : { param: fields[index]!.param, category: verdicts[index]! };
}
