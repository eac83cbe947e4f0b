/**
 * A version's `run_commands` as one build variable (CodeBuild's are plain strings): each
 * command as a JSON string, one a line, the whole in base64. A JSON string holds no raw newline,
 * so a command can never spill into another line of the Dockerfile, and it is already the
 * quoting a Dockerfile's exec form wants: `RUN ["/bin/sh", "-c", <the line>]`.
 */
export function encodeRunCommands(commands: readonly string[]): string {
  return commands.length === 0 ? '' : Buffer.from(commands.map((command) => JSON.stringify(command)).join('\n')).toString('base64');
}

export function decodeRunCommands(encoded: string): string[] {
  if (encoded === '') return [];
  return Buffer.from(encoded, 'base64')
    .toString('utf8')
    .split('\n')
    .map((line) => JSON.parse(line) as string);
}
