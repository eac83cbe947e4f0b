import type { LogFeed } from '../../ports/logFeed.js';

/**
 * The AWS mode's log feed: lines are stored by ECS tasks and CodeBuild, while followers run in
 * Lambdas, with nothing shared between them; followers read the store on a timer instead.
 */
export const unpublishedLogs: LogFeed = {
  publish() {
    // Nobody in this process follows; see above.
  },
  subscribe: () => () => undefined,
};
