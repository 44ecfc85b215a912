import { createRoute, z } from "@hono/zod-openapi";
import { ledgerOf } from "../accounts/ledger";
import { closeAccount, revokeKey } from "../accounts/lifecycle";
import {
  createAccount,
  createApiKey,
  findAccount,
  listApiKeys,
  PLANS,
  PROVIDERS,
  type ApiKeyRecord,
} from "../accounts/repository";
import { randomBase62 } from "../ids/random";
import { requireAdmin } from "../auth/admin";
import { fail } from "../http/envelope";
import { requireJsonBody } from "../http/json-body";
import { newRouter } from "../http/router";
import { updateModel } from "../models/catalog";
import { ADMIN_SECURITY, errorResponses, jsonOk } from "../schemas/common";
import { ModelEntry, User, modelEntryOf, userOf } from "../schemas/resources";

// Operator API: accounts, credits, keys, models. Bearer ADMIN_TOKEN.

const ADMIN_ERRORS = ["missing_api_key", "invalid_api_key"] as const;

const KeySummary = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    revokedAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
  })
  .openapi("ApiKey");

function keySummary(key: ApiKeyRecord): z.infer<typeof KeySummary> {
  return { id: key.id, name: key.name, prefix: key.prefix, createdAt: key.createdAt, revokedAt: key.revokedAt, lastUsedAt: key.lastUsedAt };
}

const AccountId = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

function adminRoute<const R extends Omit<Parameters<typeof createRoute>[0], "security" | "middleware" | "tags">>(route: R) {
  return createRoute({ ...route, tags: ["Operator"], security: ADMIN_SECURITY, middleware: [requireAdmin, requireJsonBody] as const });
}

const createAccountRoute = adminRoute({
  method: "post",
  path: "/admin/v1/accounts",
  summary: "Create an account",
  request: {
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            name: z.string().trim().min(1).max(200),
            email: z.string().trim().email().max(320),
            provider: z.enum(PROVIDERS).default("local"),
            plan: z.enum(PLANS).default("free"),
            credits: z.number().int().min(0).max(1_000_000_000).default(0),
          }),
        },
      },
    },
  },
  responses: {
    201: jsonOk(z.object({ success: z.literal(true), account: User }), "The new account.", false),
    ...errorResponses("missing_parameter", "invalid_parameter", ...ADMIN_ERRORS),
  },
});

const LedgerBacklog = z
  .object({
    openHolds: z.number().int().openapi({ description: "Calls charged and still running (or lost, until their deadline settles them)." }),
    undeliveredEntries: z.number().int().openapi({ description: "Usage-log entries written by the ledger and not yet confirmed in D1." }),
  })
  .openapi("LedgerBacklog");

const getAccountRoute = adminRoute({
  method: "get",
  path: "/admin/v1/accounts/{id}",
  summary: "An account with its keys",
  request: { params: AccountId },
  responses: {
    200: jsonOk(z.object({ success: z.literal(true), account: User.extend({ keys: z.array(KeySummary), ledger: LedgerBacklog }) }), "The account.", false),
    ...errorResponses("not_found", ...ADMIN_ERRORS),
  },
});

const deleteAccountRoute = adminRoute({
  method: "delete",
  path: "/admin/v1/accounts/{id}",
  summary: "Delete an account (its keys then answer 404 account_not_found)",
  request: { params: AccountId },
  responses: {
    200: jsonOk(z.object({ success: z.literal(true), id: z.string() }), "Deleted.", false),
    ...errorResponses("not_found", ...ADMIN_ERRORS),
  },
});

const grantRoute = adminRoute({
  method: "post",
  path: "/admin/v1/accounts/{id}/credits",
  summary: "Grant (or, with a negative amount, debit) credits",
  request: {
    params: AccountId,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({
            amount: z.number().int().min(-1_000_000_000).max(1_000_000_000),
            reason: z.string().max(500).default(""),
          }),
        },
      },
    },
  },
  responses: {
    200: jsonOk(z.object({ success: z.literal(true), credits: z.number().int() }), "The new balance.", false),
    ...errorResponses("missing_parameter", "invalid_parameter", "not_found", ...ADMIN_ERRORS),
  },
});

const createKeyRoute = adminRoute({
  method: "post",
  path: "/admin/v1/accounts/{id}/keys",
  summary: "Create an API key (the full secret is returned only here)",
  request: {
    params: AccountId,
    body: {
      required: true,
      content: { "application/json": { schema: z.object({ name: z.string().trim().min(1).max(100).default("default") }) } },
    },
  },
  responses: {
    201: jsonOk(z.object({ success: z.literal(true), key: KeySummary, secret: z.string() }), "The key and its secret.", false),
    ...errorResponses("invalid_parameter", "not_found", ...ADMIN_ERRORS),
  },
});

const revokeKeyRoute = adminRoute({
  method: "delete",
  path: "/admin/v1/keys/{id}",
  summary: "Revoke an API key (effective on the next request)",
  request: { params: AccountId },
  responses: {
    200: jsonOk(z.object({ success: z.literal(true), key: KeySummary }), "The revoked key.", false),
    ...errorResponses("not_found", ...ADMIN_ERRORS),
  },
});

const updateModelRoute = adminRoute({
  method: "patch",
  path: "/admin/v1/models/{modelId}",
  summary: "Change a model's availability, cost, priority or retirement",
  request: {
    params: z.object({ modelId: z.string().openapi({ param: { name: "modelId", in: "path" } }) }),
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              isLive: z.boolean().optional(),
              costPerReq: z.number().int().min(0).max(100_000).nullable().optional(),
              priority: z.number().int().min(-1_000_000).max(1_000_000).optional(),
              retiresAt: z.iso.date().nullable().optional().openapi({ description: "The UTC day (YYYY-MM-DD) from which the model is retired; null clears it." }),
              replacedBy: z.string().min(1).max(200).nullable().optional().openapi({ description: "The model id (same task) that serves calls naming this model once it is retired; null clears it." }),
            })
            .refine((body) => Object.values(body).some((value) => value !== undefined), {
              message: "give at least one of isLive, costPerReq, priority, retiresAt, replacedBy",
            }),
        },
      },
    },
  },
  responses: {
    200: jsonOk(z.object({ success: z.literal(true), model: ModelEntry }), "The updated model.", false),
    ...errorResponses("invalid_parameter", "not_found", ...ADMIN_ERRORS),
  },
});

async function existingAccount(db: D1Database, id: string) {
  return (await findAccount(db, id)) ?? fail("not_found", `No account ${id}.`, { param: "id" });
}

export const adminRoutes = newRouter()
  .openapi(createAccountRoute, async (c) => {
    const input = c.req.valid("json");
    const account = await createAccount(c.env.DB, input);
    return c.json({ success: true as const, account: userOf(account, input.credits) }, 201);
  })
  .openapi(getAccountRoute, async (c) => {
    const account = await existingAccount(c.env.DB, c.req.valid("param").id);
    const ledger = ledgerOf(c.env, account.id);
    const [{ balance }, backlog, keys] = await Promise.all([ledger.snapshot(), ledger.backlog(), listApiKeys(c.env.DB, account.id)]);
    return c.json({ success: true as const, account: { ...userOf(account, balance), keys: keys.map(keySummary), ledger: backlog } }, 200);
  })
  .openapi(deleteAccountRoute, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await closeAccount(c.env, id))) fail("not_found", `No account ${id}.`, { param: "id" });
    return c.json({ success: true as const, id }, 200);
  })
  .openapi(grantRoute, async (c) => {
    const account = await existingAccount(c.env.DB, c.req.valid("param").id);
    const { amount, reason } = c.req.valid("json");
    const outcome = await ledgerOf(c.env, account.id).grant(amount);
    if (!outcome.ok) {
      fail("invalid_parameter", `A debit of ${-amount} would take the balance of ${outcome.balance} below zero.`, {
        param: "amount",
        details: { currentCredits: outcome.balance },
      });
    }
    await c.env.DB.prepare("INSERT INTO credit_grants (id, account_id, amount, reason, balance, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .bind("grant_" + randomBase62(20), account.id, amount, reason, outcome.balance, new Date().toISOString())
      .run();
    return c.json({ success: true as const, credits: outcome.balance }, 200);
  })
  .openapi(createKeyRoute, async (c) => {
    const account = await existingAccount(c.env.DB, c.req.valid("param").id);
    const { key, secret } = await createApiKey(c.env.DB, account.id, c.req.valid("json").name);
    return c.json({ success: true as const, key: keySummary(key), secret }, 201);
  })
  .openapi(revokeKeyRoute, async (c) => {
    const { id } = c.req.valid("param");
    const key = (await revokeKey(c.env, id)) ?? fail("not_found", `No key ${id}.`, { param: "id" });
    return c.json({ success: true as const, key: keySummary(key) }, 200);
  })
  .openapi(updateModelRoute, async (c) => {
    const { modelId } = c.req.valid("param");
    const model = (await updateModel(c.env, modelId, c.req.valid("json"))) ?? fail("not_found", `No model ${modelId}.`, { param: "modelId" });
    return c.json({ success: true as const, model: modelEntryOf(model) }, 200);
  });
