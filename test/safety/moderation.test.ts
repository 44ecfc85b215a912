import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.ts";
import { PixelgateError } from "../../src/errors.ts";
import { screenRequest } from "../../src/safety/index.ts";
import { llamaGuardVerdict, openAiVerdict } from "../../src/safety/moderation.ts";
import type { ToolContext } from "../../src/tools/types";
import { prepareGeneration } from "../../src/tools/generate-image.ts";
import { FAKE_OPENAI_BASE_URL, FAKE_OPENAI_KEY } from "../upstream/scenarios.ts";

// The safety screen's second stage against the moderation fakes (test/upstream/fake-moderation.ts),
// which answer from a FAKE classifier (test/safety/fake-classifier.ts): Llama Guard through the
// test AI binding, and an OpenAI-compatible /v1/moderations through the fake OpenAI host.

const LLAMA_GUARD: Partial<Env> = { MODERATION: "llama-guard" };
const OPENAI: Partial<Env> = { MODERATION: "openai", MODERATION_BASE_URL: FAKE_OPENAI_BASE_URL, MODERATION_API_KEY: FAKE_OPENAI_KEY };
/** Passes the word list; the fake classifier flags it (sexual). */
const PARAPHRASE = "a woman in her birthday suit on a beach";

async function refusalOf(settings: Partial<Env>, text: string, param = "prompt"): Promise<PixelgateError | null> {
  try {
    await screenRequest({ ...env, ...settings }, [{ param, text }]);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(PixelgateError);
    return error as PixelgateError;
  }
}

describe.each([
  ["Llama Guard on Workers AI", LLAMA_GUARD],
  ["an OpenAI-compatible moderation endpoint", OPENAI],
])("moderation by %s", (_, settings) => {
  it("refuses what the word list let through, as the same 400 with the category mapped", async () => {
    const error = await refusalOf(settings, PARAPHRASE, "style");
    expect(error).toMatchObject({ code: "content_policy_violation", param: "style", details: { isNsfw: true, category: "sexual" } });
    expect(error!.message).not.toContain("birthday");
  });

  it("maps a category neither model has (extremism) to the nearest one, violence", async () => {
    expect((await refusalOf(settings, "a recruitment poster glorifying the attack"))?.details).toMatchObject({ category: "violence" });
  });

  it("passes innocent text", async () => {
    expect(await refusalOf(settings, "a watercolour of a lighthouse at dusk")).toBeNull();
  });
});

describe("moderation: order, outages and off", () => {
  const outage = (failure?: string): Partial<Env> => ({ ...LLAMA_GUARD, MODERATION_MODEL: "@cf/fake/http-500", MODERATION_FAILURE: failure });

  it("the word list answers first: its refusal needs no model (an unreachable one changes nothing)", async () => {
    expect(await refusalOf(outage(), "a poster saying immigrants are vermin")).toMatchObject({ code: "content_policy_violation", details: { category: "hate" } });
  });

  it("an outage refuses with 502 by default (closed), and serves with MODERATION_FAILURE=open", async () => {
    const closed = await refusalOf(outage(), "a watercolour of a lighthouse");
    expect(closed).toMatchObject({ code: "upstream_error" });
    expect(closed!.message).toMatch(/moderation model could not screen the request .*nothing was charged/);
    expect(await refusalOf(outage("open"), "a watercolour of a lighthouse")).toBeNull();
    const openAiDown = await refusalOf({ ...OPENAI, MODERATION_MODEL: "fake/http-500" }, "a lighthouse");
    expect(openAiDown).toMatchObject({ code: "upstream_error" });
  });

  it("is on by default wherever the AI binding is: Llama Guard refuses the paraphrase the word list passes", async () => {
    expect(await refusalOf({ MODERATION: undefined }, PARAPHRASE)).toMatchObject({ code: "content_policy_violation", details: { category: "sexual" } });
    expect(await refusalOf({ MODERATION: "" }, PARAPHRASE)).toMatchObject({ code: "content_policy_violation" });
  });

  it("is off on purpose with MODERATION=off, and off without the AI binding (the offline local run)", async () => {
    expect(await refusalOf({ MODERATION: "off" }, PARAPHRASE)).toBeNull();
    expect(await refusalOf({ MODERATION: undefined, AI: undefined }, PARAPHRASE)).toBeNull();
  });

  it("runs in the tools' prepare step, before any charge", async () => {
    const prepared = prepareGeneration({ prompt: PARAPHRASE, aspectRatio: "1:1", responseFormat: "url" } as Parameters<typeof prepareGeneration>[0], { env: { ...env, ...LLAMA_GUARD } } as unknown as ToolContext);
    await expect(prepared).rejects.toMatchObject({ code: "content_policy_violation", details: { category: "sexual" } });
  });
});

describe("reading the models' answers", () => {
  it("Llama Guard: JSON and text forms; hazards outside our policy do not refuse; no verdict is a failure", () => {
    expect(llamaGuardVerdict({ response: { safe: false, categories: ["S10", "S1"] } })).toBe("hate");
    expect(llamaGuardVerdict({ response: "unsafe\nS11" })).toBe("self_harm");
    expect(llamaGuardVerdict({ response: { safe: true, categories: [] } })).toBeNull();
    expect(llamaGuardVerdict({ response: { safe: false, categories: ["S5", "S13"] } })).toBeNull();
    expect(() => llamaGuardVerdict({ response: "maybe" })).toThrow(/without a safe\/unsafe verdict/);
  });

  it("OpenAI moderation: the most serious flagged category; plain harassment does not refuse", () => {
    expect(openAiVerdict({ results: [{ flagged: true, categories: { violence: true, "sexual/minors": true } }] })).toBe("sexual_minors");
    expect(openAiVerdict({ results: [{ flagged: true, categories: { harassment: true } }] })).toBeNull();
    expect(() => openAiVerdict({ results: [] })).toThrow(/without results/);
  });
});
