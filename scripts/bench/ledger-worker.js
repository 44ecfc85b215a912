// @ts-check
// Bench-only worker (scripts/bench/wrangler.ledger.toml): exposes the real AccountLedger class
// and a few loopback endpoints that drive ONE account's ledger over RPC from inside workerd, so
// the figure is the Durable Object's own rate, without the HTTP gateway in front of it.
//
// JavaScript rather than TypeScript on purpose: tsconfig.node.json type-checks scripts/ as Node
// code, and this file (with the ledger it imports) is Workers code. The JSDoc types below are
// still checked by editors and by a one-off `tsc --checkJs` with the Workers types.
//
//   GET  /health                         the ledger's window constants
//   POST /setup?account=&opening=&grant= D1 account row, first touch, then a grant
//   POST /run?account=&op=&n=&concurrency=&keys=&offset=&deadlineMs=
//        op: snapshot | reserve | settle (a whole billed call's ledger work: reserve with a hold,
//        then settle it, which writes its usage entry to the outbox and on to the queue)
//   GET  /backlog?account=                open holds and undelivered entries; D1 rows of the account
//   POST /write-usage?account=&rows=&batch=  writes `rows` synthetic entries to D1 with the queue
//        consumer's writer, `batch` rows per call (the consumer's rows/s by batch size)
import { AccountLedger, WINDOW_LIMIT, WINDOW_MS } from "../../durable-objects/account-ledger.ts";
import { deliverUsage, writeUsage } from "../../src/usage/delivery.ts";

export { AccountLedger };

/** @typedef {{ DB: D1Database; LEDGER: DurableObjectNamespace<AccountLedger>; USAGE_QUEUE: Queue }} BenchEnv */
/** @typedef {"reserve" | "snapshot" | "settle"} Op */

/** @param {URL} url @param {string} name @param {number} max */
function intParam(url, name, max) {
  const value = Number(url.searchParams.get(name));
  if (!Number.isSafeInteger(value) || value < 0 || value > max) throw new RangeError(`${name} must be an integer 0..${max}`);
  return value;
}

/** @param {URL} url */
function accountParam(url) {
  const account = url.searchParams.get("account") ?? "";
  if (!/^acct_[A-Za-z0-9_]{1,60}$/.test(account)) throw new RangeError("account must look like acct_...");
  return account;
}

/**
 * Creates the account row, so the ledger's first touch really reads its opening balance from D1.
 * @param {BenchEnv} env @param {string} account @param {number} opening @param {number} grant
 */
async function setup(env, account, opening, grant) {
  await env.DB.prepare("INSERT INTO accounts (id, name, email, provider, plan, opening_credits, created_at) VALUES (?, ?, ?, 'local', 'free', ?, ?)")
    .bind(account, "Ledger bench", `${account}@ledger-bench.invalid`, opening, new Date().toISOString())
    .run();
  const ledger = env.LEDGER.getByName(account);
  const { balance: openingSeen } = await ledger.snapshot();
  const granted = await ledger.grant(grant);
  return { openingSeen, balanceAfterGrant: granted.balance };
}

/**
 * `n` calls with `concurrency` in flight, key ids rotating over `keys` starting at `offset` (the
 * caller picks `keys` so no id takes more than WINDOW_LIMIT slots). Counts every outcome so the
 * caller can check them. elapsedMs is workerd's clock, which only moves on outside I/O: the
 * caller times the request itself as well.
 * @param {BenchEnv} env @param {string} account @param {Op} op @param {number} n
 * @param {number} concurrency @param {number} keys @param {number} offset @param {number} deadlineMs
 */
async function run(env, account, op, n, concurrency, keys, offset, deadlineMs) {
  const ledger = env.LEDGER.getByName(account);
  const counts = { ok: 0, rateLimited: 0, insufficient: 0 };
  let next = 0;
  let stoppedEarly = false;
  const started = Date.now();

  async function lane() {
    while (next < n) {
      if (Date.now() - started > deadlineMs) {
        stoppedEarly = true;
        return;
      }
      const keyId = `bench_key_${(offset + next++) % keys}`;
      if (op === "snapshot") {
        await ledger.snapshot(keyId);
        counts.ok++;
        continue;
      }
      if (op === "settle") {
        const id = `log_bench_${account}_${offset}_${next}`;
        const draft = { id, requestId: `req_${id}`, keyPrefix: "pg_benchkey0", tool: "compress_image", source: /** @type {const} */ ("rest"), model: "", prompt: "", startedAt: Date.now() };
        const held = await ledger.reserve({ keyId, slots: 1, credits: 1, usage: { holds: [{ ...draft, credits: 1 }], refused: [], onRefusal: draft } });
        if (!held.ok) {
          if (held.reason === "rate_limited") counts.rateLimited++;
          else counts.insufficient++;
          continue;
        }
        const settled = await ledger.settle(id, { statusCode: 200, refundCredits: 0, latencyMs: 1 });
        if (settled.settled) counts.ok++;
        continue;
      }
      const outcome = await ledger.reserve({ keyId, slots: 1, credits: 1 });
      if (outcome.ok) counts.ok++;
      else if (outcome.reason === "rate_limited") counts.rateLimited++;
      else counts.insufficient++;
    }
  }

  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, lane));
  const elapsedMs = Date.now() - started;
  const { balance } = await ledger.snapshot();
  return { op, completed: counts.ok + counts.rateLimited + counts.insufficient, ...counts, elapsedMs, stoppedEarly, balanceAfter: balance };
}

/**
 * @param {BenchEnv} env @param {string} account @param {number} rows @param {number} batch
 */
async function writeSynthetic(env, account, rows, batch) {
  const startedAt = new Date().toISOString();
  for (let start = 0; start < rows; start += batch) {
    const entries = Array.from({ length: Math.min(batch, rows - start) }, (_, i) => {
      const id = `log_w_${account}_${start + i}`;
      return {
        id, accountId: account, seq: start + i + 1, requestId: `req_${id}`, keyPrefix: "pg_benchkey0", tool: "generate_image",
        source: /** @type {const} */ ("rest"), model: "local-draw-v1", prompt: "a lighthouse at night, flat style, seen from the sea",
        statusCode: 200, latencyMs: 850, creditsDeducted: 15, creditsRefunded: 0, interrupted: false, createdAt: startedAt,
      };
    });
    await writeUsage(env.DB, entries);
  }
  return { rows, batch };
}

/** @param {BenchEnv} env @param {string} account */
async function backlog(env, account) {
  const counted = await env.DB.prepare("SELECT COUNT(*) AS n FROM usage_log WHERE account_id = ?").bind(account).first();
  return { ...(await env.LEDGER.getByName(account).backlog()), rowsInD1: Number(counted?.n ?? 0) };
}

/** @param {Request} request @param {BenchEnv} env */
async function route(request, env) {
  const url = new URL(request.url);
  if (url.pathname === "/health") return { windowLimit: WINDOW_LIMIT, windowMs: WINDOW_MS };
  if (url.pathname === "/backlog") return backlog(env, accountParam(url));
  if (request.method !== "POST") return null;
  const account = accountParam(url);
  switch (url.pathname) {
    case "/setup":
      return setup(env, account, intParam(url, "opening", 1e9), intParam(url, "grant", 1e9));
    case "/run": {
      const op = url.searchParams.get("op");
      if (op !== "reserve" && op !== "snapshot" && op !== "settle") throw new RangeError("op must be reserve, snapshot or settle");
      const concurrency = Math.max(1, intParam(url, "concurrency", 1000));
      const keys = Math.max(1, intParam(url, "keys", 1e6));
      return run(env, account, op, intParam(url, "n", 1e6), concurrency, keys, intParam(url, "offset", 1e9), intParam(url, "deadlineMs", 600_000));
    }
    case "/write-usage":
      return writeSynthetic(env, account, Math.max(1, intParam(url, "rows", 1e6)), Math.max(1, intParam(url, "batch", 1e4)));
  }
  return null;
}

export default {
  queue: deliverUsage,
  /** @param {Request} request @param {BenchEnv} env */
  async fetch(request, env) {
    try {
      const body = await route(request, env);
      return body === null ? new Response("not found", { status: 404 }) : Response.json(body);
    } catch (err) {
      return Response.json({ error: err instanceof Error ? (err.stack ?? err.message) : String(err) }, { status: 500 });
    }
  },
};
