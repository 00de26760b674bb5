// Resource identifiers: a prefix, then 48 bits of time and 80 random bits in Crockford base32 (sortable by creation).
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** The last time and random part issued: IDs of one process rise even within one millisecond (monotonic ULID). */
let lastTime = -1;
/** The time part of `lastTime`, encoded once per millisecond. */
let lastTimeText = "";
const lastRand = new Uint8Array(10);
/** Random bytes drawn 4 KiB at a time from the CSPRNG (one call per ~400 IDs instead of one per ID). */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

export function newId(prefix: string, now: number): string {
  const t = Math.max(0, Math.floor(now));
  if (t === lastTime) {
    // Same millisecond: the previous random part plus one, so the ID sorts after the previous one.
    for (let i = lastRand.length - 1; i >= 0; i--) {
      lastRand[i] = (lastRand[i] + 1) & 255;
      if (lastRand[i] !== 0) break; // a byte that wrapped to 0 carries into the next
    }
  } else {
    if (poolAt + lastRand.length > pool.length) {
      crypto.getRandomValues(pool);
      poolAt = 0;
    }
    lastRand.set(pool.subarray(poolAt, poolAt + lastRand.length));
    poolAt += lastRand.length;
    lastTime = t;
    lastTimeText = encodeTime(t);
  }
  return `${prefix}_${lastTimeText}${encode40(lastRand, 0)}${encode40(lastRand, 5)}`;
}

/** 48 bits of milliseconds as 10 base32 characters, most significant first. */
function encodeTime(ms: number): string {
  let out = "";
  for (let i = 9; i >= 0; i--) out += ALPHABET[Math.floor(ms / 32 ** i) % 32];
  return out;
}

/** Five bytes (40 bits, big-endian) as 8 base32 characters: two 20-bit halves, so no step leaves 32-bit integers. */
function encode40(b: Uint8Array, o: number): string {
  const hi = (b[o] << 12) | (b[o + 1] << 4) | (b[o + 2] >> 4);
  const lo = ((b[o + 2] & 15) << 16) | (b[o + 3] << 8) | b[o + 4];
  const A = ALPHABET;
  return A[(hi >> 15) & 31] + A[(hi >> 10) & 31] + A[(hi >> 5) & 31] + A[hi & 31] + A[(lo >> 15) & 31] + A[(lo >> 10) & 31] + A[(lo >> 5) & 31] + A[lo & 31];
}

/** ISO 8601 UTC with milliseconds, the one timestamp format of the API. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
