// A test's own short-lived connection to the database a server under test uses (reads and the odd planted row), with
// a busy timeout so it waits for the server's writes instead of failing on a lock.
import { Database } from "bun:sqlite";

export function withDb<T>(path: string, fn: (d: Database) => T): T {
  const d = new Database(path);
  try {
    d.exec("PRAGMA busy_timeout = 10000");
    return fn(d);
  } finally {
    d.close();
  }
}

/** Every row one statement answers (none for a change), over its own short-lived connection. */
export function sqlRows(path: string, q: string, ...args: (string | number)[]): Record<string, unknown>[] {
  return withDb(path, (d) => d.query(q).all(...args) as Record<string, unknown>[]);
}
