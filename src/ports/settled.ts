// A port's promise that is already fulfilled when it is returned, and says so: an engine that answers in the caller's
// own turn (SQLite, in process, when its connection is free) marks the promise with its value, and a caller on a hot
// path (a read route) may take the value there and then instead of waiting a turn. Every other promise (an engine
// across the network, a call that had to wait) carries no mark, and the caller awaits it as usual. The promise is a
// real, resolved Promise either way: a caller that awaits it gets the same value.
//
// Why: a route that answers synchronously is answered on Bun's synchronous Response path; one that returns a promise
// costs about a tenth of the detail reads' throughput (docs/benchmarks.md), which the ports' promises alone would
// impose on the embedded engine. React's thenables carry their settled value the same way (`status`, `value`).

const VALUE: unique symbol = Symbol("settled value");

type Marked<T> = Promise<T> & { [VALUE]?: { readonly value: T } };

/** A resolved promise of `value` that carries it (`value` must not be a promise or a thenable). */
export function fulfilled<T>(value: T): Promise<T> {
  const p = Promise.resolve(value) as Marked<T>;
  if (!isThenable(value)) p[VALUE] = { value };
  return p;
}

/** Whether `v` is a promise or another thenable: what `await` would wait on. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as { then?: unknown }).then === "function";
}

/** The value `p` carries, when it was fulfilled at once and says so. */
export function settledValue<T>(p: Promise<T>): { readonly value: T } | undefined {
  return (p as Marked<T>)[VALUE];
}

/**
 * `f` applied to `p`'s value: synchronously when `p` carries it, else once `p` fulfils (a rejection passes on, as
 * with `then`). The answer is `f`'s own (a value, or a promise) when synchronous.
 */
export function thenNow<T, U>(p: Promise<T>, f: (value: T) => U): U | Promise<Awaited<U>> {
  const now = settledValue(p);
  return now ? f(now.value) : (p.then(f) as Promise<Awaited<U>>);
}
