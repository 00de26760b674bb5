// One SQLite connection, many asynchronous callers: a unit of work (a write transaction or a read snapshot) holds the
// connection from its BEGIN to its COMMIT, across the awaits of the code inside it. Calls made inside it (in the same
// asynchronous flow, followed with AsyncLocalStorage) go straight through; a call from any other flow meanwhile waits
// until it ends, so it neither joins the open transaction nor reads what that transaction has not committed. The
// awaits inside a unit are other store calls (a unit never waits on the network), so the wait is short: what a
// synchronous driver would have cost the caller anyway.
import { AsyncLocalStorage } from "node:async_hooks";

export class ConnectionGate {
  private holder: object | null = null;
  private waiters: (() => void)[] = [];
  private readonly flow = new AsyncLocalStorage<object>();

  /** Whether the caller is inside the unit that holds the connection. */
  inside(): boolean {
    return this.holder !== null && this.flow.getStore() === this.holder;
  }

  /** Whether some flow holds the connection. */
  held(): boolean {
    return this.holder !== null;
  }

  /** Undefined when the caller may use the connection now; else a promise to await and then ask again. */
  turn(): Promise<void> | undefined {
    if (this.holder === null || this.flow.getStore() === this.holder) return undefined;
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /**
   * Undefined when the caller may use the connection now (it is free, or the caller holds it: the common case costs no
   * promise); else a promise resolved once it may.
   */
  enter(): Promise<void> | undefined {
    const t = this.turn();
    return t ? this.waitFor(t) : undefined;
  }

  private async waitFor(first: Promise<void>): Promise<void> {
    for (let t: Promise<void> | undefined = first; t; t = this.turn()) await t;
  }

  /**
   * Runs fn holding the connection, at once (the caller saw it free): synchronous when fn is, else until the promise
   * fn returns has settled; `end` runs just before the connection is let go either way.
   */
  holdNow<T>(fn: () => T, end: () => void): T | Promise<T> {
    if (this.holder !== null) throw new Error("holdNow: the connection is held");
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

  private letGo(end: () => void): void {
    try {
      end();
    } finally {
      this.holder = null;
      const waiting = this.waiters;
      this.waiters = [];
      for (const w of waiting) w();
    }
  }

  /** Runs fn holding the connection: every other flow's calls wait until fn has settled. */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    while (this.holder !== null) await new Promise<void>((resolve) => this.waiters.push(resolve));
    const token = {};
    this.holder = token;
    try {
      return await this.flow.run(token, fn);
    } finally {
      this.holder = null;
      const waiting = this.waiters;
      this.waiters = [];
      for (const w of waiting) w();
    }
  }
}
