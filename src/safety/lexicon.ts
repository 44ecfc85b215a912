import { squeeze } from "./fold.ts";
import type { Tag, TermList } from "./terms/types.ts";

// The compiled vocabulary: which spellings are known words (so the tokenizer can pick the
// reading of "n00d3" or "nuuude" that means something), and the phrase patterns, indexed by
// their first word and tried longest first, so "nude lipstick" (safe) beats "nude".

// Prefix entries ("porn*") are found by their first three letters, packed into one number so
// the lookup for every word of a prompt allocates no string.
const PREFIX_KEY_LENGTH = 3;

function prefixKey(word: string): number {
  return (word.charCodeAt(0) << 16) | (word.charCodeAt(1) << 8) | word.charCodeAt(2);
}

function hasDoubledLetter(word: string): boolean {
  for (let i = 1; i < word.length; i += 1) if (word.charCodeAt(i) === word.charCodeAt(i - 1)) return true;
  return false;
}

interface Pattern {
  words: ReadonlySet<string>[];
  tags: Tag[];
}

interface Stretchable {
  word: string;
  runs: number[];
}

/** Where each tag was found: token positions, in order. */
export type TagPositions = Map<Tag, number[]>;

export interface Lexicon {
  /** The known word a spelling stands for (exact, stretched "nuuude", or a prefix entry), if any. */
  known(form: string): string | undefined;
  /** Whether some known word begins with these letters (bounds the search for "n u d e"). */
  beginsWord(letters: string): boolean;
  /** Tags the token stream: longest phrase first at each position; a phrase's words are consumed. */
  tag(words: readonly string[]): TagPositions;
}

/** "a b|c d?" -> every concrete sequence of alternative sets, with optional words left out. */
function expandEntry(entry: string): string[][][] {
  let sequences: string[][][] = [[]];
  for (const raw of entry.split(/\s+/)) {
    const optional = raw.endsWith("?");
    const alternatives = raw.replace(/\?$/, "").replaceAll("'", "").split("|");
    const withWord = sequences.map((sequence) => [...sequence, alternatives]);
    sequences = optional ? [...sequences, ...withWord] : withWord;
  }
  return sequences.filter((sequence) => sequence.length > 0);
}

export function compileLexicon(lists: readonly TermList[]): Lexicon {
  const byText = new Map<string, Pattern>();
  for (const list of lists) {
    for (const entry of list.entries.split(/[,\n]/)) {
      const trimmed = entry.trim().toLowerCase();
      if (!trimmed) continue;
      for (const sequence of expandEntry(trimmed)) {
        const key = sequence.map((alternatives) => alternatives.join("|")).join(" ");
        const existing = byText.get(key);
        if (existing) existing.tags = [...new Set([...existing.tags, ...list.tags])];
        else byText.set(key, { words: sequence.map((alternatives) => new Set(alternatives)), tags: [...list.tags] });
      }
    }
  }

  const exact = new Set<string>();
  const beginnings = new Set<string>();
  const stretchable = new Map<string, Stretchable[]>();
  const prefixes = new Map<number, string[]>();
  const byFirstWord = new Map<string, Pattern[]>();
  for (const pattern of byText.values()) {
    for (const alternatives of pattern.words) {
      for (const word of alternatives) {
        for (let end = 1; end <= word.length; end += 1) beginnings.add(word.slice(0, end).replace("*", ""));
        if (word.endsWith("*")) {
          const stem = word.slice(0, -1);
          const list = prefixes.get(prefixKey(stem)) ?? [];
          list.push(word);
          prefixes.set(prefixKey(stem), list);
          continue;
        }
        if (exact.has(word)) continue;
        exact.add(word);
        const { key, runs } = squeeze(word);
        stretchable.set(key, [...(stretchable.get(key) ?? []), { word, runs }]);
      }
    }
    for (const first of pattern.words[0]!) byFirstWord.set(first, [...(byFirstWord.get(first) ?? []), pattern]);
  }
  for (const list of byFirstWord.values()) list.sort((a, b) => b.words.length - a.words.length);

  // A stretched spelling matches a word when every run of a letter is at least as long as the
  // word's ("nuuude" -> nude, "booobs" -> boobs) but never shorter ("bob" is not "boob").
  function stretchedWord(key: string, runs: number[]): string | undefined {
    for (const candidate of stretchable.get(key) ?? []) {
      if (candidate.runs.every((run, i) => runs[i]! >= run)) return candidate.word;
    }
    return undefined;
  }

  function prefixWord(form: string): string | undefined {
    if (form.length < PREFIX_KEY_LENGTH) return undefined;
    const entries = prefixes.get(prefixKey(form));
    if (!entries) return undefined;
    for (const entry of entries) if (form.startsWith(entry.slice(0, -1))) return entry;
    return undefined;
  }

  /** Stretched letters or a prefix entry ("masturbat*"); the squeezed spelling tries both. */
  function inexactWord(form: string): string | undefined {
    const prefixed = prefixWord(form);
    if (prefixed || !hasDoubledLetter(form)) return prefixed;
    const { key, runs } = squeeze(form);
    return stretchedWord(key, runs) ?? prefixWord(key);
  }

  return {
    known(form) {
      return exact.has(form) ? form : inexactWord(form);
    },
    beginsWord(letters) {
      return beginnings.has(letters);
    },
    tag(words) {
      const found: TagPositions = new Map();
      for (let i = 0; i < words.length; ) {
        const pattern = byFirstWord.get(words[i]!)?.find((candidate) => matchesAt(candidate, words, i));
        if (!pattern) {
          i += 1;
          continue;
        }
        for (const tag of pattern.tags) {
          const positions = found.get(tag);
          if (positions) positions.push(i);
          else found.set(tag, [i]);
        }
        i += pattern.words.length;
      }
      return found;
    },
  };
}

function matchesAt(pattern: Pattern, words: readonly string[], start: number): boolean {
  if (start + pattern.words.length > words.length) return false;
  return pattern.words.every((alternatives, k) => alternatives.has(words[start + k]!));
}
