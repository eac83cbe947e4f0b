/** True when a write was refused because its ConditionExpression did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** The conditional write's output, or undefined when its condition did not hold; other errors rethrown. */
export async function ifConditionHolds<T extends object>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Runs a conditional write; false when its condition did not hold. */
export async function writeIf(write: () => Promise<object>): Promise<boolean> {
  return (await ifConditionHolds(write)) !== undefined;
}
