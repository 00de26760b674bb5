// One SQLite connection, many asynchronous callers: a unit of work (a write transaction or a read snapshot) holds the
// connection from its BEGIN to its COMMIT, across the awaits of the code inside it. Calls made inside it (in the same
// asynchronous flow, followed with AsyncLocalStorage) go straight through; a call from any other flow meanwhile waits
// until it ends, so it neither joins the open transaction nor reads what that transaction has not committed. The
// awaits inside a unit are other store calls (a unit never waits on the network), so the wait is short: what a
// synchronous driver would have cost the caller anyway.
//
// Waiting calls are served in order, handed the connection synchronously as the unit before them lets go: a waiting
// statement runs there and then, a waiting unit takes the connection there and then, so nothing can slip in between
// (and a release wakes one waiter's work, not every waiter to look again).
import { AsyncLocalStorage } from "node:async_hooks";
import { fulfilled } from "../../ports/settled.ts";

type Waiter = () => void;

export class ConnectionGate {
  private holder: object | null = null;
  private readonly waiters: Waiter[] = [];
  private readonly flow = new AsyncLocalStorage<object>();

  /** Whether the caller is inside the unit that holds the connection. */
  inside(): boolean {
    return this.holder !== null && this.flow.getStore() === this.holder;
  }

  /** Whether some flow holds the connection. */
  held(): boolean {
    return this.holder !== null;
  }

  /** Whether the caller may use the connection now: it is free and nobody waits for it, or the caller holds it. */
  private mayGo(): boolean {
    return this.holder === null ? this.waiters.length === 0 : this.flow.getStore() === this.holder;
  }

  /**
   * Runs fn's statements: at once when the caller may use the connection (no extra turn), else in order after the
   * units of work before it, synchronously as the connection is handed over. A throw becomes the rejection. A call
   * that ran at once answers a promise that carries its value (src/ports/settled.ts), for a caller that can use it
   * in the same turn.
   */
  run<T>(fn: () => T): Promise<T> {
    if (this.mayGo()) {
      try {
        return fulfilled(fn());
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return new Promise<T>((resolve, reject) =>
      this.waiters.push(() => {
        try {
          resolve(fn());
        } catch (e) {
          reject(e);
        }
      }),
    );
  }

  /** Runs fn holding the connection: every other flow's calls wait until fn has settled. */
  hold<T>(fn: () => Promise<T>): Promise<T> {
    if (this.holder === null && this.waiters.length === 0) return this.take(fn, () => {}) as Promise<T>;
    return new Promise<T>((resolve, reject) => this.waiters.push(() => Promise.resolve(this.take(fn, () => {})).then(resolve, reject)));
  }

  /** As `run`, but synchronous (fn's own value) when the caller may go at once. */
  turn<T>(fn: () => T): T | Promise<T> {
    return this.mayGo() ? fn() : this.run(fn);
  }

  /** Takes the connection for fn (synchronous when fn is), letting go when it has settled. */
  private take<T>(fn: () => T, end: () => void): T | Promise<T> {
    const token = {};
    this.holder = token;
    let out: T;
    try {
      out = this.flow.run(token, fn);
    } catch (e) {
      this.letGo(end);
      throw e;
    }
    if (out instanceof Promise) return out.finally(() => this.letGo(end)) as Promise<T>;
    this.letGo(end);
    return out;
  }

  /** The unit ends: `end`, then the waiters are served in order until one takes the connection. */
  private letGo(end: () => void): void {
    try {
      end();
    } finally {
      this.holder = null;
      while (this.holder === null && this.waiters.length > 0) this.waiters.shift()!();
    }
  }
}
