// The live event stream's fan-out (issue 18): reads the events table once for all clients, each client's backlog in pages,
// writes SSE frames into a bounded per-client queue, heartbeats, and closes slow, revoked or shut-down streams. With
// several nodes (docs/events.md#several-nodes) it also wakes on other nodes' commits and counts its caps over every node.
// Slow means two things together: more than `bufferBytes` waiting for the connection, and nothing taken from the queue for
// `slowMs`. A client over its buffer that still reads is paced from the table instead (never cut for a busy machine).
import { eventBody } from "../domain/webhooks.ts";
import { batchWindowMs, sseComment, sseMessage, sseRetry, streamAccess, streamFilter, type StreamSettings } from "../domain/events.ts";
import type { Environment } from "../domain/types.ts";
import type { Logger } from "../adapters/log.ts";
import type { EventRecord, EventRepository, TailEvent } from "../ports/events.ts";
import { pushStream, type PushSink } from "../adapters/server/push-stream.ts";
import type { EventIds } from "../adapters/crypto/event-ids.ts";
import type { StreamCapReached, StreamRegistry } from "../ports/event-streams.ts";
import type { WakeTopic } from "../ports/cluster.ts";

export interface StreamOwner {
  companyId: string;
  environment: Environment;
  /** The API key's ID: its open streams are capped too. */
  keyId: string;
  /** The stream scopes the key and role hold now (transfers:read, cases:read). */
  grants: string[];
  /** Re-checks the key (revocation, role change): the scopes it holds now, or null when the stream must end. */
  recheck: () => string[] | null | Promise<string[] | null>;
}

interface Client {
  owner: StreamOwner;
  allows: (type: string) => boolean;
  /** Clients with the same grants share one encoded batch. */
  grantsKey: string;
  /** The seq of the last event this client has been given or skipped past: nothing at or below it is sent again. */
  cursor: number;
  /** false while the backlog (a resume) is read from the table at the client's pace; true once it follows the tail. */
  live: boolean;
  /** The response body it is written into (Bun's direct stream when Bun.serve sends it, else a standard stream). */
  sink: PushSink;
  done: boolean;
  /** Its row in the registry of every node's streams (several nodes), removed when it ends; null on one node. */
  slot: string | null;
  /** Bytes ever queued for this client; minus what is still queued, what its connection has taken. */
  queued: number;
  /** Set when the client fell behind (its queue passed `bufferBytes`): what it has taken then, and when it last took any. */
  behind: { taken: number; since: number } | null;
}

export class StreamRefused extends Error {
  override name = "StreamRefused";
}

/** The refusal's words for a cap met: which cap, how many streams hold it, and the cap. */
function refusal(r: StreamCapReached, environment: Environment): string {
  if (r.cap === "key") return `${r.held} streams are open for this API key (at most ${r.max})`;
  if (r.cap === "environment") return `${r.held} streams are open for this company's ${environment} environment (at most ${r.max})`;
  return `${r.held} streams are open for this company (at most ${r.max})`;
}

const encoder = new TextEncoder();
const yieldToIo = () => new Promise<void>((r) => setTimeout(r, 0));


/** The SSE frames of `rows` after `after` that the client may read, as one chunk (null when none). */
function frames(rows: readonly EventRecord[], c: Client, after: number, message: (e: EventRecord) => string): Uint8Array | null {
  let text = "";
  for (const e of rows) if (e.seq > after && c.allows(e.type)) text += message(e);
  return text ? encoder.encode(text) : null;
}

export class EventStreamHub {
  /** The seq of the last event read from the tail; the backlog of a resume is read up to it. */
  private position = 0;
  private readonly byTenant = new Map<string, Set<Client>>();
  private readonly perCompany = new Map<string, number>();
  private readonly perKey = new Map<string, number>();
  private readonly log: EventRepository;
  /** Whether `position` is the tail's (read when the first stream opens, after none was open). */
  private positioned = false;
  /** The read of the tail's position under way, shared by the streams that open meanwhile. */
  private positioning: Promise<void> | null = null;
  private timers: ReturnType<typeof setInterval>[] = [];
  private unlisten: (() => void)[] = [];
  /** Registry slots of streams that ended whose removal has not succeeded yet (retried: never counted for ever). */
  private readonly unreleased = new Set<string>();
  private releasing: Promise<void> | null = null;
  private releaseRetry: ReturnType<typeof setTimeout> | undefined;
  private pumping = false;
  private scheduled = false;
  private again = false;
  private count = 0;
  /** Streams closed for a full buffer since start (for logs and tests). */
  slowCuts = 0;

  constructor(
    private readonly deps: {
      /** The events port (the composition root's): read once per page for every client. */
      events: EventRepository;
      onEvent: (fn: (seq: number) => void) => () => void;
      /**
       * Several nodes: hints that a commit of any node (this one included) wrote events, so that a stream here follows
       * another node's events at once rather than at the next poll (only a hint: the poll stays). Null on one node.
       */
      wakeups?: { on(topic: WakeTopic, fn: (payload: string | null) => void): () => void } | null;
      /** Several nodes: every node's open streams, counted for the caps. Null on one node (the counts here are the service's). */
      registry?: StreamRegistry | null;
      /** false once the service is stopping: every stream ends so that the server can stop. */
      ready: () => boolean;
      logger: Logger;
      /** The slow-client rule's clock (Date.now when absent). */
      clock?: () => number;
      settings: StreamSettings;
      /** The IDs each company and environment sees for the shared sequence (never the seq itself). */
      ids: EventIds;
    },
  ) {
    this.log = deps.events;
  }

  /** One event row as its SSE message: the ID its company and environment see, the type, the webhook body. */
  private sseMessageOf(e: EventRecord, companyId: string, environment: Environment): string {
    return sseMessage(this.deps.ids.encode(companyId, environment, e.seq), e.type, eventBody(e.type, e.createdAt, JSON.parse(e.dataJson)));
  }

  /** The seq of an event ID of this company's environment, or null when it is none of its events. */
  seqOf(companyId: string, environment: Environment, id: string): number | null {
    return this.deps.ids.decode(companyId, environment, id);
  }

  get open(): number {
    return this.count;
  }

  /** Open streams that fell behind (over their buffer) and are read at their own pace from the table. */
  get behind(): number {
    let n = 0;
    for (const set of this.byTenant.values()) for (const c of set) if (c.behind && !c.done) n++;
    return n;
  }

  /** The newest event's seq in the database (all companies: the sequence is shared). */
  newestSeq(): Promise<number> {
    return this.log.newestSeq();
  }

  /** Every event up to this seq was removed by retention (0: none). */
  prunedThrough(): Promise<number> {
    return this.log.prunedThrough();
  }

  /**
   * Opens a stream for `owner`, after `resumeAfter` (the client's Last-Event-ID) or from now (null).
   * Throws StreamRefused when the key, the company's environment or the company already holds its maximum of open
   * streams (100, 400 and 500 by default): one key cannot take every slot of its company. With a registry (several
   * nodes) those are every node's open streams; without, this process's. `request`: the stream's
   * request, so that a body Bun.serve sends is its direct stream (src/adapters/server/push-stream.ts).
   */
  async openStream(owner: StreamOwner, resumeAfter: number | null, request?: Request): Promise<ReadableStream<Uint8Array>> {
    const { settings } = this.deps;
    // Several nodes: the registry counts every node's streams and takes this one's place (or refuses) first.
    const slot = this.deps.registry ? await this.takeSlot(this.deps.registry, owner) : null;
    // The tail's position (the first stream after none was open); everything after runs in one turn, so on one node
    // the caps below count every stream opened before this one.
    try {
      if (!this.positioned) await this.readPosition();
    } catch (e) {
      if (slot !== null) this.release(slot);
      throw e;
    }
    const byKey = this.perKey.get(owner.keyId) ?? 0;
    const key = `${owner.companyId}|${owner.environment}`;
    const held = this.perCompany.get(owner.companyId) ?? 0;
    if (slot === null) {
      const inEnvironment = this.byTenant.get(key)?.size ?? 0;
      const reached: StreamCapReached | null =
        byKey >= settings.maxPerKey
          ? { cap: "key", held: byKey, max: settings.maxPerKey }
          : inEnvironment >= settings.maxPerEnvironment
            ? { cap: "environment", held: inEnvironment, max: settings.maxPerEnvironment }
            : held >= settings.maxPerCompany
              ? { cap: "company", held, max: settings.maxPerCompany }
              : null;
      if (reached) throw new StreamRefused(refusal(reached, owner.environment));
    }
    if (this.count === 0) this.start();
    const client: Client = {
      owner,
      allows: streamFilter(owner.grants),
      grantsKey: owner.grants.join(","),
      cursor: resumeAfter ?? this.position,
      live: resumeAfter === null || resumeAfter >= this.position,
      sink: undefined as never,
      slot,
      done: false,
      queued: 0,
      behind: null,
    };
    if (client.live) client.cursor = Math.max(client.cursor, this.position);
    let set = this.byTenant.get(key);
    if (!set) this.byTenant.set(key, (set = new Set()));
    set.add(client);
    this.perCompany.set(owner.companyId, held + 1);
    this.perKey.set(owner.keyId, byKey + 1);
    this.count++;
    return pushStream(
      {
        start: (sink) => {
          client.sink = sink;
          this.enqueue(client, encoder.encode(sseRetry(settings.retryMs) + sseComment("connected")));
        },
        pull: () => (client.live ? undefined : this.backlog(client)),
        cancel: () => this.remove(client),
      },
      // Over `bufferBytes` not yet taken by the connection, the client has fallen behind.
      settings.bufferBytes,
      request,
    );
  }

  /**
   * Registers the stream with every node's (StreamRefused at a cap: nothing registered). The slots of streams that ended
   * and are still registered (a removal that failed) go first, so they never count against this one.
   */
  private async takeSlot(registry: StreamRegistry, owner: StreamOwner): Promise<string> {
    if (this.unreleased.size > 0) await this.flushReleases();
    const { settings } = this.deps;
    const id = crypto.randomUUID();
    const reached = await registry.open(
      { id, keyId: owner.keyId, companyId: owner.companyId, environment: owner.environment },
      { perKey: settings.maxPerKey, perEnvironment: settings.maxPerEnvironment, perCompany: settings.maxPerCompany },
      this.now(),
    );
    if (reached) throw new StreamRefused(refusal(reached, owner.environment));
    return id;
  }

  /** A stream's slot is given back (at once, off the caller's turn; retried until the registry takes it). */
  private release(slot: string): void {
    this.unreleased.add(slot);
    void this.flushReleases();
  }

  private flushReleases(): Promise<void> {
    const registry = this.deps.registry;
    if (!registry || this.unreleased.size === 0) return Promise.resolve();
    this.releasing ??= (async () => {
      const ids = [...this.unreleased];
      try {
        await registry.close(ids);
        for (const id of ids) this.unreleased.delete(id);
      } catch (e) {
        // The rows stay counted until a retry removes them (or this node's membership ends): retry after a heartbeat.
        this.deps.logger("warn", "event stream slots not released yet", { streams: ids.length, error: String(e) });
        if (this.releaseRetry === undefined) {
          this.releaseRetry = setTimeout(() => {
            this.releaseRetry = undefined;
            void this.flushReleases();
          }, this.deps.settings.heartbeatMs);
          (this.releaseRetry as { unref?: () => void }).unref?.();
        }
      } finally {
        this.releasing = null;
      }
      // Slots of streams that ended during the removal.
      if (this.unreleased.size > 0 && this.releaseRetry === undefined) await this.flushReleases();
    })();
    return this.releasing;
  }

  /** Reads the tail's position: the newest seq now (events before it are no live stream's to send). */
  private readPosition(): Promise<void> {
    this.positioning ??= this.log.newestSeq().then(
      (seq) => {
        this.positioning = null;
        this.position = Math.max(this.position, seq);
        this.positioned = true;
      },
      (e: unknown) => {
        this.positioning = null;
        throw e;
      },
    );
    return this.positioning;
  }

  private start(): void {
    this.unlisten.push(this.deps.onEvent(() => this.wake()));
    // Another node's commits (and this one's, a moment after onEvent); `null` after a gap in the hints: look now.
    if (this.deps.wakeups) this.unlisten.push(this.deps.wakeups.on("events", () => this.wake()));
    this.timers.push(setInterval(() => this.tick(), this.deps.settings.pollMs));
    this.timers.push(setInterval(() => this.heartbeat(), this.deps.settings.heartbeatMs));
  }

  private stopTimers(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    for (const off of this.unlisten.splice(0)) off();
    // No stream follows the tail any more: the next one to open reads where it is then.
    this.positioned = false;
  }

  /** Events committed by other processes are found here; a stopping service ends every stream. */
  private tick(): void {
    if (!this.deps.ready()) {
      this.closeAll();
      return;
    }
    this.cutStalled();
    this.wake();
  }

  /** Bytes the client's connection has taken from its queue so far. */
  private taken(c: Client): number {
    return c.queued - (this.deps.settings.bufferBytes - c.sink.desiredSize);
  }

  /** The slow-client rule's second half: a client that fell behind and has taken nothing for `slowMs` is closed. */
  private cutStalled(): void {
    const now = this.now();
    for (const set of this.byTenant.values()) {
      for (const c of [...set]) {
        if (c.done || !c.behind) continue;
        const taken = this.taken(c);
        if (taken > c.behind.taken) c.behind = { taken, since: now };
        else if (now - c.behind.since >= this.deps.settings.slowMs) this.cutSlow(c);
      }
    }
  }

  private now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  private enqueue(c: Client, chunk: Uint8Array): void {
    c.sink.write(chunk);
    c.queued += chunk.byteLength;
  }

  /**
   * Commits within the batch window are read and written together (one write per client): the window grows with the
   * open streams (batchWindowMs), so the writes per second stay about the same with 200 streams as with 40.
   */
  private wake(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      void this.pump().catch((e) => this.deps.logger("error", "event stream tail failed", { error: String(e) }));
    }, batchWindowMs(this.deps.settings, this.count));
  }

  /** Reads the tail in pages and hands each event to the live clients of its company and environment. */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.again = false;
        const rows = await this.log.after(this.position, this.deps.settings.pageSize);
        if (rows.length === 0) break;
        const byTenant = new Map<string, typeof rows>();
        for (const e of rows) {
          const key = `${e.companyId}|${e.environment}`;
          if (!this.byTenant.has(key) || streamAccess(e.type) === null) continue;
          let list = byTenant.get(key);
          if (!list) byTenant.set(key, (list = []));
          list.push(e);
        }
        const from = this.position;
        this.position = rows[rows.length - 1].seq;
        // Each event's message is built once per page, whatever the grant sets and clients that receive it.
        const messages = new Map<number, string>();
        const message = (e: EventRecord) => {
          let m = messages.get(e.seq);
          if (m === undefined) {
            const t = e as TailEvent;
            messages.set(e.seq, (m = this.sseMessageOf(e, t.companyId, t.environment)));
          }
          return m;
        };
        for (const [key, list] of byTenant) {
          // One encoded batch per distinct grant set, shared by every client that follows the tail from before it.
          const shared = new Map<string, Uint8Array | null>();
          for (const c of this.byTenant.get(key) ?? []) {
            if (!c.live || c.done) continue;
            let chunk: Uint8Array | null | undefined;
            if (c.cursor <= from) {
              chunk = shared.get(c.grantsKey);
              if (chunk === undefined) shared.set(c.grantsKey, (chunk = frames(list, c, 0, message)));
            } else chunk = frames(list, c, c.cursor, message);
            c.cursor = this.position;
            if (chunk) this.push(c, chunk);
          }
        }
        if (rows.length === this.deps.settings.pageSize) {
          this.again = true;
          // Let the connections take what was queued before the next page (a burst is not one long turn).
          await yieldToIo();
        }
        if (this.count === 0) break;
      } while (this.again);
    } finally {
      this.pumping = false;
    }
  }

  /**
   * A resume: the next pages of the client's backlog (up to the tail position), read only while its queue is less
   * than half full, so the live tail that follows always finds room. Memory: at most one page per client at a time.
   */
  private async backlog(c: Client): Promise<void> {
    const { pageSize, bufferBytes } = this.deps.settings;
    while (!c.done && !c.live) {
      const room = c.sink.desiredSize - bufferBytes / 2;
      if (room <= 0) return; // the next read by the connection asks again
      const upTo = this.position;
      const rows = await this.log.tenantPage(c.owner.companyId, c.owner.environment, c.cursor, upTo, pageSize);
      // Retention removed events this replay had not reached (read after the page: a prune during the read counts).
      if (c.cursor < (await this.log.prunedThrough())) return this.end(c, "events this resume still needed were removed after the retention window");
      let text = "";
      let taken = 0;
      for (const e of rows) {
        if (c.allows(e.type)) {
          const m = this.sseMessageOf(e, c.owner.companyId, c.owner.environment);
          if (text && text.length + m.length > room) break;
          text += m;
        }
        c.cursor = e.seq;
        taken++;
      }
      if (taken === rows.length && rows.length < pageSize) {
        // Caught up with the tail: from here on the pump delivers; the cursor keeps it from repeating anything.
        c.cursor = Math.max(c.cursor, upTo);
        c.live = true;
        c.behind = null;
      }
      if (text) {
        this.enqueue(c, encoder.encode(text));
        return;
      }
      if (!c.live) await yieldToIo();
    }
  }

  private push(c: Client, frame: Uint8Array): void {
    try {
      this.enqueue(c, frame);
    } catch {
      this.remove(c);
      return;
    }
    // A client following the tail whose queue passes `bufferBytes` falls behind: the tail no longer queues for it, and
    // the rest is read from the table as its connection takes what is queued (a backlog, from its cursor), so its
    // memory stays bounded and nothing is lost. Only if it then takes nothing for `slowMs` is it cut (cutStalled).
    if (c.live && c.sink.desiredSize < 0) {
      c.live = false;
      c.behind = { taken: this.taken(c), since: this.now() };
      this.deps.logger("info", "event stream behind: fed from the table at the client's pace", this.logFields(c));
    }
  }

  /** A slow client (over its buffer and not reading) ends at once, its memory freed; it resumes by Last-Event-ID. */
  private cutSlow(c: Client): void {
    this.slowCuts++;
    this.deps.logger("warn", "event stream closed: client too slow", this.logFields(c));
    try {
      c.sink.fail(new Error("event stream buffer full"));
    } catch {
      // already closed
    }
    this.remove(c);
  }

  /** What the stream's log lines say about a client: whose it is, where it is, and the bytes its connection has not taken. */
  private logFields(c: Client): Record<string, unknown> {
    return { companyId: c.owner.companyId, environment: c.owner.environment, keyId: c.owner.keyId, cursor: c.cursor, waitingBytes: this.deps.settings.bufferBytes - c.sink.desiredSize };
  }

  /**
   * Pings every stream, after re-checking its key. A client that is behind gets no ping: it has more than its buffer
   * waiting already, and a ping would be the only write to a connection that takes nothing. The kernel takes such a
   * small write at once whenever the socket's send buffer (autotuned up to net.ipv4.tcp_wmem's maximum, 4 MB on
   * common kernels) has a little room, even while the other side reads nothing (traced: every 8-byte ping accepted,
   * the peer's receive queue unchanged), so pings counted as "taken something" and kept a client that never read
   * from ever being cut.
   */
  private heartbeat(): void {
    const ping = encoder.encode(sseComment("ping"));
    for (const set of this.byTenant.values()) {
      for (const c of set) {
        if (c.done) continue;
        const grants = c.owner.recheck();
        // A credential answered from the cache is applied in this turn; a lookup (a session, a cache miss) when it ends.
        if (grants instanceof Promise) void grants.then((g) => this.rechecked(c, g, ping), () => this.rechecked(c, null, ping));
        else this.rechecked(c, grants, ping);
      }
    }
  }

  private rechecked(c: Client, grants: string[] | null, ping: Uint8Array): void {
    if (c.done) return;
    if (grants === null) {
      this.end(c, "the key no longer opens this stream");
      return;
    }
    c.allows = streamFilter(grants);
    c.grantsKey = grants.join(",");
    if (!c.behind) this.push(c, ping);
  }

  private end(c: Client, why: string): void {
    try {
      this.enqueue(c, encoder.encode(sseComment(`closed: ${why}`)));
      c.sink.close();
    } catch {
      // already closed or errored
    }
    this.remove(c);
  }

  private closeAll(): void {
    for (const set of [...this.byTenant.values()]) for (const c of [...set]) this.end(c, "the server is stopping");
  }

  private remove(c: Client): void {
    if (c.done) return;
    c.done = true;
    const key = `${c.owner.companyId}|${c.owner.environment}`;
    const set = this.byTenant.get(key);
    set?.delete(c);
    if (set && set.size === 0) this.byTenant.delete(key);
    const held = (this.perCompany.get(c.owner.companyId) ?? 1) - 1;
    if (held <= 0) this.perCompany.delete(c.owner.companyId);
    else this.perCompany.set(c.owner.companyId, held);
    const byKey = (this.perKey.get(c.owner.keyId) ?? 1) - 1;
    if (byKey <= 0) this.perKey.delete(c.owner.keyId);
    else this.perKey.set(c.owner.keyId, byKey);
    this.count--;
    if (c.slot !== null) this.release(c.slot);
    if (this.count === 0) this.stopTimers();
  }
}
