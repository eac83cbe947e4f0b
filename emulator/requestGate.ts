/**
 * A readers-writer gate in arrival order: any number of `shared` holders at once, or one
 * `exclusive` holder alone. A waiting exclusive holder keeps later shared ones waiting, so a
 * steady stream of shared requests cannot starve it.
 */
export class RequestGate {
  private shared = 0;
  private exclusive = false;
  private readonly waiting: { exclusive: boolean; enter: () => void }[] = [];

  /** Resolves once held; call the answer to let go. */
  async enter(exclusive: boolean): Promise<() => void> {
    if (this.waiting.length === 0 && this.admits(exclusive)) this.take(exclusive);
    else await new Promise<void>((enter) => this.waiting.push({ exclusive, enter }));
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (exclusive) this.exclusive = false;
      else this.shared -= 1;
      this.admitWaiting();
    };
  }

  private admits(exclusive: boolean): boolean {
    return !this.exclusive && (!exclusive || this.shared === 0);
  }

  private take(exclusive: boolean): void {
    if (exclusive) this.exclusive = true;
    else this.shared += 1;
  }

  private admitWaiting(): void {
    for (let next = this.waiting[0]; next && this.admits(next.exclusive); next = this.waiting[0]) {
      this.waiting.shift();
      this.take(next.exclusive);
      next.enter();
    }
  }
}
