// A Durable Object has one alarm; the ledger needs it for three things (holds past their
// deadline, the usage outbox's re-send, idempotency records' expiry). Wakeups keeps the alarm at
// the earliest time any of them asked for, knowing the stored alarm time in memory so that
// asking again for a later time costs nothing.

export class Wakeups {
  /** The stored alarm's time; null when none is set. Loaded before the first request. */
  private at: number | null = null;

  constructor(private readonly storage: DurableObjectStorage) {}

  async load(): Promise<void> {
    this.at = await this.storage.getAlarm();
  }

  /** Makes sure the alarm fires no later than `time`. */
  request(time: number): void {
    if (this.at !== null && this.at <= time) return;
    this.at = time;
    // Not awaited: in a step without awaits the write commits with the step's other writes.
    void this.storage.setAlarm(time);
  }

  /** The alarm is running: it no longer counts as set. */
  fired(): void {
    this.at = null;
  }

  clear(): void {
    this.at = null;
  }
}
