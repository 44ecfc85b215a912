import type { UsageMessage } from "../src/usage/delivery";
import type { EntryDraft } from "../src/usage/log";
import type { UsageOutbox } from "./usage-outbox";
import type { Wakeups } from "./wakeups";

// Writes the ledger's usage-log entries into its outbox and sends them on to the usage queue.
// An entry goes out SEND_DELAY_MS after it was written, with every entry written in between,
// and sending is one run at a time (entries written while a send is in flight go with the next
// one): a busy ledger sends few, full messages, and the step that settles a call ends without
// a queue round trip after it. `/v1/usage` reads the outbox too, so the delay never hides an
// entry. A send that fails leaves its entries due again; the alarm (a safety net set with every
// entry) re-sends whatever was not confirmed.

/** An entry sent but not confirmed as written to D1 by then is sent again (delivery is at least once). */
export const RESEND_AFTER_MS = 60_000;
/** A queue message holds at most 128 KB: entries go in messages of at most this much JSON. */
const MESSAGE_MAX_ENTRIES = 100;
const MESSAGE_MAX_BYTES = 96_000;
/**
 * How long a written entry waits for others to share its queue message. Queues are paid per
 * message, and locally the send no longer competes with the call's answer for the runtime's one
 * thread (a tiny compress end to end: 1 to 2 ms less). Small next to the consumer's own
 * batching (up to 1 s) and to RESEND_AFTER_MS.
 */
export const SEND_DELAY_MS = 100;
/** After a failed send, try again this soon. */
const RETRY_AFTER_MS = 5_000;

export interface EntryOutcome {
  statusCode: number;
  /** The error code of a failure; null for a success. */
  errorCode: string | null;
  charged: number;
  refunded: number;
  /** Credits the entry added to the balance (a Stripe purchase). */
  granted?: number;
  /** Measured by the worker; when absent (the ledger settles the call itself), from the draft's start. */
  latencyMs?: number;
  interrupted?: boolean;
}

export class UsageSender {
  private sending: Promise<void> | null = null;
  private sendTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly outbox: () => UsageOutbox,
    private readonly wakeups: Wakeups,
    private readonly queue: () => Queue<UsageMessage>,
    private readonly accountId: string,
    private readonly now: () => number,
  ) {}

  /** Writes the entry (inside the caller's step); it is sent SEND_DELAY_MS later. */
  write(draft: EntryDraft, outcome: EntryOutcome): void {
    const now = this.now();
    const { startedAt, ...described } = draft;
    this.outbox().append({
      ...described,
      accountId: this.accountId,
      statusCode: outcome.statusCode,
      errorCode: outcome.errorCode,
      latencyMs: Math.max(0, Math.round(outcome.latencyMs ?? now - startedAt)),
      creditsDeducted: outcome.charged,
      creditsRefunded: outcome.refunded,
      creditsGranted: outcome.granted ?? 0,
      interrupted: outcome.interrupted ?? false,
      createdAt: new Date(now).toISOString(),
    });
    this.wakeups.request(now + RESEND_AFTER_MS);
    this.sendSoon();
  }

  /** A send SEND_DELAY_MS from now, unless one is already waiting. */
  private sendSoon(): void {
    if (this.sendTimer !== null) return;
    this.sendTimer = setTimeout(() => {
      this.sendTimer = null;
      void this.send();
    }, SEND_DELAY_MS);
  }

  /** Sends every due entry; resolves when the outbox has nothing due left (or a send failed). */
  send(): Promise<void> {
    return (this.sending ??= this.sendDue());
  }

  private async sendDue(): Promise<void> {
    await undefined; // send() records this run before it can end
    try {
      for (;;) {
        const entries = this.outbox().claim(this.now(), RESEND_AFTER_MS, MESSAGE_MAX_ENTRIES, MESSAGE_MAX_BYTES);
        if (entries.length === 0) return;
        try {
          await this.queue().send({ accountId: this.accountId, entries });
        } catch (error) {
          console.error("usage outbox: sending to the usage queue failed; retrying from the alarm", error);
          this.outbox().release(entries.map((entry) => entry.id));
          this.wakeups.request(this.now() + RETRY_AFTER_MS);
          return;
        }
      }
    } finally {
      this.sending = null;
    }
  }
}
