/**
 * Fairness between requests and everything else the process does: at most `perTurn` requests
 * start their handler in one turn of the event loop; later ones wait, in arrival order, for the
 * next turns. Without it a flood of requests (a client pushing at full speed) fills every turn,
 * and the work that finishes jobs (a replica's answer, its commit, the next job's start: one
 * turn each) gets one turn in as many requests: jobs stop finishing. A request that finds room
 * starts at once, so a quiet service adds no wait.
 */
export class TurnBudget {
  private started = 0;
  /** As long as the connections are many at most (each waits for its answer): shift is cheap. */
  private readonly waiting: (() => void)[] = [];
  private turnScheduled = false;

  constructor(private readonly perTurn: number) {}

  /** Nothing while this turn has room (the request starts at once); else resolves when it may start. */
  admit(): Promise<void> | undefined {
    this.scheduleTurn();
    if (this.started < this.perTurn && this.waiting.length === 0) {
      this.started += 1;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => this.nextTurn());
  }

  private nextTurn(): void {
    this.turnScheduled = false;
    this.started = 0;
    while (this.started < this.perTurn && this.waiting.length > 0) {
      this.started += 1;
      (this.waiting.shift() as () => void)();
    }
    if (this.waiting.length > 0 || this.started > 0) this.scheduleTurn();
  }
}
