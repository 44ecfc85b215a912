// Character folding for the prompt screen: the tricks that make a word look different to a
// matcher while a person (and an image model's text encoder) still reads the same word.
// Order matters: NFKC first (fullwidth, mathematical and circled letters become ASCII), then
// accents and invisible characters go, then look-alikes from other scripts map to Latin.

/** Cyrillic and Greek letters that render like Latin ones (after lower-casing). */
const LOOK_ALIKES: Record<string, string> = {
  а: "a", в: "b", д: "d", е: "e", к: "k", м: "m", н: "h", о: "o", р: "p", с: "c", т: "t", у: "y",
  х: "x", ш: "w", ь: "b", з: "3",
  і: "i", ї: "i", ј: "j", ѕ: "s", ԁ: "d", һ: "h", ԛ: "q", ԝ: "w", ү: "y", ӏ: "l", ɡ: "g", ɑ: "a",
  α: "a", β: "b", γ: "y", δ: "d", ε: "e", ζ: "z", η: "n", θ: "o", ι: "i", κ: "k", λ: "l", μ: "u",
  ν: "v", ο: "o", π: "n", ρ: "p", σ: "o", ς: "s", τ: "t", υ: "u", φ: "f", χ: "x", ω: "w",
  テ: "t", ս: "u", օ: "o", ո: "n", հ: "h", ց: "g", ք: "p", ɩ: "i", ɪ: "i", ʀ: "r", ᴅ: "d", ᴇ: "e", ɴ: "n", ᴜ: "u",
  ı: "i", ł: "l", ø: "o", đ: "d", ħ: "h", ŧ: "t", ß: "ss", æ: "ae", œ: "oe", ð: "d", þ: "p",
  "‘": "'", "’": "'", "ʼ": "'", "`": "'", "´": "'",
};

/** Leetspeak digits and symbols, read as letters only inside a word that has letters. */
export const LEET: Record<string, string> = {
  "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
  "@": "a", $: "s", "!": "i", "|": "l",
};

/** Characters that can be either of two letters; the second reading is tried too. */
const LEET_SECOND: Record<string, string> = { "1": "l", "!": "l", "|": "i" };

// Combining marks (accents, variation selectors) and format characters (zero-width space,
// joiners, soft hyphen, word joiner, BOM, bidi controls): invisible, so removed outright.
const INVISIBLE = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const HAS_NON_ASCII = /[^\x00-\x7f]/;

/** Lower-cased ASCII-ish text with look-alikes folded; word structure is left intact. */
export function foldCharacters(text: string): string {
  // Plain ASCII (most prompts) has nothing to fold but case.
  if (!HAS_NON_ASCII.test(text)) return text.toLowerCase();
  const decomposed = text.normalize("NFKC").toLowerCase().normalize("NFD");
  // One pass that copies ASCII runs as slices and looks at each other character once
  // (a global Unicode-property replace over the whole prompt costs several times more).
  let folded = "";
  let runStart = 0;
  for (let i = 0; i < decomposed.length; i += 1) {
    if (decomposed.charCodeAt(i) < 0x80) continue;
    const ch = decomposed[i]!;
    const replacement = INVISIBLE.test(ch) ? "" : (LOOK_ALIKES[ch] ?? ch);
    if (replacement === ch) continue;
    folded += decomposed.slice(runStart, i) + replacement;
    runStart = i + 1;
  }
  return runStart === 0 ? decomposed : folded + decomposed.slice(runStart);
}

/** Both leetspeak readings of a piece, or none when it has no leet characters. */
export function leetReadings(piece: string): string[] {
  let first = "";
  let second = "";
  let leet = false;
  let ambiguous = false;
  for (const ch of piece) {
    const letter = LEET[ch];
    if (letter === undefined) {
      first += ch;
      second += ch;
      continue;
    }
    leet = true;
    first += letter;
    const other = LEET_SECOND[ch];
    if (other) ambiguous = true;
    second += other ?? letter;
  }
  if (!leet) return [];
  return ambiguous ? [first, second] : [first];
}

/** A word with runs of one letter squeezed to one, and the run lengths ("nuuude" -> nude, [1,3,1,1]). */
export function squeeze(word: string): { key: string; runs: number[] } {
  let key = "";
  const runs: number[] = [];
  for (const ch of word) {
    if (key.length > 0 && key[key.length - 1] === ch) runs[runs.length - 1]! += 1;
    else {
      key += ch;
      runs.push(1);
    }
  }
  return { key, runs };
}
