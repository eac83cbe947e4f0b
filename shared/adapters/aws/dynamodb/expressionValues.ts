import type { Item } from './context.js';

/**
 * Placeholders `:name0, :name1, ...` for a list of values, and the values bound to them: for an
 * IN list or a list of SET actions, which DynamoDB expressions cannot take as one value.
 */
export function placeholders(name: string, values: readonly unknown[]): { names: string[]; bound: Item } {
  const names = values.map((_, index) => `:${name}${index}`);
  return { names, bound: Object.fromEntries(names.map((placeholder, index) => [placeholder, values[index]])) };
}
