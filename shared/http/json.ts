const BIGINT_MARK = '\u0000bigint:';

/**
 * JSON.stringify that prints bigint values as exact integers (nanosecond timestamps pass 2^53).
 * Plain JSON.stringify first: a replacer runs a callback for every key, and only log pages
 * carry bigints (stringify throws a TypeError on them, and then the replacer is used).
 */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'bigint') return item;
    sawBigint = true;
    return `${BIGINT_MARK}${item}`;
  });
  return sawBigint ? text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1') : text;
}
