// The screen's vocabulary is data: term lists tagged with a category (enough on its own) or a
// concept (counts only together with another concept, see rules.ts). Writing context as data
// keeps "chicken breast" and "breast cancer" passing while "bare breasts" does not.

export const SAFETY_CATEGORIES = [
  "sexual_minors",
  "sexual",
  "extremism",
  "hate",
  "self_harm",
  "violence",
  "illegal",
] as const;

/**
 * What the screen refuses. The order above is the order of precedence when a prompt hits
 * several (content involving minors always wins over plain sexual content).
 */
export type SafetyCategory = (typeof SAFETY_CATEGORIES)[number];

/** Concepts: harmless alone, refused in the combinations rules.ts lists. */
export type Concept =
  | "minor" | "suggestive" | "exposure" | "intimate-part"
  | "violent-act" | "shoot" | "person" | "photography" | "blood" | "injury" | "cruelty" | "animal"
  | "group" | "copula" | "dehumanising" | "hostile-act" | "death-wish" | "hate-symbol"
  | "terror-group" | "propaganda" | "antiquity"
  | "self-cut" | "wrist"
  | "make" | "explosive" | "drug" | "drug-scene" | "prevention" | "forgery" | "document";

/** "safe" marks a harmless phrase: its words are consumed so no category or concept fires. */
export type Tag = SafetyCategory | Concept | "safe";

export interface TermList {
  tags: Tag[];
  /**
   * Comma- or newline-separated entries. An entry is words separated by spaces; a word may list
   * alternatives with "|" ("nude lipstick|palette"), end in "?" to be optional, or (single-word
   * entries) end in "*" to match any word it begins ("masturbat*").
   */
  entries: string;
}

export function terms(tags: Tag | Tag[], entries: string): TermList {
  return { tags: Array.isArray(tags) ? tags : [tags], entries };
}

/** Small, stable obfuscation for the few slurs the hate list needs, so the source does not spell them out. */
export function rot13(text: string): string {
  return text.replace(/[a-z]/g, (ch) => String.fromCharCode(((ch.charCodeAt(0) - 97 + 13) % 26) + 97));
}
