// Exact decimal arithmetic for rates and values, and the one conversion from source text to a rate string.
import Decimal from "decimal.js";

/**
 * decimal.js rounds every result to 20 significant digits by default, silently. Inputs are bounded (amounts by
 * `MAX_AMOUNT_DIGITS`, rates by `MAX_RATE_CHARS`), so 200 digits makes every product exact; the only rounding
 * is the explicit one of the value. Exponents never appear in output (toExpNeg/toExpPos at their limits).
 */
export const Dec = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -9e15, toExpPos: 9e15 });
export type Dec = Decimal;

export const MAX_AMOUNT_DIGITS = 80;
export const MAX_RATE_CHARS = 100;

/** A JSON number's text (no sign needed for a price, but accepted so that a negative is refused as such). */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A positive rate from decimal or JSON-number text, in plain notation without trailing zeros; `"zero"` for a zero
 * price (a source with nothing to say) and null for anything else (negative, not a number, absurdly long).
 */
export function toRate(text: string): string | "zero" | null {
  if (text.length > MAX_RATE_CHARS || !JSON_NUMBER.test(text)) return null;
  const d = new Dec(text);
  if (d.isZero()) return "zero";
  if (!d.isFinite() || d.isNegative()) return null;
  const plain = d.toFixed();
  // 1e-90 is a valid JSON number, but 90 zeros are no price anyone quotes; refuse rather than store it.
  return plain.length > MAX_RATE_CHARS ? null : plain;
}
