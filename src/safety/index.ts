import { PixelgateError } from "../errors.ts";
import { compileLexicon } from "./lexicon.ts";
import { categoriesOf } from "./rules.ts";
import { EXTREMISM_TERMS } from "./terms/extremism.ts";
import { HATE_TERMS } from "./terms/hate.ts";
import { ILLEGAL_TERMS } from "./terms/illegal.ts";
import { MINOR_TERMS } from "./terms/minors.ts";
import { moderateFields, type ModerationEnv } from "./moderation.ts";
import { SELF_HARM_TERMS } from "./terms/self-harm.ts";
import { SEXUAL_TERMS } from "./terms/sexual.ts";
import type { SafetyCategory } from "./terms/types.ts";
import { VIOLENCE_TERMS } from "./terms/violence.ts";
import { promptWords } from "./tokenize.ts";

// The prompt screen: runs on every text field of a billed call before any credit is reserved.
// Its first stage is local, synchronous and pure: English word lists with context rules. What
// that cannot read (other languages, paraphrase, meaning without keywords) is left to the
// optional moderation model (moderation.ts), which sees only what passed and may only add refusals.
// Imports carry ".ts" so `npm run eval:safety` can load this module in plain Node.

export { SAFETY_CATEGORIES, type SafetyCategory } from "./terms/types.ts";

export interface SafetyVerdict {
  category: SafetyCategory;
  /** Short, human text; never echoes the offending words. */
  reason: string;
}

const REASONS: Record<SafetyCategory, string> = {
  sexual_minors: "sexual or suggestive content involving minors",
  sexual: "sexual content or nudity",
  extremism: "terrorist or violent extremist propaganda",
  hate: "hateful or dehumanising content about a group of people",
  self_harm: "self-harm or suicide",
  violence: "graphic violence, gore or harm to a person or animal",
  illegal: "instructions or imagery for weapons, explosives, hard drugs or forged documents",
};

// Compiled once per isolate (at module load), never per request.
const LEXICON = compileLexicon([
  ...SEXUAL_TERMS,
  ...MINOR_TERMS,
  ...VIOLENCE_TERMS,
  ...HATE_TERMS,
  ...SELF_HARM_TERMS,
  ...EXTREMISM_TERMS,
  ...ILLEGAL_TERMS,
]);

/** The most serious category the text falls in, or null when it passes. */
export function screenText(text: string): SafetyVerdict | null {
  const [category] = categoriesOf(LEXICON.tag(promptWords(text, LEXICON)));
  return category ? { category, reason: REASONS[category] } : null;
}

export type ScreenedField = { param: string; text: string | undefined };

/**
 * Screens several request fields at once (prompt, style, instruction...) with the word list. The
 * first refused field throws 400 content_policy_violation with `isNsfw`, `reason` and `category`,
 * which the envelope puts at the top level of the body, and `param` naming the field.
 */
export function assertSafeText(fields: ScreenedField[]): void {
  for (const { param, text } of fields) {
    if (!text) continue;
    const verdict = screenText(text);
    if (verdict) throw refusal(param, verdict.category);
  }
}

/**
 * Both stages, before any credit is reserved: the word list answers first and free; only what
 * it passed goes to the moderation model when one is configured (moderation.ts), whose refusal
 * is the same 400 with its category mapped to ours.
 */
export async function screenRequest(env: ModerationEnv, fields: ScreenedField[]): Promise<void> {
  assertSafeText(fields);
  const refused = await moderateFields(env, fields.flatMap(({ param, text }) => (text ? [{ param, text }] : [])));
  if (refused) throw refusal(refused.param, refused.category);
}

function refusal(param: string, category: SafetyCategory): PixelgateError {
  const reason = REASONS[category];
  return new PixelgateError("content_policy_violation", `Content detected in ${param}: ${reason}. Rewrite the request without it.`, {
    param,
    details: { isNsfw: true, reason, category },
  });
}
