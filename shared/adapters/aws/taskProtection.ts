/**
 * ECS task scale-in protection, through the ECS agent's endpoint in the task
 * (`$ECS_AGENT_URI/task-protection/v1/state`). A task protects itself while it runs jobs, so
 * scaling in on a shrinking queue stops idle tasks, not busy ones. Outside ECS (no
 * ECS_AGENT_URI) it does nothing.
 */
export interface TaskProtection {
  /** Protected or not; renewed before it expires while protected. */
  set(busy: boolean): Promise<void>;
}

const EXPIRES_IN_MINUTES = 60;
const RENEW_AFTER_MS = 30 * 60_000;

export function createTaskProtection(agentUri: string | undefined, onError: (error: unknown) => void): TaskProtection {
  let current = false;
  let setAt = 0;
  return {
    async set(busy) {
      if (!agentUri) return;
      const renew = busy && Date.now() - setAt > RENEW_AFTER_MS;
      if (busy === current && !renew) return;
      try {
        const response = await fetch(`${agentUri}/task-protection/v1/state`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(busy ? { ProtectionEnabled: true, ExpiresInMinutes: EXPIRES_IN_MINUTES } : { ProtectionEnabled: false }),
        });
        if (!response.ok) throw new Error(`the ECS agent answered ${response.status}`);
        current = busy;
        setAt = Date.now();
      } catch (error) {
        onError(error);
      }
    },
  };
}
