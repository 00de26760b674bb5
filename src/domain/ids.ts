// Resource identifiers: a prefix, then 48 bits of time and 80 random bits in Crockford base32 (sortable by creation).
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export function newId(prefix: string, now: number): string {
  const rand = new Uint8Array(10);
  crypto.getRandomValues(rand);
  let out = "";
  let t = Math.max(0, Math.floor(now));
  const time: string[] = [];
  for (let i = 0; i < 10; i++) {
    time.push(ALPHABET[t % 32]);
    t = Math.floor(t / 32);
  }
  out += time.reverse().join("");
  let acc = 0;
  let bits = 0;
  for (const b of rand) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `${prefix}_${out}`;
}

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
