import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recordUsage, type SeededEntry } from "../support/usage-log";
import { postTool } from "../support/tool-calls";
import { accountIdOf, signUpIn, TestBrowser, visibleText } from "./support";

// The usage log page (filters, paging, CSV) and the 30-day spend chart. Entries are written with
// the service's own log writer at chosen times, plus one real API call.

const DAY_MS = 86_400_000;

function daysAgo(days: number, hour = 12): string {
  const today = Date.parse(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
  return new Date(today - days * DAY_MS + hour * 3_600_000).toISOString();
}

async function seed(accountId: string, entries: Array<Partial<SeededEntry>>): Promise<void> {
  for (const [i, entry] of entries.entries()) {
    await recordUsage(env.DB, {
      accountId, keyPrefix: "pg_seededKey", requestId: `req_seed_${i}`, tool: "compress_image", source: "rest",
      model: "", prompt: "", statusCode: 200, latencyMs: 120, creditsDeducted: 1, ...entry,
    });
  }
}

function rowsOf(html: string): string[] {
  const table = /<table data-testid="usage">([\s\S]*?)<\/table>/.exec(html);
  if (!table) return [];
  return [...table[1]!.matchAll(/<tr data-request-id="([^"]+)">/g)].map((match) => match[1]!);
}

describe("usage page", () => {
  it("shows a long prompt's first 100 characters in its row, the whole behind a disclosure", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    const long = "a very long prompt about kites. ".repeat(130).slice(0, 4100);
    await seed(id, [{ prompt: long, requestId: "req_long", statusCode: 400, creditsDeducted: 0 }, { prompt: "short one", requestId: "req_short" }]);
    const html = await (await browser.get("/dashboard/usage")).text();
    const cell = /<td class="prompt" data-testid="long-prompt">([\s\S]*?)<\/td>/.exec(html)![1]!;
    const [shown] = cell.split("<details>");
    expect(shown).toBe(`${long.slice(0, 100)}…`);
    expect(visibleText(cell)).toContain("All 4,100 characters");
    expect(cell).toContain(long);
    expect(html).toContain('<td class="prompt">short one</td>');
  });

  it("shows an empty state, then a real API call with its tool, status and cost", async () => {
    const browser = new TestBrowser();
    const email = await signUpIn(browser);
    expect(visibleText(await (await browser.get("/dashboard/usage")).text())).toContain("No calls yet.");

    const created = await browser.submitAndFollow("/dashboard/keys", "/dashboard/keys", { name: "usage" });
    const secret = /value="(pg_[^"]+)"/.exec(await created.text())![1]!;
    const response = await postTool("/v1/text-to-svg", secret, { prompt: "a small sun", model: "local-svg-v1" });
    expect(response.status).toBe(200);
    const requestId = response.headers.get("X-Request-Id")!;

    const html = await (await browser.get("/dashboard/usage")).text();
    expect(rowsOf(html)).toEqual([requestId]);
    const row = new RegExp(`<tr data-request-id="${requestId}">([\\s\\S]*?)</tr>`).exec(html)![1]!;
    const text = visibleText(row);
    expect(text).toContain("text_to_svg");
    expect(text).toContain("200 OK");
    expect(text).toContain(" 5 ");
    expect(text).toContain("a small sun");
    expect(text).toContain(secret.slice(0, 12));
    expect(await accountIdOf(email, env.DB)).toMatch(/^acct_/);
  });

  it("filters by tool, status, source and date, and pages 25 at a time", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    await seed(id, [
      ...Array.from({ length: 27 }, (_, i) => ({ requestId: `req_bulk_${i}`, createdAt: daysAgo(1, 0) .replace(/T.*/, `T10:${String(i).padStart(2, "0")}:00.000Z`) })),
      { requestId: "req_mcp_fail", tool: "generate_image", source: "mcp", statusCode: 502, errorCode: "provider_error", creditsDeducted: 2, creditsRefunded: 2, createdAt: daysAgo(3) },
      { requestId: "req_cli_old", tool: "upscale_image", source: "cli", statusCode: 200, creditsDeducted: 15, createdAt: daysAgo(10) },
      { requestId: "req_bad_input", tool: "convert_format", statusCode: 400, creditsDeducted: 0, createdAt: daysAgo(2) },
    ]);

    const first = await (await browser.get("/dashboard/usage")).text();
    expect(rowsOf(first)).toHaveLength(25);
    expect(rowsOf(first)[0]).toBe("req_bulk_26");
    expect(visibleText(first)).toContain("30 calls, newest first");
    expect(visibleText(first)).toContain("Page 1 of 2");
    const second = await (await browser.get("/dashboard/usage?page=2")).text();
    expect(rowsOf(second)).toEqual(["req_bulk_1", "req_bulk_0", "req_bad_input", "req_mcp_fail", "req_cli_old"]);

    const only = async (query: string) => rowsOf(await (await browser.get(`/dashboard/usage?${query}`)).text());
    expect(await only("tool=generate_image")).toEqual(["req_mcp_fail"]);
    expect(await only("source=cli")).toEqual(["req_cli_old"]);
    expect(await only("status=failed")).toEqual(["req_bad_input", "req_mcp_fail"]);
    expect(await only("status=502")).toEqual(["req_mcp_fail"]);
    const failed = new RegExp(`<tr data-request-id="req_mcp_fail">([\\s\\S]*?)</tr>`).exec(await (await browser.get("/dashboard/usage?status=502")).text())![1]!;
    expect(visibleText(failed)).toContain("provider_error"); // the error code beside the status line
    expect(await only(`from=${daysAgo(10).slice(0, 10)}&to=${daysAgo(3).slice(0, 10)}`)).toEqual(["req_mcp_fail", "req_cli_old"]);
    expect(await only("status=success&tool=upscale_image")).toEqual(["req_cli_old"]);
    const none = await (await browser.get("/dashboard/usage?tool=edit_image")).text();
    expect(visibleText(none)).toContain("No calls match these filters.");
    // Values that are not on offer are ignored rather than breaking the page.
    expect(await only("tool=drop table&status=abc&from=yesterday")).toHaveLength(25);
  });

  it("exports the filtered log as CSV, with formulas in prompts defused", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    await seed(id, [
      { requestId: "req_csv_1", tool: "generate_image", prompt: '=HYPERLINK("http://evil")', creditsDeducted: 2, createdAt: daysAgo(1) },
      { requestId: "req_csv_3", tool: "generate_image", statusCode: 402, errorCode: "insufficient_credits", createdAt: daysAgo(2) },
      { requestId: "req_csv_2", tool: "compress_image", prompt: "a, b \"quoted\"", createdAt: daysAgo(0, 1) },
    ]);
    const response = await browser.get("/dashboard/usage.csv?tool=generate_image");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="pixelgate-usage-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await response.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("createdAt,tool,source,status,errorCode,model,creditsDeducted,creditsRefunded,latency,keyPrefix,requestId,prompt,id");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(",generate_image,rest,200,,,2,0,0.12s,pg_seededKey,req_csv_1,");
    expect(lines[2]).toContain(",generate_image,rest,402,insufficient_credits,");
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"")"`);
    const all = (await (await browser.get("/dashboard/usage.csv")).text()).trimEnd().split("\r\n");
    expect(all).toHaveLength(4);
    expect(all[1]).toContain(`"a, b ""quoted"""`);
  });
});

describe("spend chart", () => {
  it("draws one bar per day for 30 days: credits taken minus refunds, older entries left out", async () => {
    const browser = new TestBrowser();
    const id = await accountIdOf(await signUpIn(browser), env.DB);
    await seed(id, [
      { creditsDeducted: 15, createdAt: daysAgo(0, 1) },
      { creditsDeducted: 2, createdAt: daysAgo(0, 2) },
      { creditsDeducted: 8, creditsRefunded: 8, createdAt: daysAgo(5) },
      { creditsDeducted: 5, createdAt: daysAgo(29) },
      { creditsDeducted: 100, createdAt: daysAgo(30) },
    ]);
    const html = await (await browser.get("/dashboard")).text();
    const bars = [...html.matchAll(/<rect class="bar-rect" data-day="([^"]+)" data-credits="(\d+)"[^>]*height="([\d.]+)"/g)].map((m) => ({ day: m[1]!, credits: Number(m[2]), height: Number(m[3]) }));
    expect(bars).toHaveLength(30);
    expect(bars[29]).toMatchObject({ day: daysAgo(0).slice(0, 10), credits: 17 });
    expect(bars[0]).toMatchObject({ day: daysAgo(29).slice(0, 10), credits: 5 });
    expect(bars[24]).toMatchObject({ day: daysAgo(5).slice(0, 10), credits: 0 });
    expect(bars.reduce((sum, bar) => sum + bar.credits, 0)).toBe(22);
    // Heights are proportional: 17 is the tallest bar, 5 is 5/17 of it.
    expect(bars[0]!.height / bars[29]!.height).toBeCloseTo(5 / 17, 2);
    expect(visibleText(html)).toContain("22 credits spent in the last 30 days.");
  });
});
