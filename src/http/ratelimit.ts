// In-memory token buckets per company (and per feature, company and environment); 429 with Retry-After.
import { apiError } from "../domain/errors.ts";
import { take, type Bucket, type RateLimit } from "../domain/ratelimit.ts";

const MAX_BUCKETS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly rules: Record<string, RateLimit>,
    private readonly clock: () => number,
  ) {}

  /** Throws 429 RATE_LIMITED when the named budget of `key` is spent. Unknown names are unlimited. */
  check(name: string, key: string): void {
    const rule = this.rules[name];
    if (!rule) return;
    const id = `${name}:${key}`;
    const r = take(this.buckets.get(id), rule, this.clock());
    this.buckets.delete(id);
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(id, r.bucket);
    if (!r.ok) {
      throw apiError("RATE_LIMITED", {
        message: `Rate limit exceeded (${name}: ${rule.limit} requests per ${rule.windowSeconds} s); retry after ${r.retryAfterSeconds} s`,
        headers: { "Retry-After": String(r.retryAfterSeconds) },
      });
    }
  }
}
