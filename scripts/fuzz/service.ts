// The service `npm run fuzz` sends its mutants to: the worker in workerd (`wrangler dev` on a
// bundle built once, scripts/stress/worker.ts), one account with credits to spare, and keys made
// as the 60-per-60-s window of the last one fills. Also the workerd process's resident memory,
// sampled while a call runs.
import { readdirSync, readFileSync } from "node:fs";
import { admin, createAccount, ledgerBalance, newKey, type Account } from "../stress/accounts.ts";
import { startWorker, type StressWorker } from "../stress/worker.ts";

/** Calls per key before the next key is made (the window allows 60 a minute). */
const CALLS_PER_KEY = 50;
/** Credits the account starts with, and gets again when they run low. */
const CREDITS = 1_000_000;

export interface FuzzService {
  worker: StressWorker;
  baseUrl: string;
  adminToken: string;
  account: Account;
  /** A key with room in its window (a new one every CALLS_PER_KEY calls). */
  key(): Promise<string>;
  balance(): Promise<number>;
  /** Kills workerd and starts it again on the same state (after a hang or a crash). */
  restart(): Promise<void>;
  /** The peak rise of workerd's resident memory (both its processes) while `run` runs, in bytes, beside its result. */
  measured<T>(run: () => Promise<T>): Promise<{ value: T; peakRise: number }>;
}

export async function startService(log: (line: string) => void): Promise<FuzzService> {
  const adminToken = `fuzz-admin-${Math.random().toString(36).slice(2)}`;
  // The codec tools never call a provider; an address nothing listens on stands in for the fake.
  const worker = await startWorker({ label: "fuzz", upstreamOrigin: "http://127.0.0.1:9", upstreamTimeoutMs: 2_000, adminToken, models: [], log });
  const account = await createAccount(worker.baseUrl, adminToken, "normal", CREDITS, 1, 0);
  let uses = 0;
  let secret = account.keys[0]!.secret;
  const service: FuzzService = {
    worker,
    baseUrl: worker.baseUrl,
    adminToken,
    account,
    async key() {
      if (++uses > CALLS_PER_KEY) {
        secret = (await newKey(worker.baseUrl, adminToken, account.id, `fuzz ${Date.now()}`)).secret;
        uses = 1;
        if ((await service.balance()) < CREDITS / 2) await admin(worker.baseUrl, adminToken, `/admin/v1/accounts/${account.id}/credits`, { amount: CREDITS, reason: "fuzz top-up" });
      }
      return secret;
    },
    balance: () => ledgerBalance(worker.baseUrl, adminToken, account.id),
    async restart() {
      await worker.crash();
      await worker.restart();
    },
    async measured(run) {
      const pids = workerdPids(worker.group.pgid);
      const resident = () => pids.reduce((sum, pid) => sum + residentBytes(pid), 0);
      const base = resident();
      let peak = base;
      const timer = setInterval(() => {
        peak = Math.max(peak, resident());
      }, 20);
      try {
        const value = await run();
        peak = Math.max(peak, resident());
        return { value, peakRise: Math.max(0, peak - base) };
      } finally {
        clearInterval(timer);
      }
    },
  };
  return service;
}

/** The workerd processes in wrangler's process group (wrangler dev runs two: its proxy and the worker's). */
function workerdPids(pgid: number | undefined): number[] {
  const pids: number[] = [];
  if (pgid === undefined) return pids;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so split after its closing parenthesis.
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (comm === "workerd" && Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return pids;
}

function residentBytes(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
