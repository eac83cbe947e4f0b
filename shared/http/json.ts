const BIGINT_MARK = '\u0000bigint:';

/** JSON.stringify that prints bigint values as exact integers (nanosecond timestamps pass 2^53). */
export function stringifyJson(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'bigint') return item;
    sawBigint = true;
    return `${BIGINT_MARK}${item}`;
  });
  return sawBigint ? text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1') : text;
}
