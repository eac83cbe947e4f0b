/**
 * Sort keys made of a non-negative integer and a suffix: zero-padded to 20 digits (enough for
 * any u64, so nanosecond times past 2^53 fit) so that string order is numeric order, then '#'
 * and the suffix that tells equal numbers apart.
 */
const DIGITS = 20;
const SEPARATOR = '#';
/** The character after SEPARATOR: `n$` sorts after every `n#suffix`. */
const AFTER_SEPARATOR = '$';
const LARGEST = 10n ** BigInt(DIGITS) - 1n;

const padded = (value: bigint) => value.toString().padStart(DIGITS, '0');

export function sortableKey(value: number | bigint, suffix: string): string {
  return `${padded(BigInt(value))}${SEPARATOR}${suffix}`;
}

export function numberOfKey(key: string): bigint {
  return BigInt(key.slice(0, key.indexOf(SEPARATOR)));
}

const clamp = (value: bigint) => (value < 0n ? 0n : value > LARGEST ? LARGEST : value);

/** Bounds for BETWEEN that take in every key whose number is in [low, high], whatever its suffix. */
export function sortableRange(low: bigint, high: bigint): { from: string; to: string } {
  return { from: padded(clamp(low)), to: `${padded(clamp(high))}${AFTER_SEPARATOR}` };
}
