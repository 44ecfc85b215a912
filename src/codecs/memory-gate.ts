// The per-isolate memory gate. Every request that decodes or encodes pixels is admitted against
// one byte budget for the whole isolate, with the estimate its header gives before anything is
// decoded (limits.ts estimateCodecBytes). Isolates share nothing, and a Worker isolate has
// 128 MB: two large images decoded side by side would pass every per-request limit and still
// kill the isolate, and every request in it.
//
// Admission happens in a tool's prepare(), so a request the gate turns away is refused before
// the ledger reserves anything (503 service_busy with Retry-After, free). The permit is held
// through run() and released when run ends, or when the call is refused after prepare (the
// billing path calls tool.release). Waiters are served in arrival order: a large request at
// the head is not starved by small ones slipping past it.
//
// A waiter polls (every POLL_MS) instead of being woken by the release: the release runs in
// another request's context, and workerd does not let one request settle a promise another
// request awaits (it fails with "Cannot perform I/O on behalf of a different request").

import { PixelgateError } from "../errors.ts";
import { ISOLATE_CODEC_BUDGET } from "./limits.ts";

export interface Permit {
  readonly bytes: number;
  /** Gives the bytes back. Idempotent: the run's own finally and the billing path may both call it. */
  release(): void;
  /**
   * Gives back all but `bytes` now and hands those to what outlives the work (an answer's inline
   * file, until it is written), which gives them back with the returned function (idempotent).
   * Until then the gate counts them, so a slow download does not leave the isolate fuller than
   * the gate believes; past maxHoldMs they are taken back anyway.
   */
  handOver(bytes: number): () => void;
  /** Whether handOver was called: the work's own end then leaves the rest to the holder. */
  readonly handedOver: boolean;
}

export interface GateOptions {
  /** Bytes the isolate may spend on codec work at once. */
  budget: number;
  /** Longest a request waits for room before it is refused. */
  maxWaitMs: number;
  /**
   * Bytes the waiting requests may hold at once (their bodies: what each waiter says it holds);
   * one that would take the line past it is refused without waiting. A request alone in the line
   * always waits, however large.
   */
  maxWaitingBytes: number;
  /** Seconds a refused client is told to wait (Retry-After). */
  retryAfterSeconds: number;
  /**
   * A permit older than this is taken back at the next admission: a path that prepared a call
   * and then dropped it without releasing (a batch refused whole) cannot wedge the gate. Checked
   * lazily, with no timer, because a timer dies with the request that set it.
   */
  maxHoldMs: number;
}

/** How often a waiting request looks whether its turn has come. */
const POLL_MS = 10;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class MemoryGate {
  private inUse = 0;
  private readonly held = new Map<symbol, { since: number; group: object | undefined; release: () => void }>();
  /** Waiting requests in arrival order, each by its own ticket. */
  private readonly waiting: symbol[] = [];
  /** What the waiting requests hold, together. */
  private waitingBytes = 0;

  constructor(readonly options: GateOptions) {}

  /** Bytes held by admitted work, and how many requests hold or wait for them. */
  get state(): { inUse: number; admitted: number; waiting: number; waitingBytes: number } {
    return { inUse: this.inUse, admitted: this.held.size, waiting: this.waiting.length, waitingBytes: this.waitingBytes };
  }

  /**
   * A permit for `bytes`, now if they fit (or if nothing else runs: one request alone is always
   * admitted, the pixel limits keep it within the isolate), else after earlier waiters, within
   * maxWaitMs. `holding`: what the request holds while it waits (its body). Throws
   * PixelgateError service_busy when the wait is over or the line's bytes would pass
   * maxWaitingBytes. Work of one `group` (the items of one batch, which all run only once all
   * are prepared) is admitted as soon as any of it is: waiting for its own items would wait for ever.
   */
  async acquire(bytes: number, group?: object, holding = 0): Promise<Permit> {
    this.takeBackStale();
    if ((this.waiting.length === 0 && this.fits(bytes)) || this.holds(group)) return this.grant(bytes, group);
    if (this.waiting.length > 0 && this.waitingBytes + holding > this.options.maxWaitingBytes) throw this.busy();
    const ticket = Symbol("waiter");
    this.waiting.push(ticket);
    this.waitingBytes += holding;
    const deadline = Date.now() + this.options.maxWaitMs;
    try {
      for (;;) {
        await pause(POLL_MS);
        this.takeBackStale();
        if ((this.waiting[0] === ticket && this.fits(bytes)) || this.holds(group)) return this.grant(bytes, group);
        if (Date.now() >= deadline) throw this.busy();
      }
    } finally {
      this.waiting.splice(this.waiting.indexOf(ticket), 1); // admitted or given up: out of the line
      this.waitingBytes -= holding;
    }
  }

  private fits(bytes: number): boolean {
    return this.held.size === 0 || this.inUse + bytes <= this.options.budget;
  }

  private holds(group: object | undefined): boolean {
    return group !== undefined && [...this.held.values()].some((permit) => permit.group === group);
  }

  private grant(bytes: number, group?: object): Permit {
    const id = Symbol("permit");
    let counted = bytes; // less once handed over
    let handedOver = false;
    const release = () => {
      if (this.held.delete(id)) this.inUse -= counted;
    };
    this.inUse += bytes;
    this.held.set(id, { since: Date.now(), group, release });
    return {
      bytes,
      release,
      get handedOver() {
        return handedOver;
      },
      handOver: (kept) => {
        handedOver = true;
        if (this.held.has(id) && kept < counted) {
          this.inUse -= counted - Math.max(0, kept);
          counted = Math.max(0, kept);
        }
        return release;
      },
    };
  }

  private takeBackStale(): void {
    const oldest = Date.now() - this.options.maxHoldMs;
    for (const permit of [...this.held.values()]) if (permit.since < oldest) permit.release();
  }

  private busy(): PixelgateError {
    return new PixelgateError("service_busy", `The worker is busy with other images; nothing was charged. Retry in ${this.options.retryAfterSeconds} s.`, {
      headers: { "Retry-After": String(this.options.retryAfterSeconds) },
    });
  }
}

/**
 * The isolate's gate (module state lives as long as the isolate). The largest admitted encode
 * takes a few seconds (more on a busy host), so 30 s lets a burst of four run one after another;
 * small images pass in milliseconds, so a burst of hundreds (a batch, a busy client) drains well
 * within the wait. A waiting request already holds its body (the JSON is parsed before any
 * handler runs), so the line is bounded by what those bodies hold: as much as the codec budget
 * (four of the largest uploads, or thousands of small ones).
 */
export const isolateCodecGate = new MemoryGate({ budget: ISOLATE_CODEC_BUDGET, maxWaitMs: 30_000, maxWaitingBytes: ISOLATE_CODEC_BUDGET, retryAfterSeconds: 5, maxHoldMs: 120_000 });
