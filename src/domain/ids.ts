// Resource identifiers: a prefix, then 48 bits of time and 80 random bits in Crockford base32 (sortable by creation).
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** The last time and random part issued: IDs of one process rise even within one millisecond (monotonic ULID). */
let lastTime = -1;
const lastRand = new Uint8Array(10);

export function newId(prefix: string, now: number): string {
  const rand = new Uint8Array(10);
  let t = Math.max(0, Math.floor(now));
  if (t === lastTime) {
    // Same millisecond: the previous random part plus one, so the ID sorts after the previous one.
    rand.set(lastRand);
    for (let i = rand.length - 1; i >= 0; i--) {
      rand[i] = (rand[i] + 1) & 255;
      if (rand[i] !== 0) break; // a byte that wrapped to 0 carries into the next
    }
  } else crypto.getRandomValues(rand);
  lastTime = t;
  lastRand.set(rand);
  let out = "";
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
