import type { TagPositions } from "./lexicon.ts";
import { SAFETY_CATEGORIES, type Concept, type SafetyCategory } from "./terms/types.ts";

// Concepts that are harmless alone and refused together. Distances count words; `ordered`
// means `first` comes before `second` ("stabbing a man", not "a man stabbing vegetables"
// reversed into a victim); `between` requires a third concept in between ("X are vermin");
// `unless` stands the rule down when that concept is anywhere in the prompt.

interface Combination {
  category: SafetyCategory;
  first: Concept;
  second: Concept;
  within: number;
  ordered: boolean;
  between?: Concept;
  unless?: Concept;
}

const COMBINATIONS: Combination[] = [
  { category: "sexual", first: "exposure", second: "intimate-part", within: 2, ordered: false },
  { category: "violence", first: "violent-act", second: "person", within: 4, ordered: true },
  { category: "violence", first: "shoot", second: "person", within: 3, ordered: true, unless: "photography" },
  { category: "violence", first: "blood", second: "injury", within: 3, ordered: false },
  { category: "violence", first: "cruelty", second: "animal", within: 3, ordered: true },
  { category: "hate", first: "group", second: "dehumanising", within: 4, ordered: true, between: "copula" },
  { category: "hate", first: "hostile-act", second: "group", within: 3, ordered: true },
  { category: "hate", first: "violent-act", second: "group", within: 3, ordered: true },
  { category: "hate", first: "group", second: "death-wish", within: 4, ordered: true },
  { category: "hate", first: "hate-symbol", second: "propaganda", within: 5, ordered: false },
  { category: "extremism", first: "terror-group", second: "propaganda", within: 6, ordered: false, unless: "antiquity" },
  { category: "self_harm", first: "self-cut", second: "wrist", within: 3, ordered: false },
  { category: "illegal", first: "make", second: "explosive", within: 5, ordered: false },
  { category: "illegal", first: "drug", second: "drug-scene", within: 4, ordered: false, unless: "prevention" },
  { category: "illegal", first: "forgery", second: "document", within: 3, ordered: true },
];

function combines(rule: Combination, found: TagPositions): boolean {
  const firsts = found.get(rule.first);
  const seconds = found.get(rule.second);
  if (!firsts || !seconds) return false;
  if (rule.unless && found.has(rule.unless)) return false;
  const betweens = rule.between ? (found.get(rule.between) ?? []) : undefined;
  for (const a of firsts) {
    for (const b of seconds) {
      const distance = rule.ordered ? b - a : Math.abs(b - a);
      if (distance <= 0 || distance > rule.within) continue;
      if (!betweens || betweens.some((c) => c > Math.min(a, b) && c < Math.max(a, b))) return true;
    }
  }
  return false;
}

/** The categories the tagged prompt falls in, in order of precedence (most serious first). */
export function categoriesOf(found: TagPositions): SafetyCategory[] {
  const hits = new Set<SafetyCategory>();
  for (const category of SAFETY_CATEGORIES) if (found.has(category)) hits.add(category);
  for (const rule of COMBINATIONS) if (!hits.has(rule.category) && combines(rule, found)) hits.add(rule.category);
  // A minor term beside anything sexual or suggestive: the most serious refusal of all.
  if (found.has("minor") && (hits.has("sexual") || found.has("suggestive"))) hits.add("sexual_minors");
  return SAFETY_CATEGORIES.filter((category) => hits.has(category));
}
