// The request budget on several nodes (docs/api.md#rate-limits): each node's limiter enforces the budget divided by the
// live nodes it sees, so nodes together admit the budget; the share moves when the count does, and Retry-After is the
// time until this node admits again. A moved clock, no sleeping.
import { test, expect } from "bun:test";
import { RateLimiter, nodeShare } from "../../src/http/ratelimit.ts";
import { ApiError } from "../../src/domain/errors.ts";

const RULES = { company: { limit: 10, windowSeconds: 60 } };

/** Requests until the first refusal: how many were admitted, and the refusal. */
function admitted(limiter: RateLimiter, key = "cmp_a", most = 100): { n: number; refusal: ApiError } {
  for (let n = 0; n < most; n++) {
    try {
      limiter.check("company", key);
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      return { n, refusal: e as ApiError };
    }
  }
  throw new Error(`no refusal in ${most} requests`);
}

test("two nodes each admit half the budget: together the service admits the budget, then 429 with Retry-After for this node's share", () => {
  let now = 1_000_000;
  const clock = () => now;
  const a = new RateLimiter(RULES, clock, () => 2);
  const b = new RateLimiter(RULES, clock, () => 2);
  const first = admitted(a);
  const second = admitted(b);
  expect(first.n + second.n).toBe(10);
  expect(first.n).toBe(5);
  expect(first.refusal.code).toBe("RATE_LIMITED");
  expect(first.refusal.status).toBe(429);
  // Five per 60 s on this node: a token every 12 s.
  expect(first.refusal.headers).toEqual({ "Retry-After": "12" });
  expect(first.refusal.message).toBe("Rate limit exceeded (company: 10 requests per 60 s for the service, 5 on each of its 2 nodes); retry after 12 s");
  // Retry-After is truthful: one second before it this node still refuses, at it the node admits.
  now += 11_000;
  expect(() => a.check("company", "cmp_a")).toThrow();
  now += 1_000;
  expect(() => a.check("company", "cmp_a")).not.toThrow();
});

test("one node (SQLite, or alone on PostgreSQL): the whole budget, and the message as before", () => {
  const limiter = new RateLimiter(RULES, () => 0);
  const r = admitted(limiter);
  expect(r.n).toBe(10);
  expect(r.refusal.message).toBe("Rate limit exceeded (company: 10 requests per 60 s); retry after 6 s");
});

test("the share follows the count of live nodes: a node leaving doubles the survivor's refill, a node joining caps its bucket", () => {
  let now = 0;
  let nodes = 2;
  const limiter = new RateLimiter(RULES, () => now, () => nodes);
  expect(admitted(limiter).n).toBe(5);
  nodes = 1; // the other node left: this one now refills at the whole budget's rate (a token every 6 s)
  now += 6_000;
  expect(admitted(limiter).n).toBe(1);
  now += 60_000; // a full window: the bucket is full at the whole budget
  expect(admitted(limiter).n).toBe(10);
  now += 60_000;
  nodes = 4; // two more joined: the full bucket is capped at the new share
  expect(admitted(limiter).n).toBe(2);
  expect(admitted(limiter, "cmp_b").n).toBe(2); // each company its own bucket
});

test("a share is at least one request; rules keep their window", () => {
  expect(nodeShare({ limit: 3, windowSeconds: 60 }, 4)).toEqual({ limit: 1, windowSeconds: 60 });
  expect(nodeShare({ limit: 6000, windowSeconds: 60 }, 3)).toEqual({ limit: 2000, windowSeconds: 60 });
  expect(nodeShare({ limit: 6000, windowSeconds: 60 }, 0)).toEqual({ limit: 6000, windowSeconds: 60 });
});
