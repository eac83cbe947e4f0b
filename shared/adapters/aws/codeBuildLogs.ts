import { GetLogEventsCommand, type CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';

/** Where CodeBuild wrote a build's log (its events carry it in `additional-information.logs`). */
export interface BuildLogLocation {
  'group-name'?: string;
  'stream-name'?: string;
}

/** The most lines of a build log copied to a version's log; the rest stays in CloudWatch Logs. */
const MAX_LINES = 5_000;

/** A build's log lines, oldest first, from CloudWatch Logs; none when the event names no log. */
export async function readBuildLog(client: CloudWatchLogsClient, location: BuildLogLocation | undefined): Promise<string[]> {
  const logGroupName = location?.['group-name'];
  const logStreamName = location?.['stream-name'];
  if (!logGroupName || !logStreamName) return [];
  const lines: string[] = [];
  let nextToken: string | undefined;
  for (;;) {
    const page = await client.send(new GetLogEventsCommand({ logGroupName, logStreamName, startFromHead: true, nextToken }));
    lines.push(...(page.events ?? []).map((event) => (event.message ?? '').replace(/\n$/, '')));
    // The same token twice means the end of the stream.
    if (!page.nextForwardToken || page.nextForwardToken === nextToken || lines.length >= MAX_LINES) return lines.slice(0, MAX_LINES);
    nextToken = page.nextForwardToken;
  }
}
