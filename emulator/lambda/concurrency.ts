/** AWS's default quota "Lambda concurrent executions" per account and region (new accounts may get less). */
export const DEFAULT_ACCOUNT_CONCURRENCY = 1000;

/**
 * Lambda's concurrency, as an account has it: at most `accountLimit` invocations run at once,
 * all functions together. A function with reserved concurrency may run up to its reservation
 * and no more, and that much is carved out of the account's pool; the other functions share
 * what is left (the unreserved pool). An invocation past its limit is throttled, not queued.
 */
export class ConcurrencyPool {
  private readonly reservations = new Map<string, number>();
  private readonly running = new Map<string, number>();
  private unreservedRunning = 0;

  constructor(readonly accountLimit: number = DEFAULT_ACCOUNT_CONCURRENCY) {
    if (!Number.isInteger(accountLimit) || accountLimit < 1)
      throw new Error(`The account's Lambda concurrency must be a whole number of at least 1, not ${accountLimit}`);
  }

  /**
   * Sets a function's reservation (undefined: none). AWS refuses one that leaves the unreserved
   * pool under 100; the emulation, whose limit is scaled down to be reached in seconds, only
   * refuses one that leaves nothing for the other functions.
   */
  reserve(name: string, reservation: number | undefined): void {
    if (reservation === undefined) return void this.reservations.delete(name);
    const others = this.reservedTotal() - (this.reservations.get(name) ?? 0);
    if (others + reservation >= this.accountLimit) {
      throw new Error(
        `Reserving ${reservation} for ${name} leaves no unreserved concurrency: the account's limit is ${this.accountLimit}, ${others} already reserved (aws:local: lower SLUICE_AWS_WAITER_CONCURRENCY)`,
      );
    }
    this.reservations.set(name, reservation);
  }

  /** What the functions without a reservation share. */
  get unreserved(): number {
    return this.accountLimit - this.reservedTotal();
  }

  /** Takes an execution for `name`; false when the invocation must be throttled. */
  acquire(name: string): boolean {
    const reservation = this.reservations.get(name);
    const running = this.running.get(name) ?? 0;
    if (reservation !== undefined ? running >= reservation : this.unreservedRunning >= this.unreserved) return false;
    this.running.set(name, running + 1);
    if (reservation === undefined) this.unreservedRunning += 1;
    return true;
  }

  /** Gives back an execution `acquire` took. */
  release(name: string): void {
    this.running.set(name, Math.max(0, (this.running.get(name) ?? 0) - 1));
    if (!this.reservations.has(name)) this.unreservedRunning = Math.max(0, this.unreservedRunning - 1);
  }

  private reservedTotal(): number {
    let total = 0;
    for (const reservation of this.reservations.values()) total += reservation;
    return total;
  }
}
