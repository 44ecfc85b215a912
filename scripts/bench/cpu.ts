// CPU time spent per request, on both sides. On a small machine latency is mostly CPU time on
// the request's path plus waiting for a core, so this is what explains a slow row: how much
// the server's processes (wrangler's node, the proxy workerd, the worker's workerd) and this
// client burned for it. Server figures come from /proc, so they exist only on Linux and only
// for a server this script started (its process group is known).
import { readdirSync, readFileSync } from "node:fs";

/** /proc reports utime and stime in USER_HZ ticks, which Linux fixes at 100 per second. */
const MS_PER_TICK = 10;

export interface CpuSample {
  clientMs: number;
  /** CPU ms by command name (workerd, node, ...) of every process in the group; null if unknown. */
  serverMs: Record<string, number> | null;
}

function groupCpuMs(pgid: number): Record<string, number> | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const byCommand: Record<string, number> = {};
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp ..."; comm may contain spaces, so split after the last ')'.
    const close = stat.lastIndexOf(")");
    const command = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue;
    byCommand[command] = (byCommand[command] ?? 0) + (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  }
  return byCommand;
}

export function sampleCpu(serverPgid: number | undefined): CpuSample {
  const { user, system } = process.cpuUsage();
  return { clientMs: (user + system) / 1000, serverMs: serverPgid === undefined ? null : groupCpuMs(serverPgid) };
}

/** Accumulates CPU spent between pairs of samples (e.g. over several interleaved rounds). */
export class CpuTally {
  clientMs = 0;
  serverMs: Record<string, number> | null = {};

  add(before: CpuSample, after: CpuSample): void {
    this.clientMs += after.clientMs - before.clientMs;
    if (!before.serverMs || !after.serverMs || !this.serverMs) {
      this.serverMs = null;
      return;
    }
    for (const [command, ms] of Object.entries(after.serverMs)) {
      this.serverMs[command] = (this.serverMs[command] ?? 0) + ms - (before.serverMs[command] ?? 0);
    }
  }

  /** Per-request figures: client, server total and server by command, in ms. */
  perRequest(requests: number): { clientMs: number; serverMs: number | null; serverByCommand: Record<string, number> | null } {
    const per = (ms: number) => ms / Math.max(1, requests);
    if (!this.serverMs) return { clientMs: per(this.clientMs), serverMs: null, serverByCommand: null };
    const byCommand = Object.fromEntries(Object.entries(this.serverMs).map(([command, ms]) => [command, per(ms)]));
    return { clientMs: per(this.clientMs), serverMs: per(Object.values(this.serverMs).reduce((a, b) => a + b, 0)), serverByCommand: byCommand };
  }
}
