import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLAYGROUND_TOOLS } from "../../src/dashboard/playground-tools";
import { requestFieldsOf } from "../../src/tools/request-body";
import { TOOLS } from "../../src/tools/registry";
import { balanceOf, bytesOfDataUri, decodeAny, usageRows } from "../support/tool-calls";
import { discOnPlainBackground } from "../support/pictures";
import { encodeImage } from "../../src/codecs";
import { accountIdOf, signUpIn, TestBrowser, visibleText } from "./support";

// The playground runs the real billed path with the account's playground key.

function resultOf(html: string) {
  const cost = /data-testid="playground-cost">(\d+) credits?</.exec(html);
  const balance = /data-testid="playground-balance">(\d+) left</.exec(html);
  const image = /<img src="([^"]+)"[^>]*data-testid="playground-image"/.exec(html);
  return { cost: cost ? Number(cost[1]) : null, balance: balance ? Number(balance[1]) : null, image: image?.[1] ?? null };
}

describe("playground", () => {
  it("has a form for every tool of the registry, each field one the tool's schema accepts", async () => {
    expect(PLAYGROUND_TOOLS.map((entry) => entry.tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    for (const entry of PLAYGROUND_TOOLS) {
      const fields = requestFieldsOf(entry.tool.input("v1"));
      for (const field of entry.fields) expect(fields, `${entry.tool.name}.${field.name}`).toContain(field.name);
    }
    const browser = new TestBrowser();
    await signUpIn(browser);
    for (const entry of PLAYGROUND_TOOLS) {
      const page = await browser.get(`/dashboard/playground/${entry.slug}`);
      expect(page.status, entry.slug).toBe(200);
      const html = await page.text();
      expect(html).toContain(`action="/dashboard/playground/${entry.slug}"`);
      for (const field of entry.fields) expect(html, `${entry.slug} ${field.name}`).toMatch(new RegExp(`name="${field.name}(File)?"`));
      // Every input has a label.
      for (const [, id] of html.matchAll(/<(?:input|select|textarea)[^>]*\bid="([^"]+)"/g)) expect(html, id).toContain(`for="${id}"`);
    }
  });

  it("generates an image, shows it with its cost and the balance, and logs it under the playground key", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const response = await browser.submit("/dashboard/playground/generate", "/dashboard/playground/generate", { prompt: "a red balloon over hills", aspectRatio: "16:9", model: "local-draw-v1" });
    expect(response.status).toBe(200);
    const html = await response.text();
    const shown = resultOf(html);
    expect(shown.cost).toBe(2);
    expect(shown.balance).toBe(48);
    expect(await balanceOf(id)).toBe(48);
    expect(shown.image).toMatch(/^https:\/\/pixelgate\.test\/files\/[^"]+\.png$/);
    const file = await browser.get(new URL(shown.image!).pathname);
    const { image } = await decodeAny(new Uint8Array(await file.arrayBuffer()));
    expect(image.width / image.height).toBeCloseTo(16 / 9, 1);

    const [row] = await usageRows(id);
    expect(row).toMatchObject({ tool: "generate_image", status_code: 200, credits_deducted: 2, source: "rest" });
    const keys = visibleText(await (await browser.get("/dashboard/keys")).text());
    expect(keys).toContain("Dashboard playground");
    const key = await env.DB.prepare("SELECT k.prefix FROM playground_keys p JOIN api_keys k ON k.id = p.key_id WHERE p.account_id = ?").bind(id).first<{ prefix: string }>();
    expect((row as unknown as { key_prefix: string }).key_prefix).toBe(key!.prefix);
  });

  it("runs the image tools on an uploaded file or the sample picture", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const png = await encodeImage(discOnPlainBackground(64, 48), "png");
    const upload = await browser.submit("/dashboard/playground/compress", "/dashboard/playground/compress", {
      imageFile: new File([png], "photo.png", { type: "image/png" }), targetFormat: "jpeg", quality: "50",
    });
    expect(upload.status).toBe(200);
    const compressed = resultOf(await upload.text());
    expect(compressed.cost).toBe(1);
    const { mime, bytes } = bytesOfDataUri(compressed.image!);
    expect(mime).toBe("image/jpeg");
    expect((await decodeAny(bytes)).image.width).toBe(64);

    const cutout = await browser.submit("/dashboard/playground/remove-background", "/dashboard/playground/remove-background", { imageSample: "on", model: "local-cutout-v1" });
    expect(cutout.status).toBe(200);
    expect(resultOf(await cutout.text()).cost).toBe(8);
    expect(await balanceOf(id)).toBe(50 - 1 - 8);
  });

  it("shows a refused call with its reason, charges nothing, and still logs it", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const empty = await browser.submit("/dashboard/playground/generate", "/dashboard/playground/generate", { prompt: "   " });
    expect(empty.status).toBe(400);
    const html = await empty.text();
    expect(visibleText(html)).toContain("prompt is required.");
    expect(html).toContain('data-testid="playground-error"');
    const noImage = await browser.submit("/dashboard/playground/upscale", "/dashboard/playground/upscale", { scaleFactor: "2x" });
    expect(noImage.status).toBe(400);
    expect(await balanceOf(id)).toBe(50);
    expect((await usageRows(id)).map((row) => [row.tool, row.status_code, row.credits_deducted])).toEqual([
      ["generate_image", 400, 0],
      ["upscale_image", 400, 0],
    ]);

    // Too little balance: the spec's insufficient-credits refusal, as words.
    await env.LEDGER.getByName(id).grant(-45);
    const poor = await browser.submit("/dashboard/playground/upscale", "/dashboard/playground/upscale", { imageSample: "on" });
    expect(poor.status).toBe(400);
    expect(visibleText(await poor.text())).toContain("needs 15 and the account has 5");
  });

  it("makes a new playground key when the old one was revoked", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    await browser.submit("/dashboard/playground/text-to-svg", "/dashboard/playground/text-to-svg", { prompt: "a star", model: "local-svg-v1" });
    const first = await env.DB.prepare("SELECT key_id FROM playground_keys WHERE account_id = ?").bind(id).first<{ key_id: string }>();
    await browser.submit("/dashboard/keys", `/dashboard/keys/${first!.key_id}/revoke`, {});
    const again = await browser.submit("/dashboard/playground/compress", "/dashboard/playground/compress", { imageSample: "on" });
    expect(again.status).toBe(200);
    const second = await env.DB.prepare("SELECT key_id FROM playground_keys WHERE account_id = ?").bind(id).first<{ key_id: string }>();
    expect(second!.key_id).not.toBe(first!.key_id);
  });
});
