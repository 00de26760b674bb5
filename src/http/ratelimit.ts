// In-memory token buckets per company (and per feature, company and environment); 429 with Retry-After.
// On several nodes (docs/api.md#rate-limits) each node enforces its share of every budget: the budget divided by the
// live nodes it sees, moving as nodes come and go, so the service as a whole admits the budget when requests are
// spread over the nodes. No statement per request: a shared counter would cost one on the one writer connection
// (bench/limits.ts).
import { apiError } from "../domain/errors.ts";
import { take, type Bucket, type RateLimit } from "../domain/ratelimit.ts";

const MAX_BUCKETS = 100_000;

/** A node's share of a service-wide budget over `nodes` live nodes: the same window, 1/nodes of the requests (at least one). */
export function nodeShare(rule: RateLimit, nodes: number): RateLimit {
  const n = Math.max(1, Math.floor(nodes));
  return n === 1 ? rule : { limit: Math.max(1, rule.limit / n), windowSeconds: rule.windowSeconds };
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  /** `nodes`: how many nodes share each budget now (the cluster node's count of live nodes); one when absent. */
  constructor(
    private readonly rules: Record<string, RateLimit>,
    private readonly clock: () => number,
    private readonly nodes: () => number = () => 1,
  ) {}

  /** Throws 429 RATE_LIMITED when the named budget of `key` is spent (this node's share of it). Unknown names are unlimited. */
  check(name: string, key: string): void {
    const rule = this.rules[name];
    if (!rule) return;
    const nodes = Math.max(1, Math.floor(this.nodes()));
    const share = nodeShare(rule, nodes);
    const id = `${name}:${key}`;
    // A bucket filled under a larger share is capped to this one by `take` (tokens never exceed the share's limit).
    const r = take(this.buckets.get(id), share, this.clock());
    this.buckets.delete(id);
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(id, r.bucket);
    if (!r.ok) {
      const across = nodes === 1 ? "" : ` for the service, ${formatShare(share.limit)} on each of its ${nodes} nodes`;
      throw apiError("RATE_LIMITED", {
        message: `Rate limit exceeded (${name}: ${rule.limit} requests per ${rule.windowSeconds} s${across}); retry after ${r.retryAfterSeconds} s`,
        headers: { "Retry-After": String(r.retryAfterSeconds) },
      });
    }
  }
}

function formatShare(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
