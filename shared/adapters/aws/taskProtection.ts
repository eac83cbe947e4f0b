/**
 * ECS task scale-in protection, through the ECS agent's endpoint in the task
 * (`$ECS_AGENT_URI/task-protection/v1/state`). A task protects itself while it runs jobs and
 * for its version's scale-down window after (and from its start, so that a task started for a
 * job is kept until it takes it): when the service's desired count drops, ECS stops only tasks
 * idle for longer than the window. Outside ECS (no ECS_AGENT_URI) it does nothing.
 */
export interface TaskProtection {
  /**
   * Called every poll with whether the task runs jobs now, the window in seconds, and the time
   * in milliseconds: protected while busy or within the window of the last busy moment (or of
   * the first call); released after. Only changes (and renewals) reach the agent.
   */
  update(busy: boolean, windowSeconds: number, nowMs: number): Promise<void>;
}

/** A busy task's protection, renewed when less than half is left. */
const BUSY_MINUTES = 60;
/** ECS's longest protection: 48 hours. */
const MAX_MINUTES = 2880;

export function createTaskProtection(agentUri: string | undefined, onError: (error: unknown) => void): TaskProtection {
  let heldUntil: number | null = null;
  let activeAt: number | null = null;

  const put = async (minutes: number | null, nowMs: number) => {
    try {
      const state = minutes === null ? { ProtectionEnabled: false } : { ProtectionEnabled: true, ExpiresInMinutes: minutes };
      const response = await fetch(`${agentUri}/task-protection/v1/state`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(state),
      });
      if (!response.ok) throw new Error(`the ECS agent answered ${response.status}`);
      heldUntil = minutes === null ? null : nowMs + minutes * 60_000;
    } catch (error) {
      onError(error);
    }
  };

  return {
    async update(busy, windowSeconds, nowMs) {
      if (!agentUri) return;
      if (busy || activeAt === null) activeAt = nowMs;
      if (busy) {
        if (heldUntil === null || heldUntil - nowMs < (BUSY_MINUTES / 2) * 60_000) await put(BUSY_MINUTES, nowMs);
        return;
      }
      const windowEnds = activeAt + windowSeconds * 1000;
      if (nowMs < windowEnds) {
        // Held to the window's end, rounded up to ECS's whole minutes; a worker that hangs is released then.
        if (heldUntil === null || heldUntil < windowEnds) await put(Math.min(MAX_MINUTES, Math.ceil((windowEnds - nowMs) / 60_000)), nowMs);
        return;
      }
      if (heldUntil !== null) await put(null, nowMs);
    },
  };
}
