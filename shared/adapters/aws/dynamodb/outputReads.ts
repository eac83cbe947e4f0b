import type { Item } from './context.js';

/**
 * A job's output items one answer can hold (answerBudget.ts, outputsForAnswer), from `offset`:
 * those within `maxBytes` of stored data, the one that passes it, and one more. The query stops
 * there, and only these have their spilled data read from S3.
 */
export async function itemsForAnswer(items: AsyncIterable<Item>, offset: number, maxBytes: number): Promise<Item[]> {
  const read: Item[] = [];
  let skipped = 0;
  let used = 0;
  for await (const item of items) {
    if (skipped < offset) {
      skipped += 1;
      continue;
    }
    read.push(item);
    if (used > maxBytes) break; // the one after the output that passed the budget
    // An item stored before sizes were counts as nothing: at worst the answer reads one more.
    used += (item.bytes as number | undefined) ?? 0;
  }
  return read;
}
