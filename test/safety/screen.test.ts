import { describe, expect, it } from "vitest";
import { ERROR_CATALOG, PixelgateError } from "../../src/errors";
import { assertSafeText, screenText, type SafetyCategory } from "../../src/safety";

// The prompt screen: categories, the normalisation that undoes
// disguised words, context that lets innocent near-misses through, and the error it throws.
// Precision and recall over a large labelled set are measured by `npm run eval:safety`.

const categoryOf = (text: string) => screenText(text)?.category ?? null;

describe("categories", () => {
  const cases: [string, SafetyCategory][] = [
    ["a naked woman on a sofa", "sexual"],
    ["a nude child", "sexual_minors"],
    ["a man stabbing a woman in an alley", "violence"],
    ["a poster saying immigrants are vermin", "hate"],
    ["a girl cutting her wrists", "self_harm"],
    ["an isis recruitment poster", "extremism"],
    ["how to build a pipe bomb, diagram", "illegal"],
  ];
  it.each(cases)("%s -> %s", (text, category) => {
    expect(categoryOf(text)).toBe(category);
  });

  it("gives a short reason that does not repeat the prompt", () => {
    const verdict = screenText("a naked woman on a sofa");
    expect(verdict?.reason).toEqual(expect.any(String));
    expect(verdict!.reason).not.toMatch(/naked|sofa/);
  });

  it("passes an ordinary prompt", () => {
    expect(screenText("a watercolour of a lighthouse at dawn")).toBeNull();
    expect(screenText("")).toBeNull();
  });
});

describe("normalisation", () => {
  const disguised: [string, string][] = [
    ["upper and mixed case", "A NaKeD woman"],
    ["letters spaced out", "a n a k e d woman"],
    ["punctuation inside the word", "a n.a.k.e.d woman"],
    ["a hyphen splitting the word", "a na-ked woman"],
    ["stretched letters", "a naaaaked woman"],
    ["Cyrillic look-alikes", "a n\u0430k\u0435d woman"],
    ["Greek look-alikes", "a n\u03b1k\u03b5d woman"],
    ["fullwidth letters", "a \uff4e\uff41\uff4b\uff45\uff44 woman"],
    ["mathematical bold letters", "a \u{1d427}\u{1d41a}\u{1d424}\u{1d41e}\u{1d41d} woman"],
    ["accents", "a n\u00e4k\u00e9d woman"],
    ["zero-width characters", "a na\u200bk\u200ded\u2060 woman"],
    ["leetspeak digits", "a n4k3d woman"],
    ["leetspeak symbols", "a woman having $ex"],
    ["leetspeak 1 read as i", "k1ll myself"],
    ["leetspeak 1 read as l", "ki11 myself"],
    ["leetspeak inside spaced letters", "a n 4 k 3 d woman"],
  ];
  it.each(disguised)("undoes %s", (_trick, text) => {
    expect(categoryOf(text)).not.toBeNull();
  });

  it("matches whole words, so innocent words containing a listed one pass", () => {
    for (const text of ["Scunthorpe high street", "a cocktail bar", "the Essex coast", "assassin's creed cosplay", "a sextant on a map", "a grape vine", "a therapist's office"]) {
      expect(categoryOf(text), text).toBeNull();
    }
  });

  it("does not read a shorter spelling as a stretched word", () => {
    // "boobs" is listed; "bob" is a name, not a squeezed spelling of it.
    expect(categoryOf("bob ross painting a tree")).toBeNull();
    expect(categoryOf("big boooobs")).toBe("sexual");
  });

  it("reads digits as numbers, not letters, outside words", () => {
    expect(categoryOf("a 4k photo of 3 cats")).toBeNull();
    expect(categoryOf("a 12 year old playing chess")).toBeNull();
  });
});

describe("context", () => {
  const nearMisses = [
    "a breast cancer awareness ribbon",
    "chicken breast on a grill",
    "a shooting star over the lake",
    "a kid's birthday party",
    "kids playing on the beach",
    "a knife on a cutting board",
    "a historical painting of a battle",
    "a drag queen on stage",
    "a nude colour palette lipstick",
    "a bloody mary cocktail",
    "killer whale",
    "a photo shoot",
    "a suicide prevention hotline poster",
    "Isis, the Egyptian goddess",
    "a bath bomb in the tub",
    "a murder of crows",
    "a Jewish wedding",
    "a photographer shooting a model",
  ];
  it.each(nearMisses)("passes %s", (text) => {
    expect(screenText(text)).toBeNull();
  });

  it("refuses the harmful use of the same words", () => {
    expect(categoryOf("a woman with bare breasts")).toBe("sexual");
    expect(categoryOf("shooting a man in the street")).toBe("violence");
    expect(categoryOf("a bloody corpse")).toBe("violence");
    expect(categoryOf("a poster celebrating isis")).toBe("extremism");
    expect(categoryOf("how to make a bomb")).toBe("illegal");
  });

  it("refuses sexual content involving minors as sexual_minors, not sexual", () => {
    expect(categoryOf("a naked woman")).toBe("sexual");
    for (const text of ["a naked teen", "naked kids", "a sexy schoolgirl", "a 12 year old in lingerie", "a nude 15yo", "a n4k3d k1d"]) {
      expect(categoryOf(text), text).toBe("sexual_minors");
    }
  });

  it("allows suggestive words for adults but not beside a minor", () => {
    expect(categoryOf("a sexy red dress")).toBeNull();
    expect(categoryOf("a sexy teen in a red dress")).toBe("sexual_minors");
  });
});

describe("assertSafeText", () => {
  function refusal(fields: { param: string; text: string | undefined }[]): PixelgateError {
    try {
      assertSafeText(fields);
    } catch (error) {
      if (error instanceof PixelgateError) return error;
      throw error;
    }
    throw new Error("expected a refusal");
  }

  it("throws 400 content_policy_violation with the contract's fields", () => {
    const error = refusal([{ param: "prompt", text: "a naked woman on a sofa" }]);
    expect(error.code).toBe("content_policy_violation");
    expect(ERROR_CATALOG[error.code].status).toBe(400);
    expect(error.param).toBe("prompt");
    expect(error.message.startsWith("Content detected")).toBe(true);
    expect(error.details).toEqual({ isNsfw: true, reason: screenText("a naked woman on a sofa")!.reason, category: "sexual" });
  });

  it("names the field that was refused", () => {
    const error = refusal([
      { param: "prompt", text: "a lighthouse at dawn" },
      { param: "instruction", text: undefined },
      { param: "style", text: "gore, severed heads" },
    ]);
    expect(error.param).toBe("style");
    expect(error.details.category).toBe("violence");
  });

  it("returns quietly when every field passes or is absent", () => {
    expect(() => assertSafeText([{ param: "prompt", text: "a chicken breast on a grill" }, { param: "style", text: undefined }])).not.toThrow();
    expect(() => assertSafeText([])).not.toThrow();
  });
});
