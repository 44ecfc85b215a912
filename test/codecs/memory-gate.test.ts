// The per-isolate memory gate's rules, on gates of its own (the isolate's gate serves the other
// tests). Outcomes are asserted, never how long they took: waits end by releases (or by a
// zero/one-millisecond maxWaitMs where giving up is the point).

import { describe, expect, it } from "vitest";
import { MemoryGate, type Permit } from "../../src/codecs/index.ts";
import { PixelgateError } from "../../src/errors.ts";

const LONG = 60_000; // a wait no test reaches: settlement comes from releases, not the clock

function gate(options: Partial<ConstructorParameters<typeof MemoryGate>[0]> = {}): MemoryGate {
  return new MemoryGate({ budget: 100, maxWaitMs: LONG, maxWaitingBytes: 1000, retryAfterSeconds: 7, maxHoldMs: LONG, ...options });
}

/** Lets waiting acquirers poll a few times (they look every 10 ms). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Waits until `condition` holds (bounded), for outcomes that need a waiter's next poll. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

function track(promise: Promise<Permit>): { permit?: Permit; error?: unknown } {
  const state: { permit?: Permit; error?: unknown } = {};
  promise.then((permit) => (state.permit = permit), (error: unknown) => (state.error = error));
  return state;
}

describe("memory gate", () => {
  it("admits work that fits at once, and counts what it holds", async () => {
    const g = gate();
    const a = await g.acquire(60);
    const b = await g.acquire(40);
    expect(g.state).toEqual({ inUse: 100, admitted: 2, waiting: 0, waitingBytes: 0 });
    a.release();
    a.release(); // idempotent: the run's finally and the billing path may both release
    expect(g.state).toEqual({ inUse: 40, admitted: 1, waiting: 0, waitingBytes: 0 });
    b.release();
    expect(g.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("hands part of a permit over to what outlives the work, and counts only that part until it is given back", async () => {
    const g = gate();
    const work = await g.acquire(80);
    const waiter = track(g.acquire(50));
    await settle();
    expect(waiter.permit).toBeUndefined();
    const giveBack = work.handOver(30); // the answer's file: 30 of the 80 estimated
    expect(work.handedOver).toBe(true);
    expect(g.state.inUse).toBe(30);
    await until(() => waiter.permit !== undefined); // 30 + 50 fit
    work.release(); // the work's own end does not double-count: the same 30
    giveBack();
    expect(g.state).toEqual({ inUse: 50, admitted: 1, waiting: 0, waitingBytes: 0 });
    waiter.permit!.release();
    expect(g.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("makes work beyond the budget wait until enough is released, in arrival order", async () => {
    const g = gate();
    const first = await g.acquire(70);
    const big = track(g.acquire(60));
    const small = track(g.acquire(10)); // would fit now, but must not pass the waiting big one
    await settle();
    expect([big.permit, small.permit]).toEqual([undefined, undefined]);
    expect(g.state.waiting).toBe(2);
    first.release();
    await until(() => big.permit !== undefined && small.permit !== undefined);
    expect(big.permit?.bytes).toBe(60);
    expect(small.permit?.bytes).toBe(10);
    expect(g.state).toEqual({ inUse: 70, admitted: 2, waiting: 0, waitingBytes: 0 });
  });

  it("admits one request larger than the whole budget when nothing else runs", async () => {
    const g = gate();
    const huge = await g.acquire(250);
    const next = track(g.acquire(1));
    await settle();
    expect(next.permit).toBeUndefined();
    huge.release();
    await until(() => next.permit !== undefined);
    expect(next.permit?.bytes).toBe(1);
  });

  it("answers service_busy with Retry-After when the wait runs out", async () => {
    const g = gate({ maxWaitMs: 0 });
    const held = await g.acquire(90);
    const error = await g.acquire(20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixelgateError);
    expect((error as PixelgateError).code).toBe("service_busy");
    expect((error as PixelgateError).headers["Retry-After"]).toBe("7");
    expect(g.state).toEqual({ inUse: 90, admitted: 1, waiting: 0, waitingBytes: 0 });
    held.release();
    expect((await g.acquire(20)).bytes).toBe(20);
  });

  it("refuses at once when the line's bytes are full, however few wait; a request alone in the line always waits", async () => {
    const g = gate({ maxWaitingBytes: 1000 });
    const held = await g.acquire(100);
    const large = track(g.acquire(50, undefined, 1500)); // more than the line holds, but alone in it
    const small = track(g.acquire(50, undefined, 10)); // 1510 > 1000: refused
    await settle();
    expect((small.error as PixelgateError).code).toBe("service_busy");
    expect(large.error).toBeUndefined(); // the one already waiting keeps its place
    expect(g.state).toMatchObject({ waiting: 1, waitingBytes: 1500 });
    held.release();
    await until(() => large.permit !== undefined);
    expect(g.state.waitingBytes).toBe(0);
    large.permit!.release();
  });

  it("lets hundreds of small waiters in line where their bytes fit, and serves them all", async () => {
    const g = gate({ budget: 10, maxWaitingBytes: 1000 });
    const held = await g.acquire(10);
    const waiters = Array.from({ length: 200 }, () => g.acquire(1, undefined, 5)); // 200 x 5 = 1000: all fit
    const over = await g.acquire(1, undefined, 5).catch((e: unknown) => e);
    expect((over as PixelgateError).code).toBe("service_busy");
    expect(g.state).toMatchObject({ waiting: 200, waitingBytes: 1000 });
    held.release();
    for (const permit of await Promise.all(waiters.map((w) => w.then((p) => (p.release(), p))))) expect(permit.bytes).toBe(1);
    expect(g.state).toEqual({ inUse: 0, admitted: 0, waiting: 0, waitingBytes: 0 });
  });

  it("a waiter that gives up lets smaller ones behind it in", async () => {
    const g = gate({ maxWaitMs: 1 });
    const held = await g.acquire(60);
    const big = g.acquire(80).catch((e: unknown) => e);
    const small = track(g.acquire(30));
    expect(((await big) as PixelgateError).code).toBe("service_busy");
    await until(() => small.permit !== undefined);
    expect(small.permit?.bytes).toBe(30);
    held.release();
  });

  it("admits the rest of a group (one batch's items) at once, while others wait", async () => {
    const g = gate();
    const batch = {};
    const first = await g.acquire(80, batch);
    const outsider = track(g.acquire(30));
    await settle();
    // The batch's next item passes the waiting outsider: its items run only together.
    const second = await g.acquire(80, batch);
    expect(g.state).toEqual({ inUse: 160, admitted: 2, waiting: 1, waitingBytes: 0 });
    expect(outsider.permit).toBeUndefined();
    first.release();
    second.release();
    await until(() => outsider.permit !== undefined);
    expect(g.state.inUse).toBe(30);
  });

  it("takes back a permit held past maxHoldMs at the next admission", async () => {
    const g = gate({ maxHoldMs: -1 }); // every permit is already stale
    await g.acquire(100); // never released: a call dropped after prepare
    const next = await g.acquire(100);
    expect(next.bytes).toBe(100);
    expect(g.state).toEqual({ inUse: 100, admitted: 1, waiting: 0, waitingBytes: 0 });
  });
});
