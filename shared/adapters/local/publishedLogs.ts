import type { LogFeed } from '../../ports/logFeed.js';
import type { Store } from '../../ports/store.js';

/** The store, with every log append published on the feed once it is stored (so a follower that reads then finds it). */
export function withPublishedLogs(store: Store, feed: LogFeed): Store {
  const logs = store.logs;
  return {
    ...store,
    logs: {
      query: logs.query.bind(logs),
      async append(entries) {
        await logs.append(entries);
        if (entries.length > 0) feed.publish(entries);
      },
    },
  };
}
