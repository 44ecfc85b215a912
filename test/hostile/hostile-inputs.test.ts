import { describe, it, type ExpectStatic } from "vitest";
import { FORMAT_INFO, type ImageFormat } from "../../src/codecs/index.ts";
import { newAccount, type TestAccount } from "../support/fixtures";
import { balanceOf, bytesOfDataUri, dataUriOf, fetchHosted, postTool, usageRows } from "../support/tool-calls";
import { ascii, buildCorpus, sourceImage, type AcceptedCase, type CaseGroup, type HostileCase } from "./corpus.ts";

// The hostile-input corpus (corpus.ts, also written to disk by generate-corpus.ts) against the
// image tools, through the real worker, ledger and usage log. For every hostile case and every
// endpoint: a 4xx in the error envelope with the expected code, the balance unchanged, exactly one
// usage-log entry for the call with that status and nothing kept (deducted - refunded = 0), and
// the worker still serving a valid request on the same key right after. Accepted cases are
// odd-but-valid inputs: 200, one credit, and nothing smuggled survives into the output.
//
// Cases run concurrently (vitest's maxConcurrency, 5 at a time), each on its own account.

const corpus = await buildCorpus();

const V1_PATHS = ["/v1/compress", "/v1/convert-format"] as const;
const PLAYGROUND_PATH = "/playground/convert-format";
/** The targets each convert-format family offers (src/tools/convert-format.ts). */
const CONVERT_TARGETS: Record<string, readonly ImageFormat[]> = {
  "/v1/convert-format": ["png", "jpeg", "webp", "gif", "tiff", "avif"],
  [PLAYGROUND_PATH]: ["png", "jpeg", "webp", "gif", "bmp"],
};
const TOOL_OF: Record<string, string> = {
  "/v1/compress": "compress_image",
  "/v1/convert-format": "convert_format",
  [PLAYGROUND_PATH]: "convert_format",
};
const CREDITS = 10;
/** No refusal may take longer than this: a hostile input must not buy seconds of worker time. */

/** The playground path runs the first three cases of every group (the error path is shared). */
const PLAYGROUND_SUBSET = new Set(
  (Object.entries(Object.groupBy(corpus.hostile, (c) => c.group)) as [CaseGroup, HostileCase[]][]).flatMap(([, cases]) => cases.slice(0, 3).map((c) => c.name)),
);

const VALID_IMAGE = await dataUriOf(sourceImage(16, 12), "png");

interface Answer {
  status: number;
  requestId: string | null;
  elapsedMs: number;
  body: Record<string, any>;
}

/** convert-format is asked for PNG explicitly: without a target, a PNG input is refused. */
function targetOf(path: string): Record<string, string> {
  return path.endsWith("/convert-format") ? { targetFormat: "png" } : {};
}

async function send(account: TestAccount, path: string, image: string): Promise<Answer> {
  return sendBody(account, path, { image, ...targetOf(path) });
}

async function sendBody(account: TestAccount, path: string, requestBody: Record<string, unknown>): Promise<Answer> {
  const started = Date.now();
  const response = await postTool(path, account.key, requestBody);
  const raw = await response.text();
  const elapsedMs = Date.now() - started;
  let body: Record<string, any>;
  try {
    body = JSON.parse(raw) as Record<string, any>;
  } catch {
    body = { unparsable: raw.slice(0, 200) };
  }
  return { status: response.status, requestId: response.headers.get("X-Request-Id"), elapsedMs, body };
}

/** What a failure message shows of a response: enough to see what came back instead. */
function shown(path: string, answer: Answer): string {
  const result = answer.body.result as Record<string, unknown> | undefined;
  const summary = result ? { ...answer.body, result: Object.fromEntries(Object.entries(result).map(([k, v]) => [k, typeof v === "string" && v.length > 80 ? `${v.slice(0, 80)}...` : v])) } : answer.body;
  return `${path} answered ${answer.status} in ${answer.elapsedMs} ms: ${JSON.stringify(summary).slice(0, 600)}`;
}

/** The usage-log entry written for this one call (there must be exactly one). */
async function logEntryOf(expect: ExpectStatic, account: TestAccount, answer: Answer) {
  expect(answer.requestId, "X-Request-Id").toMatch(/\S/);
  const rows = (await usageRows(account.id)).filter((row) => row.request_id === answer.requestId);
  expect(rows, `usage-log entries for request ${answer.requestId}`).toHaveLength(1);
  return rows[0]!;
}

/** The worker is still up and the key still works: a valid image on the same path, 1 credit. */
async function expectStillServing(expect: ExpectStatic, account: TestAccount, path: string, balanceBefore: number): Promise<number> {
  const answer = await send(account, path, VALID_IMAGE);
  expect(answer.status, shown(path, answer)).toBe(200);
  expect(answer.body).toMatchObject({ success: true, deductedCredits: 1, userCredits: balanceBefore - 1 });
  expect(await balanceOf(account.id)).toBe(balanceBefore - 1);
  return balanceBefore - 1;
}

interface Refusal {
  status: number;
  code: string | string[];
  /** The request field the error must name. */
  param: string;
  /** Refused in prepare: the log entry shows nothing deducted, rather than a refund. */
  beforeCharge?: true;
}

async function expectRefused(
  expect: ExpectStatic,
  account: TestAccount,
  path: string,
  requestBody: Record<string, unknown>,
  refusal: Refusal,
  balanceBefore: number,
): Promise<void> {
  const answer = await sendBody(account, path, requestBody);
  const codes = [refusal.code].flat();
  const error = answer.body.error as Record<string, unknown> | undefined;
  expect({ status: answer.status, type: error?.type, code: error?.code, param: error?.param }, shown(path, answer)).toEqual({
    status: refusal.status,
    type: "invalid_request_error",
    code: expect.toBeOneOf(codes),
    param: refusal.param,
  });
  expect(answer.body.success).toBe(false);
  expect(answer.body.message).toEqual(expect.stringMatching(/\S/));
  expect(Object.keys(error ?? {}).sort()).toEqual(["code", "docs", "message", "param", "type"]);

  expect(await balanceOf(account.id), `balance after ${path}`).toBe(balanceBefore);
  const row = await logEntryOf(expect, account, answer);
  expect({ tool: row.tool, status: row.status_code, kept: row.credits_deducted - row.credits_refunded }).toEqual({
    tool: TOOL_OF[path],
    status: refusal.status,
    kept: 0,
  });
  if (refusal.beforeCharge) expect(row.credits_deducted, "credits deducted (refused after the charge?)").toBe(0);
}

describe("the hostile-input corpus", () => {
  it("holds at least 40 uniquely named hostile cases covering every kind of hostile input, each with a 4xx", ({ expect }) => {
    const names = [...corpus.hostile, ...corpus.accepted].map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(corpus.hostile.length).toBeGreaterThanOrEqual(40);
    const groups = new Set(corpus.hostile.map((c) => c.group));
    for (const group of ["empty", "random", "signature-only", "truncated", "wrong-magic", "polyglot", "bomb", "malformed-header", "base64", "svg", "url"] as const) {
      expect(groups, `a ${group} case`).toContain(group);
    }
    for (const c of corpus.hostile) {
      expect(c.expect.status, c.name).toBeGreaterThanOrEqual(400);
      expect(c.expect.status, c.name).toBeLessThan(500);
      expect(c.why.length, c.name).toBeGreaterThan(10);
    }
    // Truncations of every format the service reads.
    for (const format of ["png", "jpeg", "webp", "avif", "gif", "tiff", "bmp"]) {
      expect(corpus.hostile.filter((c) => c.name.startsWith(`truncated-${format}-`)).length, format).toBeGreaterThanOrEqual(2);
    }
  });

  it("is deterministic: a second build gives byte-identical inputs", async ({ expect }) => {
    const again = await buildCorpus();
    const digest = async (cases: { name: string; image: string }[]) =>
      Promise.all(cases.map(async (c) => `${c.name}:${new Uint8Array(await crypto.subtle.digest("SHA-256", ascii(c.image))).join(",")}`));
    expect(await digest([...again.hostile, ...again.accepted])).toEqual(await digest([...corpus.hostile, ...corpus.accepted]));
  });
});

describe.concurrent("hostile inputs are refused with a 4xx, free, logged, and the worker keeps serving", () => {
  for (const c of corpus.hostile) {
    const codes = [c.expect.code].flat().join(" | ");
    const target = c.target;
    const paths = target
      ? Object.keys(CONVERT_TARGETS).filter((path) => CONVERT_TARGETS[path]!.includes(target))
      : [...V1_PATHS, ...(PLAYGROUND_SUBSET.has(c.name) ? [PLAYGROUND_PATH] : [])];
    const sent = (path: string) => (target ? { targetFormat: target } : targetOf(path));
    const param = target ? "targetFormat" : "image";
    it(`${c.group} / ${c.name}${target ? ` to ${target}` : ""} -> ${c.expect.status} ${codes}`, { timeout: 60_000 }, async ({ expect }) => {
      const account = await newAccount({ credits: CREDITS });
      let balance = CREDITS;
      for (const path of paths) {
        await expectRefused(expect, account, path, { image: c.image, ...sent(path) }, { ...c.expect, param, beforeCharge: c.beforeCharge }, balance);
        balance = await expectStillServing(expect, account, path, balance);
      }
      // Resized, the same input is read by the resize routes (src/codecs/resize.ts) and refused alike.
      const resized = target ? 0 : 1;
      if (resized) {
        await expectRefused(expect, account, "/v1/compress", { image: c.image, width: 8 }, { ...c.expect, param, beforeCharge: c.beforeCharge }, balance);
      }
      // One log entry per call, hostile and valid alike; nothing else happened to the account.
      expect((await usageRows(account.id)).length).toBe(paths.length * 2 + resized);
    });
  }
});

// The rest of "bad input costs nothing": requests whose image (or target) is wrong before any
// bytes are looked at. Same rules: 4xx, free, logged, and the key keeps working.
describe.concurrent("a missing or mistyped image and an unsupported target are refused the same way", () => {
  const cases: [name: string, path: string, body: Record<string, unknown>, refusal: Refusal][] = [
    ["no image field", "/v1/compress", { quality: 50 }, { status: 400, code: "missing_parameter", param: "image" }],
    // null reads as "not sent" in src/images/input.ts but the request schema refuses it first; either answer is a free 400.
    ["image null", "/v1/convert-format", { image: null, targetFormat: "webp" }, { status: 400, code: ["missing_parameter", "invalid_parameter"], param: "image" }],
    ["image is a number", "/v1/compress", { image: 12345 }, { status: 400, code: "invalid_parameter", param: "image" }],
    ["image is an object", "/v1/convert-format", { image: { url: "https://images.pixelgate.test/photo.png" } }, { status: 400, code: "invalid_parameter", param: "image" }],
    ["SVG target on /v1", "/v1/convert-format", { targetFormat: "svg" }, { status: 400, code: "invalid_parameter", param: "targetFormat" }],
    ["BMP target on /v1 (playground only)", "/v1/convert-format", { targetFormat: "bmp" }, { status: 400, code: "invalid_parameter", param: "targetFormat" }],
    ["TIFF target on the playground (/v1 only)", PLAYGROUND_PATH, { targetFormat: "tiff" }, { status: 400, code: "invalid_parameter", param: "targetFormat" }],
    ["GIF target for compress", "/v1/compress", { targetFormat: "gif" }, { status: 400, code: "invalid_parameter", param: "targetFormat" }],
  ];
  for (const [name, path, body, refusal] of cases) {
    it(`${name} on ${path} -> ${refusal.status} ${[refusal.code].flat().join(" | ")}`, async ({ expect }) => {
      const account = await newAccount({ credits: CREDITS });
      // Target cases send a valid image, so the target alone is what is refused.
      const requestBody = "image" in body || "imageBase64" in body || !("targetFormat" in body) ? body : { image: VALID_IMAGE, ...body };
      await expectRefused(expect, account, path, requestBody, refusal, CREDITS);
      await expectStillServing(expect, account, path, CREDITS);
      expect((await usageRows(account.id)).length).toBe(2);
    });
  }
});

// Sequential, so the time budgets of the "deep" inputs measure the input and not its neighbours.
describe("odd but valid inputs are accepted: 200, one credit, nothing smuggled survives", () => {
  for (const c of corpus.accepted) {
    it(`${c.group} / ${c.name} -> 200`, { timeout: 60_000 }, async ({ expect }) => {
      const account = await newAccount({ credits: CREDITS });
      let balance = CREDITS;
      for (const path of V1_PATHS) {
        const answer = await send(account, path, c.image);
        expect(answer.status, shown(path, answer)).toBe(200);
        expect(answer.body).toMatchObject({ success: true, deductedCredits: 1, userCredits: balance - 1 });
        balance -= 1;
        expect(await balanceOf(account.id)).toBe(balance);
        const row = await logEntryOf(expect, account, answer);
        expect({ status: row.status_code, deducted: row.credits_deducted, refunded: row.credits_refunded }).toEqual({ status: 200, deducted: 1, refunded: 0 });

        const output = await outputOf(expect, path, answer, c);
        for (const payload of c.mustNotSurvive ?? []) expect(containsAscii(output, payload), `${payload} in the output of ${path}`).toBe(false);
      }
    });
  }
});

/** The re-encoded file: compress returns it inline, convert-format (to PNG) hosts it. */
async function outputOf(expect: ExpectStatic, path: string, answer: Answer, c: AcceptedCase): Promise<Uint8Array> {
  const result = answer.body.result as Record<string, string>;
  if (path === "/v1/compress") return bytesOfDataUri(result.image!).bytes;
  expect(result.originalFormat).toBe(c.expect.originalFormat);
  return fetchHosted(result.imageUrl!, FORMAT_INFO.png.mime);
}

function containsAscii(haystack: Uint8Array, needle: string): boolean {
  const n = ascii(needle);
  outer: for (let i = 0; i + n.length <= haystack.length; i++) {
    for (let j = 0; j < n.length; j++) if (haystack[i + j] !== n[j]) continue outer;
    return true;
  }
  return false;
}
