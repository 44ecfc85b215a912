import { foldCharacters, LEET, leetReadings } from "./fold.ts";
import type { Lexicon } from "./lexicon.ts";

// Prompt text -> the words the screen matches on. Matching is by whole word, so "Scunthorpe",
// "cocktail" and "Essex" never contain a hit; the work is in undoing the tricks that split or
// disguise a word: "n.u.d.e" and "nu-de" (punctuation inside a word), "n u d e" (spaced
// letters), "n4k3d" and "$ex" (leetspeak), "nuuude" (stretched letters, see lexicon.ts).
// It runs before every billed model call, so it is one pass over the text with no regular
// expressions per word.

/** A number under 18 ("a 12 year old"): written as one word so phrase patterns can name it. */
export const YOUNG_NUMBER = "#young";
/** "12yo", "15y". */
export const YOUNG_AGE = "#young-yo";

const MAX_SPACED_WORD = 20;
const MIN_SPACED_WORD = 3;
const AGE_WITH_UNIT = /^(\d{1,2})(?:yo|y|yrs?)$/;

// Character kinds (plain numbers: Node's type stripping runs this file, and enums are not erasable).
const SPACE = 0, LETTER = 1, DIGIT = 2, LEET_SYMBOL = 3, APOSTROPHE = 4, OTHER = 5;

function kindOf(code: number): number {
  if (code >= 97 && code <= 122) return LETTER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 32 || (code >= 9 && code <= 13) || code === 0xa0) return SPACE;
  if (code === 64 || code === 36 || code === 33 || code === 124) return LEET_SYMBOL; // @ $ ! |
  if (code === 39) return APOSTROPHE;
  return OTHER;
}

/** The words of a prompt as the lexicon knows them; unknown words keep their spelling. */
export function promptWords(text: string, lexicon: Lexicon): string[] {
  const folded = foldCharacters(text);
  const words: string[] = [];
  // The letter a one-character word stands for ("n", or "3" read as "e"), for "n u d 3".
  const letters: (string | undefined)[] = [];
  let pieces: string[] = [];
  let leetish: boolean[] = [];
  let hasLetter = false;
  let pieceStart = -1;
  let pieceLeet = false;
  let carried = "";
  // One pass; a sentinel space at the end closes the last chunk.
  for (let i = 0; i <= folded.length; i += 1) {
    const kind = i === folded.length ? SPACE : kindOf(folded.charCodeAt(i));
    if (kind === LETTER || kind === DIGIT || kind === LEET_SYMBOL) {
      if (kind === LETTER) hasLetter = true;
      else pieceLeet = true;
      if (pieceStart < 0) pieceStart = i;
      continue;
    }
    if (kind === APOSTROPHE) {
      // "kid's" -> kids: the piece goes on after the apostrophe.
      if (pieceStart >= 0) carried += folded.slice(pieceStart, i);
      pieceStart = -1;
      continue;
    }
    // Punctuation ends a piece; a space also ends the chunk of pieces.
    const piece = pieceStart >= 0 ? carried + folded.slice(pieceStart, i) : carried;
    if (piece) {
      pieces.push(piece);
      leetish.push(pieceLeet);
    }
    pieceStart = -1;
    pieceLeet = false;
    carried = "";
    if (kind === SPACE && pieces.length > 0) {
      addChunk(pieces, leetish, hasLetter, lexicon, words, letters);
      // New arrays rather than `length = 0`, which is a slow path in V8.
      pieces = [];
      leetish = [];
      hasLetter = false;
    }
  }
  return joinSpacedLetters(words, letters, lexicon);
}

function addChunk(rawPieces: string[], leetish: boolean[], hasLetter: boolean, lexicon: Lexicon, words: string[], letters: (string | undefined)[]): void {
  let pieces = rawPieces;
  if (leetish.includes(true)) {
    // "!" and "|" at a piece's edge are punctuation ("nude!"); "@" and "$" count only beside letters.
    pieces = rawPieces
      .map((piece) => piece.replace(/^[!|]+|[!|]+$/g, ""))
      .map((piece) => (hasLetter ? piece : piece.replace(/[@$]/g, "")))
      .filter((piece) => piece.length > 0);
  }
  if (pieces.length > 1) {
    // "n.u.d.e", "nu-de", "self-harm": the joined spelling wins when it is a known word.
    const known = knownReading(pieces.join(""), lexicon, true);
    if (known) {
      words.push(known);
      letters.push(undefined);
      return;
    }
  }
  for (let k = 0; k < pieces.length; k += 1) {
    const piece = pieces[k]!;
    words.push(readPiece(piece, pieces === rawPieces ? leetish[k]! : true, lexicon));
    letters.push(piece.length === 1 ? (LEET[piece] ?? piece) : undefined);
  }
}

function knownReading(spelling: string, lexicon: Lexicon, leetish: boolean): string | undefined {
  const known = lexicon.known(spelling);
  if (known || !leetish) return known;
  for (const reading of leetReadings(spelling)) {
    const word = lexicon.known(reading);
    if (word) return word;
  }
  return undefined;
}

function readPiece(piece: string, leetish: boolean, lexicon: Lexicon): string {
  if (!leetish) return lexicon.known(piece) ?? singular(piece, lexicon) ?? piece;
  const first = piece.charCodeAt(0);
  if (first >= 48 && first <= 57) {
    if (piece.length <= 2 && /^\d+$/.test(piece)) {
      const value = Number(piece);
      return value >= 1 && value < 18 ? YOUNG_NUMBER : piece;
    }
    const age = AGE_WITH_UNIT.exec(piece);
    if (age && Number(age[1]) >= 1 && Number(age[1]) < 18) return YOUNG_AGE;
  }
  return knownReading(piece, lexicon, true) ?? piece;
}

/** Plurals and possessives the lists do not spell out ("the unabomber's" -> unabombers -> unabomber). */
function singular(word: string, lexicon: Lexicon): string | undefined {
  if (word.length < 4 || word.charCodeAt(word.length - 1) !== 115 /* s */) return undefined;
  const stem = lexicon.known(word.slice(0, -1));
  // Only whole-word entries: a prefix entry would already have matched the plural.
  return stem && !stem.endsWith("*") ? stem : undefined;
}

/** Runs of one-character words ("a n u d e woman") are searched for a known word, longest first. */
function joinSpacedLetters(words: string[], letters: (string | undefined)[], lexicon: Lexicon): string[] {
  let out: string[] | undefined;
  for (let i = 0; i < words.length; ) {
    const found = spacedWordAt(letters, i, lexicon);
    // "a n a k e d": "ana" starts first, but "naked" from the next letter reaches further.
    const next = found ? spacedWordAt(letters, i + 1, lexicon) : undefined;
    if (!found || (next && next.end > found.end)) {
      out?.push(words[i]!);
      i += 1;
      continue;
    }
    out ??= words.slice(0, i);
    out.push(found.word);
    i = found.end;
  }
  return out ?? words;
}

function spacedWordAt(letters: (string | undefined)[], start: number, lexicon: Lexicon): { word: string; end: number } | undefined {
  if (letters[start] === undefined || letters[start + 1] === undefined || letters[start + 2] === undefined) return undefined;
  let spelled = "";
  let best: { word: string; end: number } | undefined;
  for (let end = start; end < letters.length && end - start < MAX_SPACED_WORD; end += 1) {
    const letter = letters[end];
    if (letter === undefined) break;
    spelled += letter;
    const word = spelled.length >= MIN_SPACED_WORD ? lexicon.known(spelled) : undefined;
    if (word) best = { word, end: end + 1 };
    if (!lexicon.beginsWord(spelled) && !word?.endsWith("*")) break;
  }
  return best;
}
