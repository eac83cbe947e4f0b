import type { Service } from '@aws-sdk/client-ecs';

/** DescribeServices takes at most this many services a call. */
const BATCH = 10;

/**
 * Describes ECS services by name, batching: the lookups made in one turn of the event loop
 * (a list of versions, each showing its workers) go out together, ten services a request.
 * A service ECS does not know, or one deleted (INACTIVE, which lingers), is null.
 */
export function createServiceDescriber(describe: (names: string[]) => Promise<Service[]>): (name: string) => Promise<Service | null> {
  let waiting: Map<string, ((result: Service | null | Error) => void)[]> | null = null;

  const flush = async (batch: Map<string, ((result: Service | null | Error) => void)[]>) => {
    const names = [...batch.keys()];
    for (let start = 0; start < names.length; start += BATCH) {
      const chunk = names.slice(start, start + BATCH);
      let found: Service[] | Error;
      try {
        found = await describe(chunk);
      } catch (error) {
        found = error as Error;
      }
      for (const name of chunk) {
        const result = found instanceof Error ? found : (found.find((service) => service.serviceName === name && service.status !== 'INACTIVE') ?? null);
        for (const answer of batch.get(name) ?? []) answer(result);
      }
    }
  };

  return (name) =>
    new Promise((resolve, reject) => {
      if (!waiting) {
        const batch = new Map<string, ((result: Service | null | Error) => void)[]>();
        waiting = batch;
        setImmediate(() => {
          waiting = null;
          void flush(batch);
        });
      }
      const answers = waiting.get(name) ?? [];
      answers.push((result) => (result instanceof Error ? reject(result) : resolve(result)));
      waiting.set(name, answers);
    });
}
