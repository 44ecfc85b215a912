import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLAYGROUND_TOOLS } from "../../src/dashboard/playground-tools";
import { requestFieldsOf } from "../../src/tools/request-body";
import { TOOLS } from "../../src/tools/registry";
import { balanceOf, bytesOfDataUri, decodeAny, usageRows } from "../support/tool-calls";
import { discOnPlainBackground } from "../support/pictures";
import { encodeImage } from "../../src/codecs";
import { accountIdOf, csrfOf, signUpIn, TestBrowser, visibleText } from "./support";

// The playground runs the real billed path with the account's playground key.

function resultOf(html: string) {
  const cost = /data-testid="playground-cost">(\d+) credits?</.exec(html);
  const balance = /data-testid="playground-balance">(\d+) left</.exec(html);
  const image = /<img src="([^"]+)"[^>]*data-testid="playground-image"/.exec(html);
  return { cost: cost ? Number(cost[1]) : null, balance: balance ? Number(balance[1]) : null, image: image?.[1] ?? null };
}

function runOf(html: string): string {
  const match = /name="run" value="([0-9A-Za-z]{24})"/.exec(html);
  expect(match, "the form carries a run token").not.toBeNull();
  return match![1]!;
}

/** The CSRF and run tokens of the form a GET of the page renders. */
async function formOf(browser: TestBrowser, path: string): Promise<{ csrf: string; run: string }> {
  const html = await (await browser.page(path)).text();
  return { csrf: csrfOf(html), run: runOf(html) };
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
      const page = await browser.page(`/dashboard/playground/${entry.slug}`);
      expect(page.status, entry.slug).toBe(200);
      const html = await page.text();
      expect(html).toContain(`action="/dashboard/playground/${entry.slug}"`);
      for (const field of entry.fields) expect(html, `${entry.slug} ${field.name}`).toMatch(new RegExp(`name="${field.name}(File)?"`));
      // Every input has a label.
      for (const [, id] of html.matchAll(/<(?:input|select|textarea)[^>]*\bid="([^"]+)"/g)) expect(html, id).toContain(`for="${id}"`);
    }
  });

  it("generates an image once: the POST redirects to the run's page, which reload and a resubmitted form only show again", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const form = await formOf(browser, "/dashboard/playground/generate");
    const fields = { prompt: "a red balloon over hills", aspectRatio: "16:9", model: "local-draw-v1", run: form.run };
    const answer = await browser.submit("/dashboard/playground/generate", "/dashboard/playground/generate", fields, { csrf: form.csrf });
    expect(answer.status).toBe(303);
    const location = answer.headers.get("Location")!;
    expect(location).toBe(`/dashboard/playground/generate/runs/${form.run}`);
    const response = await browser.get(location);
    expect(response.status).toBe(200);
    const html = await response.text();
    const shown = resultOf(html);
    expect(shown.cost).toBe(2);
    expect(shown.balance).toBe(48);
    expect(shown.image).toMatch(/^https:\/\/pixelgate\.test\/files\/[^"]+\.png$/);
    const file = await browser.get(new URL(shown.image!).pathname);
    const { image } = await decodeAny(new Uint8Array(await file.arrayBuffer()));
    expect(image.width / image.height).toBeCloseTo(16 / 9, 1);
    // The form is refilled and carries a new token for the next run.
    expect(html).toContain("a red balloon over hills");
    expect(runOf(html)).not.toBe(form.run);

    // Reload, and the same form sent again (Back, then "resubmit"): shown, not run again.
    expect(resultOf(await (await browser.get(location)).text()).cost).toBe(2);
    const again = await browser.submit("/dashboard/playground/generate", "/dashboard/playground/generate", fields, { csrf: form.csrf });
    expect(again.headers.get("Location")).toBe(location);
    expect(await balanceOf(id)).toBe(48);
    const rows = await usageRows(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tool: "generate_image", status_code: 200, credits_deducted: 2, source: "rest" });
    const keys = visibleText(await (await browser.get("/dashboard/keys")).text());
    expect(keys).toContain("Dashboard playground");
    const key = await env.DB.prepare("SELECT k.prefix FROM playground_keys p JOIN api_keys k ON k.id = p.key_id WHERE p.account_id = ?").bind(id).first<{ prefix: string }>();
    expect((rows[0] as unknown as { key_prefix: string }).key_prefix).toBe(key!.prefix);

    // The result downloads as a file; another account cannot see the run or its download.
    const download = await browser.get(`${location}/download`);
    expect(download.status).toBe(200);
    expect(download.headers.get("Content-Disposition")).toMatch(/^attachment; filename="pixelgate-generate-[0-9A-Za-z]{8}\.png"$/);
    expect((await decodeAny(new Uint8Array(await download.arrayBuffer()))).image.width).toBe(image.width);
    const stranger = new TestBrowser();
    await signUpIn(stranger);
    expect((await stranger.get(location)).status).toBe(404);
    expect((await stranger.get(`${location}/download`)).status).toBe(404);
  });

  it("a form's address holds its run token: Back to a used form says so, and only an explicit \"run again\" charges again", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const opened = await browser.get("/dashboard/playground/generate");
    expect(opened.status).toBe(303);
    const formAddress = opened.headers.get("Location")!;
    const form = await formOf(browser, "/dashboard/playground/generate");
    expect(browser.location).toBe(`/dashboard/playground/generate/form/${form.run}`);
    const fresh = await (await browser.get(browser.location)).text();
    expect(fresh).not.toContain('data-testid="form-used"');
    expect(visibleText(fresh)).toContain("Run generate ");
    expect(runOf(fresh)).toBe(form.run);
    // The price names where to read it: each model's own price is beside it in the list.
    expect(visibleText(fresh)).toContain("Cost: the price of the chosen model (beside each model below).");
    expect(visibleText(fresh)).toMatch(/Local procedural renderer \(offline, not a neural model\) \(\d+ credits\)/);

    const fields = { prompt: "a blue kite", model: "local-draw-v1", run: form.run };
    const answer = await browser.submit(browser.location, "/dashboard/playground/generate", fields, { csrf: form.csrf });
    expect(answer.headers.get("Location")).toBe(`/dashboard/playground/generate/runs/${form.run}`);
    // The run's page offers the next run as a run again.
    expect(visibleText(await (await browser.follow(answer)).text())).toContain("Run generate again");
    expect(await balanceOf(id)).toBe(48);

    // Back: the form's address is fetched again. It says it was used, links its run, refills it,
    // and carries a new token behind a button that says it runs again.
    const back = await (await browser.get(`/dashboard/playground/generate/form/${form.run}`)).text();
    expect(back).toContain('data-testid="form-used"');
    expect(back).toContain(`href="/dashboard/playground/generate/runs/${form.run}"`);
    expect(visibleText(back)).toContain("“Run generate again” below starts a new run, charged again.");
    expect(back).toContain("a blue kite");
    const again = runOf(back);
    expect(again).not.toBe(form.run);
    expect(await balanceOf(id)).toBe(48);
    const rerun = await browser.submit(`/dashboard/playground/generate/form/${form.run}`, "/dashboard/playground/generate", { ...fields, run: again });
    expect(rerun.headers.get("Location")).toBe(`/dashboard/playground/generate/runs/${again}`);
    expect(await balanceOf(id)).toBe(46);
    expect(await usageRows(id)).toHaveLength(2);
    // Another address: a new form (and a bad token only gets a fresh one).
    expect(formAddress).toMatch(/^\/dashboard\/playground\/generate\/form\/[0-9A-Za-z]{24}$/);
    expect(formAddress).not.toBe(`/dashboard/playground/generate/form/${form.run}`);
    expect((await browser.get("/dashboard/playground/generate/form/nope")).headers.get("Location")).toMatch(/\/form\/[0-9A-Za-z]{24}$/);
  });

  it("the playground key's \"last used\" is its last run", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    await browser.submitAndFollow("/dashboard/playground/compress", "/dashboard/playground/compress", { imageSample: "on" });
    const lastUsed = () => env.DB.prepare("SELECT k.last_used_at AS at FROM playground_keys p JOIN api_keys k ON k.id = p.key_id WHERE p.account_id = ?").bind(id).first<{ at: string | null }>();
    await expect.poll(async () => (await lastUsed())?.at ?? null, { timeout: 10_000 }).not.toBeNull();
    const row = /<tr data-key-id="[^"]+">[\s\S]*?Dashboard playground[\s\S]*?<\/tr>/.exec(await (await browser.get("/dashboard/keys")).text())![0];
    expect(visibleText(row)).not.toContain("never");
    expect(visibleText(row)).toContain((await lastUsed())!.at!.slice(0, 10));
  });

  it("a form over the size limit gets a page saying so (not JSON), and nothing runs or is charged", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const form = await formOf(browser, "/dashboard/playground/compress");
    const big = new File([new Uint8Array(40 * 1024 * 1024)], "huge.png", { type: "image/png" });
    const answer = await browser.submit(browser.location, "/dashboard/playground/compress", { imageFile: big, run: form.run }, { csrf: form.csrf });
    expect(answer.status).toBe(413);
    expect(answer.headers.get("Content-Type")).toMatch(/^text\/html/);
    const text = visibleText(await answer.text());
    expect(text).toContain("The file is too large");
    expect(text).toMatch(/this one was 40(\.0)? MB/);
    expect(text).toContain("Files can be at most 20 MB");
    expect(text).toContain("nothing was charged");
    expect(await balanceOf(id)).toBe(50);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM playground_runs WHERE account_id = ?").bind(id).first<number>("n")).toBe(0);
    // The API keeps its JSON answer.
    const api = await exports.default.fetch(new Request("https://pixelgate.test/v1/compress", { method: "POST", body: new Uint8Array(33 * 1024 * 1024), headers: { "Content-Type": "application/json" } }));
    expect(api.status).toBe(413);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("request_too_large");
  });

  it("runs the image tools on an uploaded file, and a re-run from the run's page uses that file, not the sample", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const png = await encodeImage(discOnPlainBackground(64, 48), "png");
    const first = await browser.submitAndFollow("/dashboard/playground/compress", "/dashboard/playground/compress", {
      imageFile: new File([png], "photo.png", { type: "image/png" }), imageSample: "on", targetFormat: "jpeg", quality: "50",
    });
    const html = await first.text();
    const compressed = resultOf(html);
    expect(compressed.cost).toBe(1);
    const { mime, bytes } = bytesOfDataUri(compressed.image!);
    expect(mime).toBe("image/jpeg");
    expect((await decodeAny(bytes)).image.width).toBe(64);
    expect(visibleText(html)).toContain("Use “photo.png” again");
    // The kept file is offered (checked) and the sample is not.
    const kept = /name="imageUpload" value="([^"]+)" checked/.exec(html);
    expect(kept, "the run's page offers the uploaded file again").not.toBeNull();
    expect(html).not.toMatch(/name="imageSample" checked/);
    const firstRun = browser.location;
    const download = await browser.get(`${firstRun}/download`);
    expect(download.headers.get("Content-Type")).toBe("image/jpeg");

    // The re-run sends what the page's form holds: the kept file's reference, no file input.
    const rerun = await browser.submitAndFollow(firstRun, "/dashboard/playground/compress", {
      imageUpload: kept![1]!, targetFormat: "png", run: runOf(html),
    });
    const second = resultOf(await rerun.text());
    expect((await decodeAny(bytesOfDataUri(second.image!).bytes)).image.width).toBe(64);
    // Another account's upload reference is refused, not read.
    const stranger = new TestBrowser();
    await signUpIn(stranger);
    const stolen = await stranger.submitAndFollow("/dashboard/playground/compress", "/dashboard/playground/compress", { imageUpload: kept![1]! });
    expect(await stolen.text()).toContain('data-testid="playground-error"');

    const cutout = await browser.submitAndFollow("/dashboard/playground/remove-background", "/dashboard/playground/remove-background", { imageSample: "on", model: "local-cutout-v1" });
    expect(resultOf(await cutout.text()).cost).toBe(8);
    expect(await balanceOf(id)).toBe(50 - 1 - 1 - 8);
  });

  it("offers a TIFF result for download with a note instead of a broken preview", async () => {
    const browser = new TestBrowser();
    await signUpIn(browser);
    const page = await browser.submitAndFollow("/dashboard/playground/convert-format", "/dashboard/playground/convert-format", { imageSample: "on", targetFormat: "tiff" });
    const html = await page.text();
    expect(resultOf(html).cost).toBe(1);
    expect(html).not.toContain('data-testid="playground-image"');
    expect(visibleText(html)).toContain("TIFF results cannot be previewed in a browser");
    const download = await browser.get(`${browser.location}/download`);
    expect(download.headers.get("Content-Type")).toBe("image/tiff");
    expect(new Uint8Array(await download.arrayBuffer()).subarray(0, 4)).toEqual(new Uint8Array([0x49, 0x49, 0x2a, 0x00]));

    const svg = await browser.submitAndFollow("/dashboard/playground/text-to-svg", "/dashboard/playground/text-to-svg", { prompt: "a star", model: "local-svg-v1" });
    expect(svg.status).toBe(200);
    const svgFile = await browser.get(`${browser.location}/download`);
    expect(svgFile.headers.get("Content-Type")).toBe("image/svg+xml");
    expect(await svgFile.text()).toMatch(/^<svg[\s>]/);
  });

  it("refuses an over-long prompt with its length, keeps it whole in the form, and charges nothing", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const blank = await (await browser.page("/dashboard/playground/generate")).text();
    expect(blank).not.toMatch(/<textarea[^>]*maxlength/);
    expect(blank).toMatch(/<textarea[^>]*data-maxchars="4000"/);
    const prompt = "a lighthouse on a cliff at dusk, ".repeat(200).slice(0, 6000);
    const page = await browser.submitAndFollow("/dashboard/playground/generate", "/dashboard/playground/generate", { prompt, model: "local-draw-v1" });
    const html = await page.text();
    expect(html).toContain('data-testid="playground-error"');
    expect(visibleText(html)).toContain("The prompt has 6,000 characters and the limit is 4,000");
    expect(visibleText(html)).toContain("6,000 / 4,000 characters: 2,000 too many");
    expect(/<textarea[^>]*>([^<]*)<\/textarea>/.exec(html)![1]!.length).toBe(6000);
    expect(await balanceOf(id)).toBe(50);
    expect((await usageRows(id)).map((row) => [row.status_code, row.credits_deducted])).toEqual([[400, 0]]);
  });

  it("shows a refused call with its reason, charges nothing, and still logs it", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const empty = await browser.submitAndFollow("/dashboard/playground/generate", "/dashboard/playground/generate", { prompt: "   " });
    const html = await empty.text();
    expect(visibleText(html)).toContain("prompt is required.");
    expect(html).toContain('data-testid="playground-error"');
    const noImage = await browser.submitAndFollow("/dashboard/playground/upscale", "/dashboard/playground/upscale", { scaleFactor: "2x" });
    expect(await noImage.text()).toContain('data-testid="playground-error"');
    expect(await balanceOf(id)).toBe(50);
    expect((await usageRows(id)).map((row) => [row.tool, row.status_code, row.credits_deducted])).toEqual([
      ["generate_image", 400, 0],
      ["upscale_image", 400, 0],
    ]);

    // Too little balance: the insufficient-credits refusal, as words.
    await env.LEDGER.getByName(id).grant(-45);
    const poor = await browser.submitAndFollow("/dashboard/playground/upscale", "/dashboard/playground/upscale", { imageSample: "on" });
    expect(visibleText(await poor.text())).toContain("needs 15 and the account has 5");
  });

  it("a run still going (or cut off) is shown as such, and its form sent again does not start it twice", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const form = await formOf(browser, "/dashboard/playground/compress");
    await env.DB.prepare("INSERT INTO playground_runs (account_id, token, tool, state, created_at) VALUES (?, ?, 'compress', 'running', ?)").bind(id, form.run, Date.now()).run();
    const again = await browser.submit("/dashboard/playground/compress", "/dashboard/playground/compress", { imageSample: "on", run: form.run }, { csrf: form.csrf });
    expect(again.headers.get("Location")).toBe(`/dashboard/playground/compress/runs/${form.run}`);
    expect(await (await browser.follow(again)).text()).toContain('data-testid="playground-running"');
    await env.DB.prepare("UPDATE playground_runs SET created_at = ? WHERE token = ?").bind(Date.now() - 11 * 60 * 1000, form.run).run();
    expect(await (await browser.get(browser.location)).text()).toContain('data-testid="playground-abandoned"');
    expect(await balanceOf(id)).toBe(50);
    expect(await usageRows(id)).toHaveLength(0);
  });

  it("makes a new playground key when the old one was revoked", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    await browser.submitAndFollow("/dashboard/playground/text-to-svg", "/dashboard/playground/text-to-svg", { prompt: "a star", model: "local-svg-v1" });
    const first = await env.DB.prepare("SELECT key_id FROM playground_keys WHERE account_id = ?").bind(id).first<{ key_id: string }>();
    await browser.submitAndFollow("/dashboard/keys", `/dashboard/keys/${first!.key_id}/revoke`, {});
    const again = await browser.submitAndFollow("/dashboard/playground/compress", "/dashboard/playground/compress", { imageSample: "on" });
    expect(resultOf(await again.text()).cost).toBe(1);
    const second = await env.DB.prepare("SELECT key_id FROM playground_keys WHERE account_id = ?").bind(id).first<{ key_id: string }>();
    expect(second!.key_id).not.toBe(first!.key_id);
  });
});

describe("playground facts", () => {
  type Schema = { $ref?: string; properties?: Record<string, Schema>; enum?: unknown[]; maxLength?: number; anyOf?: Schema[]; allOf?: Schema[] };

  it("match /v1/openapi.json: every field exists, choices equal the enums, prompt limits and prices agree", async () => {
    const doc = (await (await exports.default.fetch(new Request("https://pixelgate.test/v1/openapi.json"))).json()) as {
      paths: Record<string, { post: { summary: string; requestBody: { content: Record<string, { schema: Schema }> } } }>;
      components: { schemas: Record<string, Schema> };
    };
    const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(doc.components.schemas[schema.$ref.split("/").pop()!]!) : schema);
    /** The schema itself or, for nullable/optional unions, the branch that says something. */
    const find = (schema: Schema, has: (s: Schema) => boolean): Schema | undefined => {
      const resolved = resolve(schema);
      if (has(resolved)) return resolved;
      for (const branch of [...(resolved.anyOf ?? []), ...(resolved.allOf ?? [])]) {
        const found = find(branch, has);
        if (found) return found;
      }
      return undefined;
    };
    for (const entry of PLAYGROUND_TOOLS) {
      const operation = doc.paths[entry.tool.paths.v1]!.post;
      const properties = resolve(operation.requestBody.content["application/json"]!.schema).properties!;
      expect(entry.price, entry.slug).toBe(/\(([^()]*)\)$/.exec(operation.summary)![1]);
      for (const field of entry.fields) {
        const property = properties[field.name];
        expect(property, `${entry.slug}.${field.name} in the OpenAPI request`).toBeDefined();
        if (field.fromSchema) expect(field.options, `${entry.slug}.${field.name}`).toEqual(find(property!, (s) => Array.isArray(s.enum))!.enum);
        if (field.kind === "prompt") expect(field.maxLength, `${entry.slug}.prompt`).toBe(find(property!, (s) => s.maxLength !== undefined)!.maxLength);
      }
    }
    // The forms do offer the schema's choices (a drifted page would fail above, an empty one here).
    expect(PLAYGROUND_TOOLS.find((entry) => entry.slug === "convert-format")!.fields.find((f) => f.name === "targetFormat")!.options).toContain("tiff");
  });
});
