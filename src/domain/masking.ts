// Masking of personal data for roles without pii:view: names to initials with asterisks.

/** "Jane van Dyke" -> "J*** v** D***": each word keeps its first letter; the length is kept. */
export function maskName(name: string | null | undefined): string | null {
  if (name === null || name === undefined) return null;
  return name.replace(/[\p{L}\p{N}][\p{L}\p{N}\p{M}'’.-]*/gu, (word) => {
    const chars = Array.from(word);
    return chars[0] + "*".repeat(chars.length - 1);
  });
}

/** Free text that may hold personal data is hidden whole. */
export function maskText(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  return "***";
}
