import { describe, expect, it } from "vitest";
import { expectParamError } from "../support/envelope";
import { newAccount } from "../support/fixtures";
import { balanceOf, postTool } from "../support/tool-calls";

// text-to-svg with the local composer: sanitised markup inline, 5 credits.

type Body = { deductedCredits: number; userCredits: number; result: Record<string, string | number> };

async function svg(path: string, body: Record<string, unknown>) {
  const account = await newAccount({ credits: 20 });
  const response = await postTool(path, account.key, body);
  return { account, response, body: (await response.clone().json()) as Body };
}

describe.each(["/v1/text-to-svg", "/playground/text-to-svg"])("POST %s", (path) => {
  it("returns SVG markup, a data URL and its alias for 5 credits", async () => {
    const { response, body } = await svg(path, { prompt: "a blue rocket", model: "local-svg-v1", seed: 3 });
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ deductedCredits: 5, userCredits: 15 });
    expect(Object.keys(body.result).sort()).toEqual(
      ["svgCode", "dataUrl", "imageUrl", "prompt", "style", "model", "seed", "latency", "cost", "deductedCredits", "userCredits"].sort(),
    );
    expect(body.result).toMatchObject({ prompt: "a blue rocket", style: "icon", model: "local-svg-v1", seed: 3 });
    const markup = String(body.result.svgCode);
    expect(markup).toMatch(/^<svg[\s>]/);
    expect(markup).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(markup).not.toMatch(/<script|\son[a-z]+=|javascript:|foreignObject/i);
    expect(body.result.imageUrl).toBe(body.result.dataUrl);
    const dataUrl = String(body.result.dataUrl);
    expect(dataUrl.startsWith("data:image/svg+xml;base64,")).toBe(true);
    expect(new TextDecoder().decode(Uint8Array.from(atob(dataUrl.split(",")[1]!), (c) => c.charCodeAt(0)))).toBe(markup);
  });

  it("echoes the style and is deterministic for a seed", async () => {
    const a = await svg(path, { prompt: "a green leaf", style: "outline", model: "local-svg-v1", seed: 9 });
    const b = await svg(path, { prompt: "a green leaf", style: "outline", model: "local-svg-v1", seed: 9 });
    expect(a.body.result.style).toBe("outline");
    expect(a.body.result.svgCode).toBe(b.body.result.svgCode);
  });

  it("needs a prompt, free", async () => {
    const { account, response } = await svg(path, { style: "icon" });
    await expectParamError(response, "missing_parameter", "prompt");
    expect(await balanceOf(account.id)).toBe(20);
  });
});
