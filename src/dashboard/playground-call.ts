import type { Context } from "hono";
import { createApiKey, findApiKey, type Account, type ApiKeyRecord } from "../accounts/repository";
import { recordKeyUse } from "../auth/authenticate";
import { rejectCall, runBilledCall, type BilledCall, type BilledResult } from "../billing/billed-call";
import { encodeImage } from "../codecs";
import { WorkBudget } from "../codecs/fuel";
import type { AppEnv } from "../env";
import { PixelgateError } from "../errors";
import { toolContext } from "../http/tool-context";
import { validationError } from "../http/validation";
import type { PlaygroundTool } from "./playground-tools";

// A playground run: the signed-in person's form becomes the tool's /v1 request body and walks
// the one billed path (validate, screen, reserve, run, refund, log) exactly as POST /v1/<tool>
// does. The browser never holds an API key for it: the account's "Dashboard playground" key,
// made on first use with a secret nobody keeps, is the key the call is billed and logged under.

export const PLAYGROUND_KEY_NAME = "Dashboard playground";
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

export async function playgroundKeyId(db: D1Database, accountId: string): Promise<string | null> {
  const row = await db.prepare("SELECT key_id FROM playground_keys WHERE account_id = ?").bind(accountId).first<{ key_id: string }>();
  return row?.key_id ?? null;
}

/** The account's live playground key; a new one when there is none or it was revoked. */
async function playgroundKey(db: D1Database, accountId: string): Promise<ApiKeyRecord> {
  const keyId = await playgroundKeyId(db, accountId);
  const existing = keyId ? await findApiKey(db, keyId) : null;
  if (existing && !existing.revokedAt) return existing;
  const { key } = await createApiKey(db, accountId, PLAYGROUND_KEY_NAME);
  await db.prepare("INSERT OR REPLACE INTO playground_keys (account_id, key_id) VALUES (?, ?)").bind(accountId, key.id).run();
  return key;
}

let samplePicture: Promise<string> | undefined;

/** A 256 px red disc on white: something to try the image tools on without a file at hand. */
export function sampleImageDataUri(): Promise<string> {
  samplePicture ??= (async () => {
    const size = 256;
    const data = new Uint8ClampedArray(size * size * 4).fill(255);
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        if ((x - 128) ** 2 + (y - 128) ** 2 <= 80 ** 2) data.set([220, 38, 38, 255], (y * size + x) * 4);
      }
    }
    // Made while serving the request that first needs it: on a budget of its own, its pixels' encode.
    const png = await WorkBudget.forWork("codec", size * size, "png>png").run(() => encodeImage({ width: size, height: size, data }, "png"));
    return `data:image/png;base64,${toBase64(png)}`;
  })();
  return samplePicture;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Where the pictures of a form come from, besides URLs and the sample (the route keeps uploads). */
export interface PictureSources {
  /** A file uploaded with this form: kept for re-runs, given back as a data URI. */
  fresh(field: string, file: File): Promise<string>;
  /** A file kept from an earlier run of the form, by the reference the form carried. */
  kept(field: string, reference: string): Promise<string>;
}

export function dataUriOf(bytes: Uint8Array, type: string): string {
  return `data:${type.startsWith("image/") ? type : "application/octet-stream"};base64,${toBase64(bytes)}`;
}

export function checkUploadSize(field: string, size: number): void {
  if (size > MAX_UPLOAD_BYTES) throw new PixelgateError("image_too_large", "The file is larger than 20 MB.", { param: field });
}

/**
 * The request body the form describes: empty fields are left out, so the tool's defaults apply.
 * A picture is, in this order: a file chosen now, a URL typed now, the file of the last run, the sample.
 */
export async function inputOfForm(entry: PlaygroundTool, form: Record<string, string | File | (string | File)[]>, pictures: PictureSources): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = {};
  const text = (name: string): string => {
    const value = form[name];
    return typeof value === "string" ? value.trim() : "";
  };
  for (const field of entry.fields) {
    if (field.kind === "image") {
      const file = form[`${field.name}File`];
      if (file instanceof File && file.size > 0) input[field.name] = await pictures.fresh(field.name, file);
      else if (text(`${field.name}Url`)) input[field.name] = text(`${field.name}Url`);
      else if (text(`${field.name}Upload`)) input[field.name] = await pictures.kept(field.name, text(`${field.name}Upload`));
      else if (text(`${field.name}Sample`) === "on") input[field.name] = await sampleImageDataUri();
      continue;
    }
    const value = text(field.name);
    if (value === "") continue;
    input[field.name] = field.kind === "number" && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return input;
}

export type PlaygroundOutcome = { ok: true; output: BilledResult } | { ok: false; error: PixelgateError };

export async function runPlayground(c: Context<AppEnv>, account: Account, entry: PlaygroundTool, input: Record<string, unknown>): Promise<PlaygroundOutcome> {
  const key = await playgroundKey(c.env.DB, account.id);
  recordKeyUse(c, key.id);
  const call: BilledCall = {
    tool: entry.tool,
    input,
    key,
    ctx: toolContext(c, "v1", account, "rest"),
  };
  try {
    const parsed = entry.tool.input("v1").safeParse(input);
    // A body the schema refuses is a rejected call, counted and logged at no charge, like REST.
    if (!parsed.success) throw await rejectCall(call, validationError({ success: false, error: parsed.error, data: input }));
    return { ok: true, output: await runBilledCall({ ...call, input: parsed.data }) };
  } catch (error) {
    if (error instanceof PixelgateError) return { ok: false, error };
    throw error;
  }
}
