/** True when a write was refused because its ConditionExpression did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Runs a conditional write; false when its condition did not hold, any other error rethrown. */
export async function writeIf(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
