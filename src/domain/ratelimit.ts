// Token buckets: `limit` requests per `windowSeconds`, refilled continuously. Pure: the time is passed in.

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface Bucket {
  tokens: number;
  at: number; // ms
}

export type Take = { ok: true; bucket: Bucket } | { ok: false; bucket: Bucket; retryAfterSeconds: number };

export function take(bucket: Bucket | undefined, rule: RateLimit, now: number): Take {
  const perMs = rule.limit / (rule.windowSeconds * 1000);
  const start = bucket ?? { tokens: rule.limit, at: now };
  const tokens = Math.min(rule.limit, start.tokens + Math.max(0, now - start.at) * perMs);
  if (tokens >= 1) return { ok: true, bucket: { tokens: tokens - 1, at: now } };
  const retryAfterSeconds = Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
  return { ok: false, bucket: { tokens, at: now }, retryAfterSeconds };
}

/** "company=6000/60,vasp_search=120/60" -> rules by name. */
export function parseRateLimits(text: string): Record<string, RateLimit> {
  const out: Record<string, RateLimit> = {};
  for (const part of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z_]+)=(\d+)\/(\d+)$/.exec(part);
    if (!m || Number(m[2]) < 1 || Number(m[3]) < 1) throw new Error(`rate limit "${part}" must look like name=<requests>/<seconds>`);
    out[m[1]] = { limit: Number(m[2]), windowSeconds: Number(m[3]) };
  }
  return out;
}

/** Generous defaults: a busy integration never meets them; a runaway loop does. */
export const DEFAULT_RATE_LIMITS: Record<string, RateLimit> = {
  company: { limit: 6000, windowSeconds: 60 },
  vasp_search: { limit: 120, windowSeconds: 60 },
};
