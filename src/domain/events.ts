// The live event stream, pure (issue 18): which read scope an event needs, the resume point, SSE framing, stream settings.
import type { Issue } from "./errors.ts";
import type { Permission } from "./access.ts";

/** What a key and its member's role must hold to receive an event type on the stream. */
export interface StreamAccess {
  scope: "transfers:read" | "cases:read";
  permission: Permission;
}

const TRANSFERS: StreamAccess = { scope: "transfers:read", permission: "transfers:view" };
const CASES: StreamAccess = { scope: "cases:read", permission: "cases:view" };

/**
 * Scope mapping (designed here): `transfer.*` and `compliance.*` (a transfer's screening) need `transfers:read`,
 * `case.*` needs `cases:read`, each with the matching role permission. `test.ping` and any other type are never
 * streamed (null): the ping goes to one webhook subscription only.
 */
export function streamAccess(type: string): StreamAccess | null {
  if (type.startsWith("transfer.") || type.startsWith("compliance.")) return TRANSFERS;
  if (type.startsWith("case.")) return CASES;
  return null;
}

/** The stream's two read grants; a key needs at least one to open it. */
export const STREAM_GRANTS: readonly StreamAccess[] = [TRANSFERS, CASES];

/** The stream scopes a key holds (with the role permission that goes with each), in catalogue order. */
export function streamGrants(holds: (a: StreamAccess) => boolean): string[] {
  return STREAM_GRANTS.filter(holds).map((g) => g.scope);
}

/** Which event types a holder of these scopes receives, as a predicate. */
export function streamFilter(grants: readonly string[]): (type: string) => boolean {
  const granted = new Set(grants);
  return (type) => {
    const a = streamAccess(type);
    return a !== null && granted.has(a.scope);
  };
}

/** An event ID as the stream shows it: 22 base64url characters (src/adapters/crypto/event-ids.ts). */
const EVENT_ID = /^[A-Za-z0-9_-]{22}$/;

/** Where a stream resumes: from the first event kept (`0`), or after the event with this ID. */
export type ResumePoint = { start: true } | { id: string };

/**
 * A resume point (`Last-Event-ID` header or `lastEventId` query parameter): the ID of the last event the client holds,
 * or `0` for "from the first event". Anything else is an issue for 400 INVALID_QUERY. Whether an ID of the right form
 * is one of the company's events is for the stream to say (it deciphers it).
 */
export function parseResumePoint(raw: string, path: string): { point: ResumePoint } | { issue: Issue } {
  const text = raw.trim();
  if (text === "0") return { point: { start: true } };
  if (!EVENT_ID.test(text)) return { issue: { path, message: "must be the id of an event received on this stream, or 0" } };
  return { point: { id: text } };
}

/** One SSE message: `id: <event ID>`, `event: <type>`, `data: <webhook body JSON>` (one line: JSON.stringify escapes newlines). */
export function sseMessage(id: string, type: string, body: string): string {
  return `id: ${id}\nevent: ${type}\ndata: ${body}\n\n`;
}

/** An SSE comment line (ignored by clients): heartbeats. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

/** The reconnection delay a client should use (`retry:` field, milliseconds). */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}

export interface StreamSettings {
  /** A `: ping` comment this often (milliseconds). */
  heartbeatMs: number;
  /** Bytes queued for one client and not yet taken by its connection; over it the client is read at its own pace. */
  bufferBytes: number;
  /** A client over its buffer that takes nothing from its queue for this long is slow: its stream is closed (milliseconds). */
  slowMs: number;
  /** Open streams per company, both environments together; one more is 429 RATE_LIMITED. */
  maxPerCompany: number;
  /** Open streams per company and environment (under the company's cap, so one environment cannot take it all). */
  maxPerEnvironment: number;
  /** Open streams per API key (so one key, a leaked test key say, cannot take its environment's or company's). */
  maxPerKey: number;
  /** Events read per page (resume backlog and live tail). */
  pageSize: number;
  /** Events written by other processes (CLI) are looked for this often (milliseconds). */
  pollMs: number;
  /** The `retry:` advice sent when a stream opens (milliseconds). */
  retryMs: number;
  /** Commits within this window go out together: one write per client instead of one per event (milliseconds). */
  batchMs: number;
  /** The longest batch window, however many streams are open (milliseconds); see batchWindowMs. */
  batchMaxMs: number;
}

export const STREAM_DEFAULTS: StreamSettings = {
  heartbeatMs: 15_000,
  bufferBytes: 1024 * 1024,
  slowMs: 30_000,
  maxPerCompany: 500,
  maxPerEnvironment: 400,
  maxPerKey: 100,
  pageSize: 200,
  pollMs: 500,
  retryMs: 1_000,
  batchMs: 10,
  batchMaxMs: 250,
};

const ENV: Record<keyof StreamSettings, [name: string, min: number, max: number]> = {
  heartbeatMs: ["CARAVAN_STREAM_HEARTBEAT_MS", 50, 3_600_000],
  bufferBytes: ["CARAVAN_STREAM_BUFFER_BYTES", 4096, 1 << 30],
  slowMs: ["CARAVAN_STREAM_SLOW_MS", 100, 3_600_000],
  maxPerCompany: ["CARAVAN_STREAM_MAX_PER_COMPANY", 1, 1_000_000],
  maxPerEnvironment: ["CARAVAN_STREAM_MAX_PER_ENVIRONMENT", 1, 1_000_000],
  maxPerKey: ["CARAVAN_STREAM_MAX_PER_KEY", 1, 1_000_000],
  pageSize: ["CARAVAN_STREAM_PAGE_SIZE", 1, 10_000],
  pollMs: ["CARAVAN_STREAM_POLL_MS", 10, 60_000],
  retryMs: ["CARAVAN_STREAM_RETRY_MS", 0, 3_600_000],
  batchMs: ["CARAVAN_STREAM_BATCH_MS", 0, 1_000],
  batchMaxMs: ["CARAVAN_STREAM_BATCH_MAX_MS", 0, 1_000],
};

/** Each open stream lengthens the batch window by this much (milliseconds): see batchWindowMs. */
export const BATCH_MS_PER_STREAM = 0.25;

/**
 * The batch window for `open` streams. A write to a connection costs the server about the same whatever its size
 * (one send call, a few microseconds), so what the fan-out costs per second is open streams × batches per second.
 * The window grows with the streams: `batchMs` up to 40 streams, then a quarter of a millisecond per stream (50 ms
 * for 200), at most `batchMaxMs`; that holds the writes to about 4,000 a second while events arrive continuously,
 * and a client still gets each event within the window (250 ms at most, inside the console's 1 s promise).
 */
export function batchWindowMs(settings: Pick<StreamSettings, "batchMs" | "batchMaxMs">, open: number): number {
  return Math.max(settings.batchMs, Math.min(settings.batchMaxMs, open * BATCH_MS_PER_STREAM));
}

/** Settings from the environment (unset or empty: the default). Throws RangeError naming the variable otherwise. */
export function streamSettings(env: Record<string, string | undefined>): StreamSettings {
  const out = { ...STREAM_DEFAULTS };
  for (const [field, [name, min, max]] of Object.entries(ENV) as [keyof StreamSettings, [string, number, number]][]) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || n < min || n > max) throw new RangeError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    out[field] = n;
  }
  return out;
}
