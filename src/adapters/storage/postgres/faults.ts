// Faults of a PostgreSQL store, told apart from faults of the work (a constraint, a syntax error): the connection
// lost or refused, the server shutting down or not accepting connections yet, a full disk, an I/O error, a read-only
// server (a standby). A request meeting one is answered 503 with Retry-After; the session reconnects by itself on the
// next statement (postgres.js opens a new connection when the old one is gone).
import { StorageUnavailableError, type StoreFault } from "../../../ports/store.ts";

/** Network and driver errors: the connection is gone or never came. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** SQLSTATE classes and codes that are faults of the store (PostgreSQL's Appendix A). */
function sqlstateClass(code: string): string | null {
  if (code.startsWith("08")) return "PG_CONNECTION"; // connection exception
  if (code === "57P01" || code === "57P02" || code === "57P03") return "PG_CONNECTION"; // admin/crash shutdown, cannot connect now
  if (code === "53100") return "PG_FULL"; // disk full
  if (code.startsWith("53")) return "PG_RESOURCES"; // out of memory, too many connections
  if (code.startsWith("58")) return "PG_IOERR"; // system error, I/O error
  if (code === "25006") return "PG_READONLY"; // read-only SQL transaction (a standby)
  if (code === "57014") return "PG_TIMEOUT"; // canceled: the statement_timeout of the session (./session.ts), or an administrator
  return null;
}

function classOf(x: Record<string, unknown>): string | null {
  const code = typeof x.code === "string" ? x.code : "";
  if (CONNECTION_CODES.has(code)) return "PG_CONNECTION";
  // A PostgresError carries the SQLSTATE in `code` (five characters) and a `severity`.
  if (/^[0-9A-Z]{5}$/.test(code) && ("severity" in x || "severity_local" in x)) return sqlstateClass(code);
  return null;
}

/** Faults that may come after a commit reached the server: the answer was lost, not necessarily the write. */
const UNCERTAIN = new Set(["PG_CONNECTION", "PG_TIMEOUT"]);

/** What an error from the driver says, without the URL or anything from the connection string. */
export function describePgError(e: unknown): string {
  if (e && typeof e === "object") {
    const x = e as Record<string, unknown>;
    const code = typeof x.code === "string" ? x.code : "";
    const message = typeof x.message === "string" ? x.message : "";
    // postgres.js puts host and port in a refused connection's message; a password is never part of it.
    return code && !message.includes(code) ? `${message} (${code})` : message || code || "unknown error";
  }
  return String(e);
}

/** The store fault `e` is (or wraps), or null when it is a fault of the work. */
export function pgFault(e: unknown): StoreFault | null {
  for (let x: unknown = e, depth = 0; x && typeof x === "object" && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    if (x instanceof StorageUnavailableError) return x.fault;
    const cls = classOf(x as Record<string, unknown>);
    if (cls) return { class: cls, cause: describePgError(x), ...(UNCERTAIN.has(cls) ? { uncertain: true } : {}) };
  }
  return null;
}
