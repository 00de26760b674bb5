// The change notice: PostgreSQL's twin of SQLite's `PRAGMA data_version` for the caches (the authentication cache of
// ../repos/tenancy.ts through ../../repos/tenancy-cache.ts, and any other cache of this engine that asks
// `changesOf(session)`). The caches read one number, `dataVersion()`, and empty themselves when it differs from the
// one they were filled at: the same shape SQLite's Storage gives its caches (`DataVersion`).
//
// How the number moves:
// - A commit that changes cached data sends `NOTIFY caravan_changes`: triggers on the cached tables
//   (db/migrations-pg/0005_change_notice.sql) call pg_notify inside the writing transaction, so the notice is
//   delivered when, and only when, it commits, whichever process or tool wrote (the CLI, another node, psql). Its
//   payload is the transaction's ID (one notice per transaction: PostgreSQL folds identical ones).
// - A listener on a connection of its own (LISTEN caravan_changes) adds one for every notice it receives. PostgreSQL
//   delivers a notice to every listening session, the writer's own process included, so a change made here also
//   empties the caches once it is committed (the epoch of tenancy-cache.ts empties them at once, before the commit:
//   a read on a reader meanwhile still sees the row as it was, and the notice then empties what it filled).
// - A cache fill whose read overlapped a notice is kept only when the read already saw that commit (`vouches`: the
//   notice's transaction ID is visible in the snapshot the read returns with its row); else it is dropped, so a row
//   read just before another process's commit is never kept after that commit's notice.
// - While the listener is not subscribed (not yet, or its connection was lost) a notice could be missed: every read
//   of the number then answers a new one, so nothing is served from a cache; it resubscribes by itself (every
//   `retryMs`), and once subscribed it moves the number once more for what it may have missed meanwhile. A
//   connection that stops answering without closing (a partition) is found by a heartbeat and replaced.
//
// What it does not give: SQLite's read is exact at the moment of the request; a notice arrives a moment after the
// other process's COMMIT returned (the server sends it as the transaction ends; on one host, well under a
// millisecond to a few). A request in that moment can still be answered from the cache.
import postgres from "postgres";
import type { DataVersion } from "../repos/tenancy-cache.ts";
import type { PgSession } from "./session.ts";
import type { WakeTopic, Wakeups } from "../../../ports/cluster.ts";

export type { DataVersion } from "../repos/tenancy-cache.ts";

/** The channel the cached tables' triggers notify on commit. */
export const CHANGES_CHANNEL = "caravan_changes";

/**
 * The wake-up hints' channels (db/migrations-pg/0012_wakeups.sql): new mailbox rows and new events (constant payload),
 * replies to a node's asks (payload: the asking node's ID). Heard on the same connection as the change notice.
 */
export const WAKE_CHANNELS: Readonly<Record<WakeTopic, string>> = { mailbox: "caravan_mailbox", events: "caravan_events", replies: "caravan_replies" };
const TOPIC_OF = new Map(Object.entries(WAKE_CHANNELS).map(([topic, channel]) => [channel, topic as WakeTopic]));

export interface PgChangeNotice extends DataVersion, Wakeups {
  /** Whether the listener is subscribed now (while it is not, `dataVersion()` moves on every read). */
  readonly listening: boolean;
  /** The transaction ID of the last notice received (notices arrive in commit order), or null before the first. */
  readonly lastTransaction: number | null;
  /** Stops listening and closes the listener's connection. */
  close(): Promise<void>;
}

export interface ChangeNoticeOptions {
  /** How long to wait before subscribing again after the connection was lost or refused (default 1000 ms). */
  readonly retryMs?: number;
  /** How long a connection attempt may take, seconds (default 10). */
  readonly connectTimeoutSeconds?: number;
  /** How often the listener's connection is asked to answer, and how long it may take (default 5000 ms). */
  readonly heartbeatMs?: number;
}

/**
 * Listens for `caravan_changes` on a connection of its own to `url` (the same database the session uses). Resolves
 * once the first subscription succeeded or failed (a failure keeps retrying; meanwhile nothing is cached).
 */
export async function listenForChanges(url: string, o: ChangeNoticeOptions = {}): Promise<PgChangeNotice> {
  const retryMs = o.retryMs ?? 1000;
  const heartbeatMs = o.heartbeatMs ?? 5000;
  let version = 0;
  /** What each recent move of the version counts: a committed transaction's ID, or null (unknown: a gap). */
  const log = new Map<number, number | null>();
  let lastTransaction: number | null = null;
  const moved = (xid: number | null): number => {
    if (xid !== null) lastTransaction = xid;
    log.set(++version, xid);
    log.delete(version - LOG);
    return version;
  };
  let listening = false;
  let subscribedOnce = false;
  let closed = false;
  const wakers = new Map<WakeTopic, Set<(payload: string | null) => void>>();
  /** Calls the topic's listeners (a listener's throw is its own: the others are still called). */
  const wake = (topic: WakeTopic, payload: string | null): void => {
    for (const fn of wakers.get(topic) ?? []) {
      try {
        fn(payload);
      } catch {
        /* a hint's listener must not stop the others */
      }
    }
  };
  /** After a gap (subscribed again): every listener looks, since a hint may have been missed meanwhile. */
  const wakeAll = (): void => {
    for (const topic of wakers.keys()) wake(topic, null);
  };
  let retry: ReturnType<typeof setTimeout> | undefined;

  type Sql = ReturnType<typeof postgres>;
  /** The listener's connection: replaced when a heartbeat finds it silent (a half-open connection never closes). */
  let sql: Sql | undefined;
  const connect = (): Sql => {
    const me: Sql = postgres(url, {
      max: 1,
      idle_timeout: 0, // kept open: a recycled connection would drop the subscription
      max_lifetime: null,
      connect_timeout: o.connectTimeoutSeconds ?? 10,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: "caravan-notice" },
      onnotify: (channel: string, payload: string) => {
        const topic = TOPIC_OF.get(channel);
        if (topic !== undefined) return wake(topic, payload);
        if (channel !== CHANGES_CHANNEL) return;
        const xid = /^\d+$/.test(payload) ? Number(payload) : NaN;
        moved(Number.isSafeInteger(xid) ? xid : null);
      },
      onclose: () => {
        // Resubscribed on a new connection: postgres.js 3.4.9 may not reconnect a closed one (./session.ts).
        if (sql !== me) return;
        drop(me);
        deaf();
      },
    } as postgres.Options<Record<string, never>>) as unknown as Sql;
    return me;
  };

  /** The subscription is gone or can no longer be trusted: nothing is vouched for until it is back. */
  function deaf(): void {
    listening = false;
    moved(null);
    later();
  }

  /** Gives up a connection (a failed subscription, a silent heartbeat): the next subscription opens a new one. */
  function drop(me: Sql): void {
    if (sql === me) sql = undefined;
    me.end({ timeout: 0 }).catch(() => {});
  }

  function later(): void {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void subscribe();
    }, retryMs);
    (retry as { unref?: () => void }).unref?.();
  }

  async function subscribe(): Promise<void> {
    if (closed || listening) return;
    const me = (sql ??= connect());
    try {
      await me.unsafe(`LISTEN ${CHANGES_CHANNEL}`);
      for (const channel of Object.values(WAKE_CHANNELS)) await me.unsafe(`LISTEN ${channel}`);
      if (closed || sql !== me) return;
      const again = subscribedOnce;
      subscribedOnce = true;
      listening = true;
      moved(null); // what committed while nobody listened
      if (again) wakeAll();
    } catch {
      drop(me);
      later();
    }
  }

  // The heartbeat: a connection that stopped answering without closing (a network partition, a host gone) would
  // keep `listening` true while no notice can arrive; a statement unanswered within `heartbeatMs` ends it.
  let beating = false;
  const heartbeat = setInterval(() => {
    const me = sql;
    if (closed || !listening || !me || beating) return;
    beating = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), heartbeatMs)));
    void Promise.race([me.unsafe("SELECT 1").then(() => true, () => false), silent]).then((answered) => {
      clearTimeout(timer);
      beating = false;
      if (answered || closed || sql !== me) return;
      drop(me);
      deaf();
    });
  }, heartbeatMs);
  (heartbeat as { unref?: () => void }).unref?.();

  await subscribe();
  return {
    get listening() {
      return listening;
    },
    get lastTransaction() {
      return lastTransaction;
    },
    dataVersion: () => (listening ? version : moved(null)),
    on(topic: WakeTopic, fn: (payload: string | null) => void): () => void {
      let set = wakers.get(topic);
      if (!set) wakers.set(topic, (set = new Set()));
      set.add(fn);
      return () => set.delete(fn);
    },
    vouches(from: number, snapshot: string): boolean {
      if (!listening || version - from >= LOG) return false;
      const snap = parseSnapshot(snapshot);
      if (!snap) return false;
      for (let v = from + 1; v <= version; v++) {
        const xid = log.get(v);
        if (xid === undefined || xid === null || !visibleIn(xid, snap)) return false;
      }
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      listening = false;
      clearInterval(heartbeat);
      if (retry !== undefined) clearTimeout(retry);
      await sql?.end({ timeout: 5 });
    },
  };
}

/** How many moves of the version a fill can be vouched across (a fill overlapping more is dropped). */
const LOG = 256;

interface Snapshot {
  xmin: number;
  xmax: number;
  running: Set<number>;
}

/** `pg_current_snapshot()::text`: `xmin:xmax:xip,…`. */
export function parseSnapshot(text: string): Snapshot | null {
  const m = /^(\d+):(\d+):([\d,]*)$/.exec(text);
  if (!m) return null;
  return { xmin: Number(m[1]), xmax: Number(m[2]), running: new Set(m[3] ? m[3].split(",").map(Number) : []) };
}

/** Whether a transaction that committed is visible in the snapshot: finished before it was taken. */
export function visibleIn(xid: number, s: Snapshot): boolean {
  return xid < s.xmin || (xid < s.xmax && !s.running.has(xid));
}

/** The column a cache fill's read adds: the snapshot it read under, for `vouches`. */
export const SNAPSHOT_COLUMN = ", pg_current_snapshot()::text AS read_snapshot";

/** A store no notice listens for: every read is a new number, so its caches never answer. */
function unwatched(): DataVersion {
  let n = 0;
  return { dataVersion: () => ++n };
}

const notices = new WeakMap<PgSession, DataVersion>();
const fallbacks = new WeakMap<PgSession, DataVersion>();

/**
 * Makes `notice` the data version of every cache over `session` (the composition root calls it once, after
 * `listenForChanges` on the same database). Until then, and for a session no notice is attached to, the caches are
 * bypassed: always right, never fast.
 */
export function attachChangeNotice(session: PgSession, notice: DataVersion): void {
  notices.set(session, notice);
}

/** The data version the caches over `session` read: the attached notice, looked up at each read. */
export function changesOf(session: PgSession): DataVersion {
  const current = (): DataVersion => {
    const n = notices.get(session);
    if (n) return n;
    let f = fallbacks.get(session);
    if (!f) fallbacks.set(session, (f = unwatched()));
    return f;
  };
  return {
    dataVersion: () => current().dataVersion(),
    vouches: (from, snapshot) => current().vouches?.(from, snapshot) ?? false,
  };
}

/** `listenForChanges(url)` attached to `session`: the one call a composition root makes. Close it with the session. */
export async function watchChanges(session: PgSession, url: string, o: ChangeNoticeOptions = {}): Promise<PgChangeNotice> {
  const notice = await listenForChanges(url, o);
  attachChangeNotice(session, notice);
  return notice;
}
