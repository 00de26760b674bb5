// Text that shows nothing: the one blank check of names and titles (rules, cases, webhooks); pure.

/**
 * Characters that draw nothing on their own: white space and separators (Z, White_Space), controls (Cc), format
 * characters (Cf: zero-width space and joiners, bidi embeddings, overrides and isolates, the BOM, soft hyphen),
 * default-ignorable code points (Hangul fillers, variation selectors, the combining grapheme joiner) and lone
 * surrogates (Cs). Judged by Unicode category, not by a list of spaces.
 */
const INVISIBLE = /^[\p{White_Space}\p{Z}\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}]*$/u;

/** Whether `text` holds no visible character: empty, spaces only, or only zero-width, bidi-control and other invisible characters. */
export function isBlank(text: string): boolean {
  return INVISIBLE.test(text);
}
