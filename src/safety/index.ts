import { PixelgateError } from "../errors.ts";
import { compileLexicon } from "./lexicon.ts";
import { categoriesOf } from "./rules.ts";
import { EXTREMISM_TERMS } from "./terms/extremism.ts";
import { HATE_TERMS } from "./terms/hate.ts";
import { ILLEGAL_TERMS } from "./terms/illegal.ts";
import { MINOR_TERMS } from "./terms/minors.ts";
import { SELF_HARM_TERMS } from "./terms/self-harm.ts";
import { SEXUAL_TERMS } from "./terms/sexual.ts";
import type { SafetyCategory } from "./terms/types.ts";
import { VIOLENCE_TERMS } from "./terms/violence.ts";
import { promptWords } from "./tokenize.ts";

// The prompt screen (spec 7, decisions "Errors"): runs on every text field of a billed call
// before any credit is reserved, so it is local, synchronous and pure. English word lists with
// context rules; what it cannot read (other languages, meaning without keywords) is left to
// the optional moderation model below, which may only add refusals.
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

/**
 * Screens several request fields at once (prompt, style, instruction...). The first refused
 * field throws 400 content_policy_violation with `isNsfw`, `reason` and `category`, which the
 * envelope puts at the top level of the body, and `param` naming the field.
 */
export function assertSafeText(fields: { param: string; text: string | undefined }[]): void {
  for (const { param, text } of fields) {
    if (!text) continue;
    const verdict = screenText(text);
    if (!verdict) continue;
    throw new PixelgateError("content_policy_violation", `Content detected in ${param}: ${verdict.reason}. Rewrite the request without it.`, {
      param,
      details: { isNsfw: true, reason: verdict.reason, category: verdict.category },
    });
  }
}

/**
 * Extension point, not built: a moderation model (e.g. a Workers AI text classifier, used when
 * the `AI` binding exists) that may ADD a refusal after the local screen passed, never clear
 * one. A caller would run `assertSafeText` first, then await the hook for each field and throw
 * the same error shape for a verdict it returns. It is async and costs a model call, which is
 * why the local screen stays the synchronous default.
 */
export type ModerationHook = (text: string) => Promise<SafetyVerdict | null>;
