// The durable actor runtime: durable mailboxes, one message at a time per actor, group-committed outbox. Its store is
// the runtime store port (src/ports/runtime-store.ts) inside the store's units of work (src/ports/store.ts).
import { StorageUnavailableError, type StoreFault } from "../ports/store.ts";
import { isThenable, settledValue, thenNow } from "../ports/settled.ts";
import type { MessageRecord, MessageRef, RuntimeHost, RuntimeStore, Tenant } from "../ports/runtime-store.ts";
import { ShardFencedError, shardOf, type Wakeups } from "../ports/cluster.ts";
import type { Leadership, Placement } from "./placement.ts";
import type { ReplyRecord, ReplyStore } from "../ports/replies.ts";
import { decodeError, decodeValue, encodeError, encodeValue, tokenNode } from "./replies.ts";
import { FaultLog, storeBackoffMs } from "../adapters/fault-log.ts";
import { newId, iso } from "../domain/ids.ts";
import { Timers, type SweepSchedule } from "./timers.ts";
import {
  ActorDeadLetterError,
  ActorStoppedError,
  ActorTimeoutError,
  type ActorContext,
  type ActorEvent,
  type ActorKind,
  type TellOptions,
} from "./types.ts";

/** At most this many remembered plaintext bodies (messages queued in this process). */
const PLAIN_BODIES = 10_000;

export interface RuntimeOptions {
  /** Milliseconds since epoch. Tests may pass their own. */
  clock?: () => number;
  /**
   * Handlers running at once per actor kind (each kind has its own pool of slots, so that handlers of one kind
   * waiting on another kind's actors, a transfer asking a connection for a permit, never starve that kind).
   */
  concurrency?: number;
  /** Actors kept in memory; beyond this the least recently used idle actor is passivated. */
  maxResident?: number;
  /** Attempts of a throwing handler before its message is parked as dead. */
  maxAttempts?: number;
  backoffMs?: (attempt: number) => number;
  /** How often other processes' inserts (the CLI on the same database) are looked for. */
  pollMs?: number;
  /** CARAVAN_EVENTS_COMPACT: event data stored deflated (less disk, ~10 µs more per event written). */
  compactEvents?: boolean;
  /** Replaces the sweeps' own croner schedules (CARAVAN_SWEEP_SCHEDULE; see parseSweepSchedule). */
  sweepSchedule?: SweepSchedule;
  log?: (level: "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;
  /** Faults of one class (a full disk, one actor's runtime fault) are logged once per this many ms, with a count (default 10 s). */
  faultLogIntervalMs?: number;
  /** The delay after `n` store faults in a row (default: growing from 250 ms, capped at 5 s, with jitter). */
  storeBackoffMs?: (n: number) => number;
  /**
   * Seals message bodies and actor state at rest (both may carry personal data: a flow's screened counterparty
   * persons, say); the actor address is the associated data ("state:<address>" for state).
   */
  sealer?: { seal(plain: string, aad: string): string; open(sealed: string, aad: string): string };
  /**
   * Several nodes on one database (docs/architecture.md#several-nodes): this runtime handles only the actors of the
   * shards the placement holds, and every commit of an actor's turn checks the shard's lease in its own transaction.
   * Absent (SQLite, one node): every actor is this runtime's and nothing is fenced.
   */
  placement?: Placement;
  /**
   * Several nodes: the sweeps run only while this node leads (the leader lease); on the others a sweep's turn passes.
   * Absent (SQLite, one node): this runtime always leads.
   */
  leader?: Leadership;
  /**
   * Several nodes: where the answer to another node's ask is written (in the transaction that acknowledges the message)
   * and where this runtime's own answers from other nodes are taken. With it, an ask's token names this runtime's node
   * (`ask_…@<nodeId>`).
   */
  replies?: ReplyStore;
  /** The node this runtime's asks name (default: the placement's node ID). A CLI names itself, a transient asker. */
  nodeId?: string;
  /** Wake-up hints (PostgreSQL's LISTEN): a `mailbox` hint picks up inserts at once, a `replies` hint takes answers. */
  wakeups?: Wakeups;
  /** How long an answer waits for its asker before it is swept (default 10 minutes: longer than any ask waits). */
  replyTtlMs?: number;
}

interface Resident {
  state: unknown;
  lastMessageId: number;
  /** The state text as stored in actor_state (undefined: no row yet): an unchanged state is not written again. */
  savedText: string | undefined;
}

interface Queue {
  ready: number[]; // eligible message ids, ascending
  blockedUntil: number; // retry back-off of the head message
  busy: boolean;
  scheduled: boolean;
}

interface Unit {
  /** The shard of the actor whose turn this commits (fenced when the runtime has a placement); undefined: a send. */
  shard?: number;
  /** The lease epoch the turn began under: the commit must still be under it. */
  epoch?: number;
  /** The unit's statements; nothing to wait for (undefined) when the store answered each of them at once. */
  apply(): void | Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

interface PendingAsk {
  /** The actor asked: while its shard is another node's, the answer comes as a row (see takeReplies). */
  to: string;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: ReturnType<typeof setTimeout>;
}

type Outgoing = { to: string; body: string; dueAt: number; replyTo: string | null };
/** A handler's write: store calls, run inside the commit's unit of work. */
type Write = () => unknown;

/** One unit's effects being applied (applyEffects), and where the new rows' IDs go. */
interface Effects {
  address: string;
  messageId: number;
  now: number;
  fx: { writes: Write[]; outgoing: Outgoing[]; events: ActorEvent[] };
  stateText: string | undefined;
  ack: boolean;
  lastMessageId: number;
  ids: number[];
  seqs: number[];
  at: string;
}

/** How many store calls a unit makes: its writes, new messages, events, the state when changed, the acknowledgement (none for a mailbox-less inline ask). */
function effectSteps(e: Effects): number {
  const { fx } = e;
  return fx.writes.length + fx.outgoing.length + fx.events.length + (e.stateText !== undefined ? 1 : 0) + (e.messageId === 0 ? 0 : 1);
}

/** Keeps step k's answer: a new message's ID, or an event's seq. */
function keepStep(e: Effects, k: number, value: unknown): void {
  const { fx } = e;
  k -= fx.writes.length;
  if (k < 0) return;
  if (k < fx.outgoing.length) {
    e.ids.push(value as number);
    return;
  }
  k -= fx.outgoing.length;
  if (k < fx.events.length) e.seqs.push(value as number);
}

const defer: (fn: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function"
    ? (fn) => (globalThis as unknown as { setImmediate(f: () => void): void }).setImmediate(fn)
    : (fn) => setTimeout(fn, 0);

/** The kind part of an address (`kind:id`), without checking it. */
function kindOf(address: string): string {
  const i = address.indexOf(":");
  return i > 0 ? address.slice(0, i) : address;
}

/** The company and environment a message names (every tenant's command carries both), or null (the runtime's own). */
function tenantOf(msg: unknown): Tenant | null {
  if (msg === null || typeof msg !== "object") return null;
  const { companyId, environment } = msg as { companyId?: unknown; environment?: unknown };
  return typeof companyId === "string" && (environment === "test" || environment === "live") ? { companyId, environment } : null;
}

export function splitAddress(address: string): { kind: string; id: string } {
  const i = address.indexOf(":");
  if (i <= 0 || i === address.length - 1) throw new Error(`actor address must be kind:id, got "${address}"`);
  return { kind: address.slice(0, i), id: address.slice(i + 1) };
}

export class ActorRuntime {
  readonly mailbox: RuntimeStore;
  private readonly clock: () => number;
  private readonly concurrency: number;
  private readonly maxResident: number;
  private readonly maxAttempts: number;
  private readonly backoff: (attempt: number) => number;
  private readonly pollMs: number;
  private readonly log: NonNullable<RuntimeOptions["log"]>;
  private readonly sealer: RuntimeOptions["sealer"];
  /** Plaintext of bodies sealed by this process for its own mailbox, by sealed text (see sealBody, openBody). */
  private readonly plainBySealed = new Map<string, string>();
  /** Every group commit with a savepoint per unit, as before the optimistic pass (benchmarks compare the two). */
  private savepointsOnly = false;

  private readonly kinds = new Map<string, ActorKind<any, any>>();
  private readonly resident = new Map<string, Resident>(); // LRU: oldest first
  private readonly queues = new Map<string, Queue>();
  private readonly known = new Set<number>(); // pending message ids indexed in memory
  /** Actors with a due message, FIFO per kind (each kind has its own pool of `concurrency` slots). */
  private readonly runnable = new Map<string, string[]>();
  private runnableCount = 0;
  /** Handlers running, per kind. */
  private readonly slotsTaken = new Map<string, number>();
  private readonly asks = new Map<string, PendingAsk>();
  private readonly eventListeners = new Set<(seq: number) => void>();
  /** Messages to an actor whose insert is not yet committed and indexed: an inline ask must not overtake them. */
  private readonly pendingTo = new Map<string, number>();
  /** Actors an ask reads the mailbox for before it is inline (placed): sends to them meanwhile wait, in order. */
  private readonly reserving = new Map<string, (() => void)[]>();
  /** Kinds whose handler returned a promise once: their asks always go through the mailbox. */
  private readonly notInline = new Set<string>();
  private readonly timers: Timers;
  private units: Unit[] = [];
  private flushScheduled = false;
  /** The group commit under way (one at a time: the next batch gathers meanwhile). */
  private flushing: Promise<void> | null = null;
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];
  private lastPolledId = 0;
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  private running = false;
  private stopping = false;
  /** Sweeps under way (stop() waits for them). */
  private readonly sweepsRunning = new Set<Promise<void>>();
  /** Faults logged once per class per interval, with their count (a full disk must not flood the log). */
  readonly faultLog: FaultLog;
  private readonly storeBackoff: (n: number) => number;
  /** Store faults in a row (reset when the store takes writes again): the back-off grows with it. */
  private storeFaults = 0;
  /** Actors waiting out a store fault: released at once when the store takes writes again. */
  private readonly storeBlocked = new Set<string>();
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribeHealth: (() => void) | undefined;
  private readonly placement: Placement | undefined;
  private readonly leader: Leadership | undefined;
  private unsubscribePlacement: (() => void) | undefined;
  /** Per actor whose turn is under way (with a placement): the epoch of its shard's lease when the turn began. */
  private readonly turnEpochs = new Map<string, number>();
  private readonly replies: ReplyStore | undefined;
  /** The node this runtime's ask tokens name (with `replies`), or undefined (tokens of this process only). */
  readonly nodeId: string | undefined;
  private readonly wakeups: Wakeups | undefined;
  private readonly replyTtlMs: number;
  private readonly unsubscribeWakeups: (() => void)[] = [];
  /** Polls this node's answers while an ask waits for another node (the fallback of the `replies` hint). */
  private replyTimer: ReturnType<typeof setInterval> | undefined;
  private takingReplies: Promise<void> | null = null;
  private takeAgain = false;

  processed = 0;
  failures = 0;
  /** Commits refused by the fence (this node no longer held the actor's shard). */
  fenced = 0;

  constructor(
    readonly storage: RuntimeHost,
    opts: RuntimeOptions = {},
  ) {
    this.mailbox = storage.runtimeStore({ compactEvents: opts.compactEvents });
    this.clock = opts.clock ?? Date.now;
    this.concurrency = opts.concurrency ?? 64;
    this.maxResident = opts.maxResident ?? 10_000;
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.backoff = opts.backoffMs ?? ((n) => Math.min(100 * 2 ** (n - 1), 30_000));
    this.pollMs = opts.pollMs ?? 1000;
    this.log = opts.log ?? (() => {});
    this.sealer = opts.sealer;
    this.placement = opts.placement;
    this.leader = opts.leader;
    this.replies = opts.replies;
    this.nodeId = opts.replies ? (opts.nodeId ?? opts.placement?.nodeId) : undefined;
    if (this.nodeId !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(this.nodeId)) throw new Error(`node ID must be 1 to 64 letters, digits, ".", "_" or "-", got "${this.nodeId}"`);
    this.wakeups = opts.wakeups;
    this.replyTtlMs = opts.replyTtlMs ?? 600_000;
    this.timers = new Timers(this.clock, (ref) => this.becameDue(ref), opts.sweepSchedule);
    this.faultLog = new FaultLog(this.log, this.clock, opts.faultLogIntervalMs ?? 10_000);
    this.storeBackoff = opts.storeBackoffMs ?? ((n) => storeBackoffMs(n, 250, 5_000));
  }

  /**
   * A store fault met by `where` (an actor, a sweep): one line per class per interval, and the delay before `where`
   * tries again (growing while the faults go on). The store is probed meanwhile, so that everything waiting is released
   * as soon as it takes writes again, even when no other work would find out.
   */
  private storeFaulted(fault: StoreFault, fields: Record<string, unknown>): number {
    this.storeFaults++;
    this.faultLog.record("error", "storage fault", fault.class, { cause: fault.cause, ...fields });
    this.armProbe();
    return this.storeBackoff(this.storeFaults);
  }

  private armProbe(): void {
    if (this.probeTimer || !this.running || this.stopping) return;
    this.probeTimer = setTimeout(async () => {
      if (!this.running || this.stopping || this.storage.health.unavailable === null) {
        this.probeTimer = undefined;
        return;
      }
      try {
        // A success clears the fault once it has lasted (the health listener then releases the waiters); until then
        // the probe goes on, at the back-off of the faults before it.
        if (!(await this.storage.probeWrite(this.clock()))) this.storeFaults++;
      } catch {
        /* not a store fault: the next work will say */
      }
      this.probeTimer = undefined;
      this.armProbe();
    }, this.storeBackoff(this.storeFaults + 1));
  }

  /** The store takes writes again: the waiters go now, and the log says how long it lasted and what it did not print. */
  private storeRecovered(): void {
    if (this.storeFaults === 0 && this.storeBlocked.size === 0) return;
    this.faultLog.flush("info", "storage available again", { faults: this.storeFaults });
    this.storeFaults = 0;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    for (const actor of this.storeBlocked) {
      const q = this.queues.get(actor);
      if (!q) continue;
      q.blockedUntil = 0;
      this.markRunnable(actor);
    }
    this.storeBlocked.clear();
    for (const s of this.sweepBackoff.values()) {
      s.faults = 0;
      s.skipUntil = 0;
    }
    this.pump();
  }

  /**
   * A fault outside any handler (a message that could not be recorded, say): a store fault is logged as one, once per
   * class per interval, and the store is probed until it recovers; any other fault once per class per interval as `msg`.
   */
  /** Whether this runtime handles the actor now (always without a placement; else while its shard is this node's). */
  handles(address: string): boolean {
    return !this.placement || this.placement.owns(address);
  }

  reportFault(msg: string, e: unknown, fields: Record<string, unknown> = {}): void {
    const fault = this.storage.faultOf(e);
    if (fault) {
      this.storeFaulted(fault, { where: msg, ...fields });
      return;
    }
    this.faultLog.record("error", msg, e instanceof Error ? e.name : "Error", { error: String(e), ...fields });
  }

  /** Blocks an actor's queue for `ms` after a fault that is not its message's (a store fault, a runtime fault). */
  private holdBack(actor: string, q: Queue, ms: number, store: boolean): void {
    const until = this.clock() + ms;
    q.blockedUntil = Math.max(q.blockedUntil, until);
    if (store) this.storeBlocked.add(actor);
    this.timers.wake(until, actor);
  }

  /** Per sweep: store faults in a row and the time before which it is skipped. */
  private readonly sweepBackoff = new Map<string, { faults: number; skipUntil: number }>();

  register<S, M>(kind: ActorKind<S, M>): this {
    if (this.kinds.has(kind.kind)) throw new Error(`actor kind ${kind.kind} registered twice`);
    this.kinds.set(kind.kind, kind);
    return this;
  }

  /** Loads every unacknowledged message (a restart replays them) and starts handling. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribeHealth = this.storage.health.onChange((f) => {
      if (f === null) this.storeRecovered();
    });
    this.unsubscribePlacement = this.placement?.onChange((gained, lost) => this.shardsMoved(gained, lost));
    // A shard handed over to another node goes once no turn of its actors is under way here (they commit first).
    this.placement?.watchTurns?.((shard) => this.turnUnder(shard));
    if (this.wakeups) this.unsubscribeWakeups.push(this.wakeups.on("mailbox", (payload) => this.mailboxHint(payload)));
    this.listenForReplies();
    await this.sealPlainStates();
    await this.pickUpInserts();
    this.pollTimer = setInterval(() => void this.pickUpInserts().catch((e) => this.reportFault("mailbox poll failed", e)), this.pollMs);
    if (this.replies) {
      const replies = this.replies;
      // Answers whose asker timed out are removed when it next takes its own; those of askers that are gone, here.
      this.sweep("actor-replies", "17 */5 * * * *", async (now) => {
        await replies.sweep(now - this.replyTtlMs);
      });
    }
    this.pump();
  }

  /**
   * Messages another writer put in the mailbox on this connection (a replayed dead letter): picked up now rather than
   * at the next poll. Does nothing before start or while stopping.
   */
  async noticeInserts(): Promise<void> {
    if (!this.running) return;
    await this.pickUpInserts();
    while (this.rescanning) await this.rescanning;
  }

  /**
   * Registers a periodic sweep (croner expression, seconds allowed); overlapping runs are skipped. With several nodes
   * only the leader runs it (`RuntimeOptions.leader`): what a sweep finds due goes to actors, whose turns are fenced.
   */
  sweep(name: string, pattern: string, fn: (now: number) => void | Promise<void>): void {
    const backoff = { faults: 0, skipUntil: 0 };
    this.sweepBackoff.set(name, backoff);
    this.timers.sweep(name, pattern, async () => {
      if (this.stopping) return;
      if (this.leader && !this.leader.leads()) return;
      // A sweep that met a store fault waits out its back-off instead of failing on every tick.
      if (this.clock() < backoff.skipUntil) return;
      const run = (async () => {
        try {
          await fn(this.clock());
          backoff.faults = 0;
        } catch (e) {
          const fault = this.storage.faultOf(e);
          if (fault) {
            backoff.faults++;
            const ms = this.storeFaulted(fault, { sweep: name });
            backoff.skipUntil = this.clock() + Math.max(ms, this.storeBackoff(backoff.faults));
            return;
          }
          this.faultLog.record("error", "sweep failed", e instanceof Error ? e.name : "Error", { sweep: name, error: String(e) });
        }
      })();
      // stop() waits for sweeps under way, so none runs on after the storage is closed.
      this.sweepsRunning.add(run);
      await run;
      this.sweepsRunning.delete(run);
    });
  }

  /** Durable fire-and-forget: resolves with the message id once the message is committed. */
  tell(to: string, body: unknown, opts: TellOptions = {}): Promise<number> {
    return this.send(to, body, opts, null);
  }

  /** Request/reply: the handler's `ctx.reply(value)` resolves it. The message stays durable after a timeout. */
  ask<R = unknown>(to: string, body: unknown, opts: TellOptions & { timeoutMs?: number } = {}): Promise<R> {
    if (this.stopping) return Promise.reject(new ActorStoppedError("actor runtime is stopping"));
    // With several nodes the token names this node: the actor's holder, another node perhaps, answers it through a row.
    const token = this.nodeId === undefined ? newId("ask", this.clock()) : `${newId("ask", this.clock())}@${this.nodeId}`;
    const timeoutMs = opts.timeoutMs ?? 10_000;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.asks.delete(token);
        reject(new ActorTimeoutError(`ask to ${to} got no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.asks.set(token, { to, resolve: resolve as (v: unknown) => void, reject, timer });
      if (this.replies) {
        this.armReplyPoll();
        this.listenForReplies(); // a runtime that is not started (the CLI) listens from its first ask
      }
      const durably = () =>
        this.send(to, body, opts, token).catch((e) => {
          clearTimeout(timer);
          this.asks.delete(token);
          reject(e);
        });
      if (!this.canInline(to, opts)) void durably();
      else if (!this.placement) this.inline(to, body, token, durably);
      else {
        // Placed: a message another process committed to the actor before this ask must be handled first. The mailbox
        // is read up to now (a pickup that starts after the ask), and the ask is inline only if nothing turned up.
        // Meanwhile this process's own sends to the actor wait, so that they still come after the ask.
        const waiting: (() => void)[] = [];
        this.reserving.set(to, waiting);
        const go = (read: boolean) => {
          this.reserving.delete(to);
          if (read && this.canInline(to, opts)) this.inline(to, body, token, durably);
          else void durably();
          for (const send of waiting) send();
        };
        this.pickUpFresh().then(
          () => go(true),
          () => go(false),
        );
      }
    });
  }

  /**
   * One command handled in this process, by a runtime that was not started: how the CLI reaches the actors, against a
   * live database whether a server runs on it or not (a started runtime would pick up the server's mailbox). The kind's
   * handler runs inside one write transaction (`store.transaction`), so what it reads is read under the write lock, and
   * the same unit of work every handled message commits (its writes, outgoing messages as mailbox rows the running
   * server picks up, its events, its state) commits in that transaction, all or nothing; the reply is returned. A
   * handler that awaits the store is handled here like any other; one that takes a checkpoint (it calls out) belongs
   * to the server. `claim` (several nodes' database, none running): called first inside that transaction, it takes the
   * actor's shard for the transaction (false: a node holds it, and this refuses with ShardFencedError, nothing done).
   */
  async handleHere<R = unknown>(to: string, body: unknown, o: { claim?: () => Promise<boolean> } = {}): Promise<R> {
    if (this.running) throw new Error("handleHere is for a runtime that is not started (the CLI); a started runtime is asked");
    const { kind: kindName, id } = splitAddress(to);
    const kind = this.kinds.get(kindName);
    if (!kind) throw new Error(`no actor kind ${kindName} is registered here`);
    const msg = JSON.parse(JSON.stringify(body ?? null));
    const now = this.clock();
    return this.storage.transaction(async () => {
      // Several nodes' database: the actor's shard is claimed first (its lease row locked until the commit), or a node
      // holds it and this refuses (the caller then asks the node).
      if (o.claim && !(await o.claim())) throw new ShardFencedError(this.placement?.shardOf(to) ?? shardOf(to));
      // Read afresh under the write lock: another process (the server) may have changed it since.
      this.resident.delete(to);
      const resident = await this.activate(to);
      const h = this.handling(to, id, 0, now, resident, 0, () => Promise.reject(new Error(`${kindName}: a handler that checkpoints runs in the server, not here`)));
      const fx = h.effects;
      await kind.handle(h.ctx, msg);
      if (!h.replied()) throw new Error(`${kindName}: the handler gave no answer`);
      const stateText = JSON.stringify(h.ctx.state ?? null);
      await this.applyEffects(to, 0, now, fx, stateText !== resident.savedText ? stateText : undefined, true, resident.lastMessageId, [], []);
      this.resident.delete(to);
      return h.reply() as R;
    });
  }

  /**
   * An ask may skip the mailbox row when the actor is idle in this process (nothing queued, nothing on its way to
   * it): the handler runs now and its effects commit in one group commit,
   * the reply after. Nothing is acknowledged before that commit, so a crash before it loses only an unanswered
   * ask, exactly as a crash before the mailbox insert would; per-actor order holds because the actor is marked
   * busy and nothing addressed to it is pending.
   */
  private canInline(to: string, opts: TellOptions): boolean {
    if (!this.running || this.stopping || opts.dueAt !== undefined || opts.delayMs) return false;
    // Several nodes: only an actor of this node's shards; and another process may have committed a message to it that
    // this one has not picked up yet, which an inline ask would overtake: ask() reads the mailbox up to now first.
    if (this.placement && !this.placement.owns(to)) return false;
    const i = to.indexOf(":");
    if (i <= 0 || i === to.length - 1) return false;
    const kindName = to.slice(0, i);
    if ((this.slotsTaken.get(kindName) ?? 0) >= this.concurrency) return false;
    const kind = this.kinds.get(kindName);
    if (!kind || this.notInline.has(kindName)) return false;
    const q = this.queues.get(to);
    if (q && (q.busy || q.ready.length > 0 || q.scheduled)) return false;
    if (this.reserving.has(to)) return false;
    return (this.pendingTo.get(to) ?? 0) === 0;
  }

  private inline(address: string, body: unknown, token: string, durably: () => void): void {
    const q = this.queue(address);
    q.busy = true;
    const epoch = this.placement?.epoch(this.placement.shardOf(address));
    if (epoch !== undefined) this.turnEpochs.set(address, epoch);
    this.take(address);
    // The reply goes out after the actor is marked idle again, so the asker's next ask can be inline too.
    this.runInline(address, q, JSON.parse(JSON.stringify(body ?? null)), token, durably).then(
      (reply) => {
        this.finished(address, q);
        reply?.();
      },
      (e) => {
        this.runtimeFault(address, q, e);
        this.finished(address, q);
      },
    );
  }

  /**
   * The runtime itself failed around a message (its failure could not be recorded, say): logged once per class per
   * interval, and the actor waits a back-off before its next try instead of spinning on the same fault.
   */
  private runtimeFault(actor: string, q: Queue, e: unknown): void {
    if (e instanceof ShardFencedError) {
      this.forgetFenced(actor); // its shard moved: the holder handles what is pending
      return;
    }
    const fault = this.storage.faultOf(e);
    if (fault) {
      this.holdBack(actor, q, this.storeFaulted(fault, { actor }), true);
      return;
    }
    this.faultLog.record("error", "actor runtime fault", e instanceof Error ? e.name : "Error", { actor, error: String(e) });
    this.holdBack(actor, q, this.backoff(this.maxAttempts), false);
  }

  /**
   * Resolves with the reply to send once the actor is idle again (undefined: answered otherwise, or later). A
   * failure (the handler throws, or its commit fails, as a unique index refusing a concurrent duplicate does) is
   * retried here with the runtime's back-off while the actor stays busy, so nothing overtakes it, exactly as a
   * mailbox message blocks its queue; after the last attempt it is parked as dead and the ask refused, as before.
   */
  private async runInline(address: string, q: Queue, msg: unknown, token: string, durably: () => void): Promise<(() => void) | undefined> {
    for (let attempts = 1; ; attempts++) {
      const r = await this.inlineAttempt(address, msg, token);
      if (r.ok) return r.reply;
      if (r.error instanceof ShardFencedError) {
        // The shard moved while the handler ran: nothing of its turn committed. Without a mailbox row the message goes
        // to the new holder through the mailbox (a checkpoint's row stays for it); the holder answers the same token, a
        // row for this node. Only a runtime without answer rows tells the asker here.
        this.forgetFenced(address);
        if (r.messageId === 0) durably();
        if (this.answeredElsewhere(token)) return undefined;
        return () => this.answer(token, r.error, true);
      }
      this.failures++;
      this.resident.delete(address); // a half-built state: the next attempt reloads it
      const fault = this.storage.faultOf(r.error);
      if (fault) {
        // Not the message's fault, and not one to wait out here: the asker hears at once that the store is unavailable.
        const ms = this.storeFaulted(fault, { actor: address });
        if (r.messageId !== 0) {
          // It has a mailbox row (a checkpoint committed): recorded, so it finishes when the store takes writes again.
          this.known.delete(r.messageId);
          this.index({ id: r.messageId, actor: address, dueAt: this.clock(), retryAt: this.clock() + ms });
          this.storeBlocked.add(address);
          return () => this.answer(token, new StorageUnavailableError(fault, true), true);
        }
        return () => this.answer(token, new StorageUnavailableError(fault, false), true);
      }
      const error = r.error instanceof Error ? `${r.error.name}: ${r.error.message}` : String(r.error);
      if (r.messageId !== 0) {
        // It took a checkpoint, so it has a mailbox row: the mailbox path retries it (and answers the ask).
        this.log("warn", "actor handler failed; will retry", { actor: address, messageId: r.messageId, attempts, error });
        this.known.delete(r.messageId);
        this.index({ id: r.messageId, actor: address, dueAt: this.clock(), retryAt: null });
        return undefined;
      }
      if (r.async && q.ready.length === 0 && (this.pendingTo.get(address) ?? 0) === 0) {
        durably(); // nothing is queued behind it: the mailbox path retries it in order
        return undefined;
      }
      if (attempts >= this.maxAttempts) {
        this.log("error", "actor message parked as dead", { actor: address, attempts, error });
        const body = this.sealBody(address, msg);
        const now = this.clock();
        await this.commit(async () => {
          const id = await this.mailbox.insert(address, body, now, token, now);
          await this.mailbox.bury({ id, actor: address, body, dueAt: now, retryAt: null, attempts, lastError: error, replyTo: token, checkpoints: 0 }, attempts, error, now, tenantOf(msg));
        }, address);
        return () => this.answer(token, new ActorDeadLetterError(`${address} could not handle the message: ${error}`), true);
      }
      this.log("warn", "actor handler failed; will retry", { actor: address, attempts, error });
      await new Promise((resolve) => setTimeout(resolve, this.backoff(attempts)));
    }
  }

  /** One attempt of an inline ask: the handler, then the commit of its effects. */
  private async inlineAttempt(
    address: string,
    msg: unknown,
    token: string,
  ): Promise<{ ok: true; reply: () => void } | { ok: false; error: unknown; messageId: number; async: boolean }> {
    const now = this.clock();
    const { kind: kindName, id: actorId } = splitAddress(address);
    const kind = this.kinds.get(kindName)!;
    let resident: Resident;
    try {
      resident = await this.activate(address);
    } catch (error) {
      return { ok: false, error, messageId: 0, async: false };
    }
    /** The mailbox row, written only if the handler takes a checkpoint (it then needs a durable message). */
    let messageId = 0;
    let async = false;
    const h = this.handling(address, actorId, 0, now, resident, 0, async () => {
      if (messageId === 0) {
        const text = this.sealBody(address, msg);
        await this.commit(async () => {
          messageId = await this.mailbox.insert(address, text, now, token, now);
        }, address);
        this.known.add(messageId); // handled here; a poll must not queue it
      }
      return messageId;
    });
    try {
      const result = kind.handle(h.ctx, msg);
      if (result && typeof (result as Promise<void>).then === "function") {
        // Asynchronous (it reads the store, or calls out after a checkpoint): still handled here, but a failure is
        // retried through the mailbox (runInline), where a long retry does not hold the asker's turn.
        async = true;
        await result;
      }
      await h.commit(messageId, resident.lastMessageId);
    } catch (error) {
      return { ok: false, error, messageId, async };
    }
    if (messageId !== 0) {
      resident.lastMessageId = messageId;
      this.known.delete(messageId);
    }
    this.processed++;
    return { ok: true, reply: () => this.answer(token, h.reply()) };
  }

  /**
   * A handler's context and what it records (writes, messages, events, the reply), shared by the mailbox path and
   * inline asks. `checkpoint` commits what was recorded so far against the message ID `messageId()` gives (an inline
   * ask writes its mailbox row then); `commit` commits the rest with the acknowledgement and keeps the new state.
   */
  private handling(
    address: string,
    actorId: string,
    ctxMessageId: number,
    now: number,
    resident: Resident,
    checkpoints: number,
    messageId: () => Promise<number>,
  ): {
    ctx: ActorContext<unknown>;
    effects: { writes: Write[]; outgoing: Outgoing[]; events: ActorEvent[] };
    commit(messageId: number, lastMessageId: number): Promise<void>;
    replied(): boolean;
    reply(): unknown;
  } {
    const fx = { writes: [] as Write[], outgoing: [] as Outgoing[], events: [] as ActorEvent[] };
    let replied = false;
    let reply: unknown;
    const ctx: ActorContext<unknown> = {
      address,
      id: actorId,
      messageId: ctxMessageId,
      now,
      state: structuredClone(resident.state),
      store: this.storage,
      tell: (to, body, opts = {}) => {
        splitAddress(to);
        fx.outgoing.push({ to, body: this.sealBody(to, body, true), dueAt: opts.dueAt ?? now + (opts.delayMs ?? 0), replyTo: null });
      },
      emit: (e) => void fx.events.push(e),
      write: (fn) => void fx.writes.push(fn),
      reply: (v) => {
        replied = true;
        reply = v;
      },
      checkpoints,
      checkpoint: async () => {
        const id = await messageId();
        const effects = { writes: fx.writes.splice(0), outgoing: fx.outgoing.splice(0), events: fx.events.splice(0) };
        const stateNow = JSON.stringify(ctx.state ?? null);
        await this.commitEffects(address, id, now, effects, stateNow, resident, false);
        resident.state = JSON.parse(stateNow);
      },
    };
    return {
      ctx,
      effects: fx,
      commit: async (id, lastMessageId) => {
        const stateText = JSON.stringify(ctx.state ?? null);
        await this.commitEffects(address, id, now, fx, stateText, resident, true, lastMessageId);
        resident.state = JSON.parse(stateText);
      },
      replied: () => replied,
      reply: () => (replied ? reply : undefined),
    };
  }

  /** Called with each new event's seq after it commits (the webhook dispatcher and console wake on it). */
  onEvent(fn: (seq: number) => void): () => void {
    this.eventListeners.add(fn);
    return () => this.eventListeners.delete(fn);
  }

  /** Events committed outside an actor's turn (the audit sealer's checkpoints): the same wake-up as an actor's events. */
  announceEvents(seqs: number[]): void {
    for (const seq of seqs) for (const l of this.eventListeners) l(seq);
  }

  stats() {
    return {
      resident: this.resident.size,
      queued: this.known.size,
      inflight: this.inflight,
      timers: this.timers.size,
      processed: this.processed,
      failures: this.failures,
      fenced: this.fenced,
    };
  }

  /** Resolves when nothing is in flight and no due message waits (tests and shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.inflight === 0 && this.units.length === 0 && !this.hasDueWork()) return;
      await new Promise<void>((r) => this.idleWaiters.push(r));
    }
  }

  /** Stops taking messages, lets in-flight handlers finish and commit. The caller closes the database. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const off of this.unsubscribeWakeups.splice(0)) off();
    this.timers.stop();
    this.unsubscribeHealth?.();
    this.unsubscribePlacement?.();
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    // A sweep under way finishes first (bounded: one waiting on an actor that no longer runs must not hold the stop).
    if (this.sweepsRunning.size) await Promise.race([Promise.all([...this.sweepsRunning]), new Promise((r) => setTimeout(r, 5_000))]);
    while (this.inflight > 0 || this.units.length > 0) {
      await new Promise<void>((r) => this.idleWaiters.push(r));
    }
    if (this.replyTimer) clearInterval(this.replyTimer);
    this.replyTimer = undefined;
    if (this.takingReplies) await this.takingReplies;
    for (const [token, a] of this.asks) {
      clearTimeout(a.timer);
      a.reject(new ActorStoppedError("actor runtime stopped before the reply"));
      this.asks.delete(token);
    }
    this.running = false;
  }

  // ---- sending ----

  private send(to: string, body: unknown, opts: TellOptions, replyTo: string | null): Promise<number> {
    splitAddress(to);
    const waiting = this.reserving.get(to);
    if (waiting) return new Promise<number>((resolve, reject) => waiting.push(() => void this.send(to, body, opts, replyTo).then(resolve, reject)));
    if (this.stopping && replyTo === null) {
      // A tell while stopping is still durable; it is handled after the next start.
    }
    const now = this.clock();
    const dueAt = opts.dueAt ?? now + (opts.delayMs ?? 0);
    const text = this.sealBody(to, body, true);
    let id = 0;
    this.pending(to, 1);
    return new Promise<number>((resolve, reject) => {
      // An ask of a process that is no node (the CLI): its insert's hint names it, so that a node alone follows it.
      const hint = replyTo !== null && this.replies && !this.placement && this.nodeId !== undefined ? this.nodeId : null;
      this.enqueueUnit({
        // In the commit's own turn when SQLite answers the insert at once (no turn spent on it), else once it has.
        apply: () =>
          thenNow(this.mailbox.insert(to, text, dueAt, replyTo, now), (inserted) => {
            id = inserted;
            return hint === null ? undefined : this.replies!.hintMailbox(hint);
          }),
        resolve: () => {
          this.index({ id, actor: to, dueAt, retryAt: null });
          this.pending(to, -1);
          resolve(id);
        },
        reject: (e) => {
          this.pending(to, -1);
          reject(e);
        },
      });
    });
  }

  private pending(to: string, d: number): void {
    const n = (this.pendingTo.get(to) ?? 0) + d;
    if (n > 0) this.pendingTo.set(to, n);
    else this.pendingTo.delete(to);
  }

  // ---- group commit ----

  private enqueueUnit(u: Unit): void {
    this.units.push(u);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      defer(() => this.flush());
    }
  }

  /**
   * One group commit at a time: a batch that gathers while one commits waits for it and then commits whole. A batch
   * runs inside one unit of work of the store, so every unit of it commits at once.
   */
  private flush(): void {
    this.flushScheduled = false;
    if (this.flushing) {
      // The next batch goes when this one has committed (it keeps gathering meanwhile).
      void this.flushing.then(() => {
        if (!this.flushScheduled && this.units.length > 0) {
          this.flushScheduled = true;
          defer(() => this.flush());
        }
      });
      return;
    }
    const units = this.units;
    this.units = [];
    if (units.length === 0) return;
    this.flushing = this.commitBatch(units).finally(() => {
      this.flushing = null;
    });
  }

  /**
   * Inside the batch's transaction: the units whose shard this node no longer holds (the placement's fence, which
   * keeps the others' lease rows locked until the commit), rejected after it. None without a placement.
   */
  private async fenceOut(units: Unit[], refused: Unit[]): Promise<Unit[]> {
    refused.length = 0;
    if (!this.placement) return units;
    const shards = units.flatMap((u) => (u.shard === undefined ? [] : [u.shard]));
    if (shards.length === 0) return units;
    const out = await this.placement.fence(shards);
    const placement = this.placement;
    const stale = (u: Unit) => u.shard !== undefined && (out.has(u.shard) || placement.epoch(u.shard) !== u.epoch);
    if (out.size === 0 && !units.some(stale)) return units;
    const kept: Unit[] = [];
    for (const u of units) (stale(u) ? refused : kept).push(u);
    return kept;
  }

  private rejectFenced(refused: Unit[]): void {
    for (const u of refused) {
      this.fenced++;
      // One line per refused unit: what an operator (and the several-nodes proof) counts; refusals come only when a
      // shard moves under a turn, so they are few.
      this.log("warn", "commit refused by the shard fence", { shard: u.shard, epoch: u.epoch });
      u.reject(new ShardFencedError(u.shard!));
    }
    // What an operator watches (docs/operations.md, Running several nodes): once per 10 s with a count, never per turn.
    if (refused.length > 0) this.faultLog.record("warn", "actor turn fenced: its shard is held by another node", "ShardFenced", { shard: refused[0]!.shard, fenced: this.fenced });
  }

  private async commitBatch(units: Unit[]): Promise<void> {
    const refused: Unit[] = [];
    // The common case first: every unit applies, one transaction and no savepoints (two statements less per unit).
    // If any unit throws, that transaction is rolled back whole and the batch is applied again below with a savepoint
    // per unit, so one unit's failure spares the others exactly as before. Units are re-runnable: a unit's apply
    // only runs store calls and records what it wrote (which the second run records afresh).
    if (units.length > 1 && !this.savepointsOnly) {
      let applied: Unit[] | null;
      try {
        applied = await this.storage.transaction(async () => {
          const kept = await this.fenceOut(units, refused);
          for (const u of kept) {
            const applying = u.apply();
            if (applying !== undefined) await applying; // only a unit one of whose store calls had to wait
          }
          return kept;
        });
      } catch {
        applied = null; /* rolled back: retried unit by unit below */
      }
      if (applied) {
        this.rejectFenced(refused);
        for (const u of applied) u.resolve();
        this.pump();
        this.wakeIdle();
        return;
      }
    }
    const ok: Unit[] = [];
    const failed: [Unit, unknown][] = [];
    try {
      await this.storage.transaction(async () => {
        ok.length = 0;
        failed.length = 0;
        const kept = await this.fenceOut(units, refused);
        for (const u of kept) {
          if (units.length === 1) {
            await u.apply();
            ok.push(u);
            continue;
          }
          try {
            await this.storage.transaction(async () => u.apply()); // savepoint: one unit's failure spares the others
            ok.push(u);
          } catch (e) {
            failed.push([u, e]);
          }
        }
      });
    } catch (e) {
      for (const u of units) u.reject(e);
      this.wakeIdle();
      return;
    }
    this.rejectFenced(refused);
    for (const u of ok) u.resolve();
    for (const [u, e] of failed) u.reject(e);
    this.pump();
    this.wakeIdle();
  }

  // ---- placement (several nodes) ----

  /**
   * An actor whose shard this node no longer holds leaves memory: its state (the next holder may change it), its queued
   * message IDs (a later rescan indexes what is still pending). A turn under way keeps its queue; its commit is fenced.
   */
  /**
   * A turn of `actor` the fence refused: the actor is forgotten (queue and state). When its shard is this node's again
   * by now (the lease lapsed and was taken back at a newer epoch), the mailbox is read afresh for it: the rescan of
   * that regain may have run before this forget and indexed messages the forget has just dropped, which nothing would
   * index again (the several-nodes proof found them stranded: pending, attempts 0, on the node holding the shard).
   */
  private forgetFenced(actor: string): void {
    this.forget(actor);
    const p = this.placement;
    if (p?.owns(actor)) this.shardsMoved([p.shardOf(actor)], []);
  }

  private forget(actor: string): void {
    this.resident.delete(actor);
    const q = this.queues.get(actor);
    if (!q) return;
    for (const id of q.ready) this.known.delete(id);
    q.ready = [];
    if (!q.busy) this.queues.delete(actor);
  }

  /**
   * Shards moved: the actors of lost ones are forgotten; a gained one's actors are read afresh (another node may have
   * handled them meanwhile) and its pending messages, which the poll passed over while another node held it, indexed.
   */
  private shardsMoved(gained: number[], lost: number[]): void {
    const placement = this.placement!;
    const moved = new Set([...gained, ...lost]);
    for (const actor of [...this.queues.keys()]) if (moved.has(placement.shardOf(actor)) && !placement.owns(actor)) this.forget(actor);
    for (const actor of [...this.resident.keys()]) if (moved.has(placement.shardOf(actor)) && !this.queues.get(actor)?.busy) this.resident.delete(actor);
    if (gained.length === 0 || !this.running || this.stopping) return;
    const run: Promise<void> = (this.rescanning ?? Promise.resolve())
      .then(() => this.rescan())
      .catch((e) => this.reportFault("mailbox rescan failed", e))
      .finally(() => {
        if (this.rescanning === run) this.rescanning = null;
      });
    this.rescanning = run;
  }

  /** Whether a turn of an actor of `shard` is under way (or waits for its commit) in this runtime. */
  private turnUnder(shard: number): boolean {
    const placement = this.placement!;
    for (const [actor, q] of this.queues) if (q.busy && placement.shardOf(actor) === shard) return true;
    return false;
  }

  /** The rescan under way after shards were gained (noticeInserts waits for it). */
  private rescanning: Promise<void> | null = null;

  /** Every pending message, from the first: what belongs to this node's shards and is not indexed yet gets indexed. */
  private async rescan(): Promise<void> {
    let after = 0;
    for (;;) {
      if (this.stopping) return;
      const refs = await this.mailbox.pendingAfter(after, 5000);
      for (const r of refs) {
        after = r.id;
        this.index(r);
      }
      if (refs.length < 5000) break;
    }
    this.pump();
  }

  // ---- indexing ----

  private polling: Promise<void> | null = null;
  private nextPolling: Promise<void> | null = null;

  /**
   * A pickup that starts after this call (one under way may have read the mailbox before a commit the caller must
   * see: then one more after it, shared by every caller meanwhile).
   */
  private pickUpFresh(): Promise<void> {
    if (!this.polling) return this.pickUpInserts();
    this.nextPolling ??= this.polling
      .catch(() => {})
      .then(() => {
        this.nextPolling = null;
        return this.pickUpInserts();
      });
    return this.nextPolling;
  }

  /** Indexes messages other writers inserted (one pickup at a time: a tick during one joins it). */
  private pickUpInserts(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    this.polling ??= this.pickUp().finally(() => (this.polling = null));
    return this.polling;
  }

  private async pickUp(): Promise<void> {
    for (;;) {
      if (this.stopping) return;
      const refs = await this.mailbox.pendingAfter(this.lastPolledId, 5000);
      for (const r of refs) {
        this.lastPolledId = Math.max(this.lastPolledId, r.id);
        if (!this.known.has(r.id)) this.index(r);
      }
      if (refs.length < 5000) break;
    }
    this.pump();
  }

  private index(ref: MessageRef): void {
    if (this.known.has(ref.id)) return;
    if (this.placement && !this.placement.owns(ref.actor)) return; // another node's actor: its holder handles it
    this.known.add(ref.id);
    if (ref.dueAt > this.clock()) {
      this.timers.at(ref.dueAt, ref);
      return;
    }
    this.becameDue(ref, false);
    if (ref.retryAt && ref.retryAt > this.clock()) {
      const q = this.queue(ref.actor);
      q.blockedUntil = Math.max(q.blockedUntil, ref.retryAt);
      this.timers.wake(ref.retryAt, ref.actor);
    }
  }

  private becameDue(ref: MessageRef | string, pump = true): void {
    if (typeof ref === "string") {
      this.markRunnable(ref); // back-off ended
    } else {
      const q = this.queue(ref.actor);
      const r = q.ready;
      if (r.length === 0 || r[r.length - 1] < ref.id) r.push(ref.id);
      else {
        let lo = 0;
        let hi = r.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (r[mid] < ref.id) lo = mid + 1;
          else hi = mid;
        }
        r.splice(lo, 0, ref.id);
      }
      this.markRunnable(ref.actor);
    }
    if (pump) this.pump();
  }

  private queue(actor: string): Queue {
    let q = this.queues.get(actor);
    if (!q) this.queues.set(actor, (q = { ready: [], blockedUntil: 0, busy: false, scheduled: false }));
    return q;
  }

  private markRunnable(actor: string): void {
    const q = this.queues.get(actor);
    if (!q || q.busy || q.scheduled || q.ready.length === 0) return;
    if (q.blockedUntil > this.clock()) return;
    q.scheduled = true;
    const kind = kindOf(actor);
    const list = this.runnable.get(kind);
    if (list) list.push(actor);
    else this.runnable.set(kind, [actor]);
    this.runnableCount++;
  }

  private hasDueWork(): boolean {
    return this.runnableCount > 0;
  }

  /** A slot of the actor's kind: `inflight` counts every kind, `slotsTaken` each kind's pool. */
  private take(actor: string): void {
    const kind = kindOf(actor);
    this.slotsTaken.set(kind, (this.slotsTaken.get(kind) ?? 0) + 1);
    this.inflight++;
  }

  private release(actor: string): void {
    const kind = kindOf(actor);
    const n = (this.slotsTaken.get(kind) ?? 1) - 1;
    if (n > 0) this.slotsTaken.set(kind, n);
    else this.slotsTaken.delete(kind);
    this.inflight--;
  }

  /**
   * Starts the due actors of every kind that has a free slot. A kind whose pool is full keeps its actors waiting
   * (in order) without holding up the other kinds.
   */
  private pump(): void {
    if (!this.running || this.stopping || this.runnableCount === 0) return;
    for (const [kind, list] of this.runnable) {
      while (list.length > 0 && (this.slotsTaken.get(kind) ?? 0) < this.concurrency) {
        const actor = list.shift()!;
        this.runnableCount--;
        const q = this.queues.get(actor);
        if (!q) continue;
        q.scheduled = false;
        if (q.busy || q.ready.length === 0) continue;
        if (q.blockedUntil > this.clock()) continue;
        q.busy = true;
        this.take(actor);
        this.runHead(actor, q).then(
          () => this.finished(actor, q),
          (e) => {
            this.runtimeFault(actor, q, e);
            this.finished(actor, q);
          },
        );
      }
      if (list.length === 0) this.runnable.delete(kind);
    }
  }

  private finished(actor: string, q: Queue): void {
    q.busy = false;
    this.turnEpochs.delete(actor);
    this.release(actor);
    if (q.ready.length === 0) this.queues.delete(actor);
    else this.markRunnable(actor);
    this.pump();
    this.wakeIdle();
  }

  private wakeIdle(): void {
    if (this.idleWaiters.length === 0) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  // ---- handling one message ----

  private async activate(address: string): Promise<Resident> {
    let r = this.resident.get(address);
    if (r) {
      this.resident.delete(address);
      this.resident.set(address, r);
      return r;
    }
    const { kind, id } = splitAddress(address);
    const k = this.kinds.get(kind);
    const row = await this.mailbox.loadState(address);
    const loaded = this.resident.get(address);
    if (loaded) return loaded; // loaded meanwhile by another turn (the store answered asynchronously)
    if (row) {
      const text = this.openState(address, row.state);
      r = { state: JSON.parse(text), lastMessageId: row.lastMessageId, savedText: text };
    } else r = { state: k ? k.initialState(id) : null, lastMessageId: 0, savedText: undefined };
    this.resident.set(address, r);
    this.passivate();
    return r;
  }

  /** Keeps memory bounded: the least recently used actors that are not busy leave memory. */
  private passivate(): void {
    if (this.resident.size <= this.maxResident) return;
    for (const address of this.resident.keys()) {
      if (this.resident.size <= this.maxResident) break;
      if (this.queues.get(address)?.busy) continue;
      this.resident.delete(address);
    }
  }

  private async runHead(address: string, q: Queue): Promise<void> {
    if (this.placement) {
      const epoch = this.placement.epoch(this.placement.shardOf(address));
      if (epoch === undefined || !this.placement.owns(address)) {
        this.forget(address); // its shard moved (or is being handed over) since the message was queued
        return;
      }
      this.turnEpochs.set(address, epoch);
      // Mailbox IDs are committed in their order (the sequence lock, across nodes too): once this node has read
      // everything up to the head's ID, no lower-numbered message to the actor (another node's) can still turn up.
      if (q.ready[0]! > this.lastPolledId) {
        await this.pickUpFresh();
        // Meanwhile the shard may have moved (its queue forgotten): then nothing is handled here.
        if (q.ready.length === 0 || !this.placement.owns(address) || this.placement.epoch(this.placement.shardOf(address)) !== epoch) {
          this.forget(address);
          return;
        }
      }
    }
    const id = q.ready[0]!;
    const row = await this.mailbox.get(id);
    if (!row) {
      // Acknowledged elsewhere (another process on the same database).
      q.ready.shift();
      this.known.delete(id);
      return;
    }
    const resident = await this.activate(address);
    const now = this.clock();
    // No id guard against replays: due-time messages legitimately carry lower ids than messages
    // handled before them. Exactly-once comes from deleting the row in the handler's transaction.
    const { kind: kindName, id: actorId } = splitAddress(address);
    const kind = this.kinds.get(kindName);
    if (!kind) {
      await this.giveUp(q, row, this.maxAttempts, `no actor kind "${kindName}" is registered`);
      return;
    }

    const h = this.handling(address, actorId, row.id, now, resident, row.checkpoints, async () => row.id);
    let msg: unknown;
    try {
      msg = this.openBody(row);
      await kind.handle(h.ctx, msg);
      // Another node's ask: its answer is a row for that node, committed with the acknowledgement (or not at all).
      const token = row.replyTo;
      if (token !== null && this.remote(token)) h.effects.writes.push(() => this.putReply(token, h.reply(), null, now));
    } catch (e) {
      await this.failed(q, row, e, msg);
      return;
    }
    try {
      await h.commit(row.id, row.id);
    } catch (e) {
      await this.failed(q, row, e, msg);
      return;
    }
    resident.lastMessageId = row.id;
    this.processed++;
    this.dequeue(q, id);
    if (row.replyTo) this.answer(row.replyTo, h.reply());
  }

  /**
   * One commit of a handler's effects: its writes, new messages, events and state, and either the message's
   * acknowledgement or (a checkpoint) the count of checkpoints. New messages and events are announced after.
   */
  private async commitEffects(
    address: string,
    messageId: number,
    now: number,
    fx: { writes: Write[]; outgoing: Outgoing[]; events: ActorEvent[] },
    stateText: string,
    resident: Resident,
    ack: boolean,
    lastMessageId = resident.lastMessageId,
  ): Promise<void> {
    const ids: number[] = [];
    const seqs: number[] = [];
    for (const o of fx.outgoing) this.pending(o.to, 1);
    // An unchanged state is not written again (its last_message_id is informational only).
    const save = stateText !== resident.savedText;
    try {
      await this.commit(() => this.applyEffects(address, messageId, now, fx, save ? stateText : undefined, ack, lastMessageId, ids, seqs), address);
    } catch (e) {
      for (const o of fx.outgoing) this.pending(o.to, -1);
      throw e;
    }
    if (save) resident.savedText = stateText;
    fx.outgoing.forEach((o, i) => {
      this.index({ id: ids[i], actor: o.to, dueAt: o.dueAt, retryAt: null });
      this.pending(o.to, -1);
    });
    for (const seq of seqs) for (const l of this.eventListeners) l(seq);
  }

  /**
   * A unit of work's statements, inside the caller's transaction: a handler's writes, its new messages, its events, its
   * state (`stateText`, undefined when unchanged) and the message's acknowledgement or checkpoint count. Re-runnable (a
   * group commit may apply it twice: see flush): `ids` and `seqs` are filled afresh with the new rows.
   */
  private applyEffects(
    address: string,
    messageId: number,
    now: number,
    fx: { writes: Write[]; outgoing: Outgoing[]; events: ActorEvent[] },
    stateText: string | undefined,
    ack: boolean,
    lastMessageId: number,
    ids: number[],
    seqs: number[],
  ): void | Promise<void> {
    ids.length = 0;
    seqs.length = 0;
    // The unit's store calls are steps 0..n-1 in order (writes, new messages, events, state, acknowledgement). While
    // the store answers each at once (SQLite, its connection held by this commit) they run in this turn; from the
    // first that has to wait, the rest run after it, awaited one by one. An await per call cost a turn each.
    const e = { address, messageId, now, fx, stateText, ack, lastMessageId, ids, seqs, at: iso(now) };
    const n = effectSteps(e);
    for (let k = 0; k < n; k++) {
      const p = this.effectStep(e, k);
      const answered = p === undefined ? undefined : settledValue(p);
      if (p !== undefined && !answered) return this.effectsFrom(e, k, p, n);
      keepStep(e, k, answered?.value);
    }
  }

  private async effectsFrom(e: Effects, k: number, waiting: Promise<unknown>, n: number): Promise<void> {
    keepStep(e, k, await waiting);
    for (let j = k + 1; j < n; j++) keepStep(e, j, await this.effectStep(e, j));
  }

  /** Step k of a unit's store calls (see applyEffects); undefined for a write that answered nothing to wait for. */
  private effectStep(e: Effects, k: number): Promise<unknown> | undefined {
    const { fx } = e;
    if (k < fx.writes.length) {
      const w = fx.writes[k]!();
      // A promise is itself (and keeps what it carries); any other thenable is adopted; a plain value needs no wait.
      return isThenable(w) ? Promise.resolve(w) : undefined;
    }
    k -= fx.writes.length;
    if (k < fx.outgoing.length) {
      const o = fx.outgoing[k]!;
      return this.mailbox.insert(o.to, o.body, o.dueAt, o.replyTo, e.now);
    }
    k -= fx.outgoing.length;
    if (k < fx.events.length) return this.mailbox.insertEvent(newId("evt", e.now), fx.events[k]!, e.at);
    k -= fx.events.length;
    if (e.stateText !== undefined) {
      if (k === 0) return this.mailbox.saveState(e.address, this.sealState(e.address, e.stateText), e.lastMessageId, e.now);
      k--;
    }
    return e.ack ? this.mailbox.ack(e.messageId) : this.mailbox.markCheckpoint(e.messageId);
  }

  /**
   * States saved before states were sealed (a database of an earlier version) are sealed once at start, a page per
   * transaction; with secure_delete on meanwhile, so the plaintext pages they leave are zeroed, not just freed.
   */
  private async sealPlainStates(): Promise<void> {
    const sealer = this.sealer;
    if (!sealer) return;
    const plain = await this.mailbox.plainStateCount();
    if (plain === 0) return;
    let sealed = 0;
    await this.mailbox.withSecureDelete(async () => {
      // Bounded by the count at start: an older process still writing plain states cannot keep this going.
      while (sealed < plain) {
        const rows = await this.mailbox.plainStates(500);
        if (rows.length === 0) break;
        await this.storage.transaction(async () => {
          for (const r of rows) await this.mailbox.replaceState(r.address, r.state, sealer.seal(r.state, `state:${r.address}`));
        });
        sealed += rows.length;
      }
    });
    if (sealed) this.log("info", "sealed actor states stored before states were sealed", { states: sealed });
  }

  /** The state as stored: sealed under "state:<address>" when the runtime has a sealer. */
  private sealState(address: string, text: string): string {
    return this.sealer ? this.sealer.seal(text, `state:${address}`) : text;
  }

  /** A stored state's JSON text. A row written before states were sealed is plain JSON (it never starts "v1:"). */
  private openState(address: string, stored: string): string {
    return this.sealer && stored.startsWith("v1:") ? this.sealer.open(stored, `state:${address}`) : stored;
  }

  /**
   * The body as stored: sealed under the recipient's address when the runtime has a sealer. `remember`: a message this
   * process will most likely handle itself (a tell, a handler's outgoing message) keeps its plaintext beside the sealed
   * text, so handling it does not open what was just sealed (see openBody).
   */
  private sealBody(to: string, body: unknown, remember = false): string {
    const text = JSON.stringify(body ?? null);
    if (!this.sealer) return text;
    const sealed = this.sealer.seal(text, to);
    if (remember) {
      // Bounded: entries of messages handled elsewhere (another process) are dropped wholesale when it fills up.
      if (this.plainBySealed.size >= PLAIN_BODIES) this.plainBySealed.clear();
      this.plainBySealed.set(sealed, text);
    }
    return sealed;
  }

  /**
   * The row's message. A body this process sealed is known by its sealed text (unique: a random nonce each time) and
   * is not opened again; any other row (written by another process, or after a restart) is opened and authenticated.
   */
  private openBody(row: MessageRecord): unknown {
    if (!this.sealer) return JSON.parse(row.body);
    const plain = this.plainBySealed.get(row.body);
    if (plain !== undefined) {
      this.plainBySealed.delete(row.body);
      return JSON.parse(plain);
    }
    return JSON.parse(this.sealer.open(row.body, row.actor));
  }

  /** A unit of the next group commit; `actor`: the actor whose turn it commits (fenced by its shard's lease). */
  private commit(apply: () => void | Promise<void>, actor?: string): Promise<void> {
    if (actor === undefined || !this.placement) return new Promise((resolve, reject) => this.enqueueUnit({ apply, resolve, reject }));
    const shard = this.placement.shardOf(actor);
    const epoch = this.turnEpochs.get(actor) ?? this.placement.epoch(shard) ?? -1;
    return new Promise((resolve, reject) => this.enqueueUnit({ shard, epoch, apply, resolve, reject }));
  }

  private dequeue(q: Queue, id: number): void {
    if (q.ready[0] === id) q.ready.shift();
    else q.ready = q.ready.filter((x) => x !== id);
    this.known.delete(id);
  }

  private async failed(q: Queue, row: MessageRecord, e: unknown, msg?: unknown): Promise<void> {
    if (e instanceof ShardFencedError) {
      // Not the message's fault: its shard moved, and the new holder handles the message (the row is untouched) and
      // answers its ask, wherever the asker is (a row for the asking node, this one too).
      this.forgetFenced(row.actor);
      if (row.replyTo && !this.answeredElsewhere(row.replyTo)) this.answer(row.replyTo, e, true);
      return;
    }
    this.failures++;
    // A failed handler may have left a half-built state: the next message reloads it from the database.
    this.resident.delete(row.actor);
    const fault = this.storage.faultOf(e);
    if (fault) {
      // A fault of the store is not a fault of the message: no attempt is counted (it is never buried for it), nothing
      // is written (the store would refuse it too), and the actor waits a growing back-off, or until the store recovers.
      this.holdBack(row.actor, q, this.storeFaulted(fault, { actor: row.actor, messageId: row.id }), true);
      if (row.replyTo) this.answerNow(row.replyTo, new StorageUnavailableError(fault, true));
      return;
    }
    const attempts = row.attempts + 1;
    const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (attempts >= this.maxAttempts) {
      await this.giveUp(q, row, attempts, error, tenantOf(msg));
      return;
    }
    const retryAt = this.clock() + this.backoff(attempts);
    this.log("warn", "actor handler failed; will retry", { actor: row.actor, messageId: row.id, attempts, error });
    await this.commit(() => this.mailbox.recordFailure(row.id, attempts, error, retryAt), row.actor);
    q.blockedUntil = retryAt;
    this.timers.wake(retryAt, row.actor);
  }

  private async giveUp(q: Queue, row: MessageRecord, attempts: number, error: string, tenant: Tenant | null = null): Promise<void> {
    this.log("error", "actor message parked as dead", { actor: row.actor, messageId: row.id, attempts, error });
    const dead = new ActorDeadLetterError(`${row.actor} could not handle the message: ${error}`);
    const token = row.replyTo;
    const now = this.clock();
    await this.commit(async () => {
      await this.mailbox.bury(row, attempts, error, now, tenant);
      if (token !== null && this.remote(token)) await this.putReply(token, dead, dead, now);
    }, row.actor);
    this.dequeue(q, row.id);
    if (token) this.answer(token, dead, true);
  }

  // ---- answers across nodes ----

  /** Whether the token is another node's ask: its answer is written as a row for that node, not resolved here. */
  private remote(token: string): boolean {
    if (!this.replies) return false;
    const node = tokenNode(token);
    return node !== null && node !== this.nodeId;
  }

  /** Whether the ask's answer comes as a row from whichever node handles the message (a fenced turn answers nothing). */
  private answeredElsewhere(token: string): boolean {
    return this.replies !== undefined && tokenNode(token) !== null;
  }

  /** The answer row of another node's ask, inside the caller's unit of work; `error` non-null: a refusal. */
  private putReply(token: string, value: unknown, error: unknown, now: number): Promise<void> {
    const e = error === null ? null : encodeError(error);
    const text = e ? e.body : encodeValue(value);
    return this.replies!.put({
      token,
      node: tokenNode(token)!,
      body: this.sealer ? this.sealer.seal(text, `reply:${token}`) : text,
      errorClass: e?.errorClass ?? null,
      errorCode: e?.errorCode ?? null,
      createdAt: now,
    });
  }

  /**
   * A refusal with no unit of work to join (the store faulted: the message stays and is retried): a local asker hears
   * it at once; another node's is written on its own, if the store takes it (else its asker times out).
   */
  private answerNow(token: string, error: unknown): void {
    if (!this.remote(token)) {
      this.answer(token, error, true);
      return;
    }
    void this.putReply(token, null, error, this.clock()).catch(() => {});
  }

  /** An answer row for this node: the pending ask it names resolves or rejects as a local answer would. */
  private received(r: ReplyRecord): void {
    if (!this.asks.has(r.token)) return; // timed out meanwhile, or answered already
    let text: string;
    try {
      text = this.sealer ? this.sealer.open(r.body, `reply:${r.token}`) : r.body;
    } catch (e) {
      this.answer(r.token, e, true);
      return;
    }
    if (r.errorClass === null) this.answer(r.token, decodeValue(text));
    else this.answer(r.token, decodeError(r.errorClass, text), true);
  }

  private listeningReplies = false;

  /** The `replies` hint naming this node (or null: hints may have been lost) takes its answer rows at once. */
  private listenForReplies(): void {
    if (this.listeningReplies || !this.wakeups || !this.replies) return;
    this.listeningReplies = true;
    this.unsubscribeWakeups.push(
      this.wakeups.on("replies", (payload) => {
        if (payload === null || payload === this.nodeId) this.takeReplies();
      }),
    );
  }

  /** Takes this node's answer rows (one take at a time; a call during one runs another after it). */
  private takeReplies(): void {
    const replies = this.replies;
    const node = this.nodeId;
    if (!replies || node === undefined) return;
    if (this.takingReplies) {
      this.takeAgain = true;
      return;
    }
    this.takingReplies = (async () => {
      do {
        this.takeAgain = false;
        const rows = await replies.take(node, 1000);
        for (const r of rows) this.received(r);
        if (rows.length === 1000) this.takeAgain = true;
      } while (this.takeAgain);
    })()
      .catch((e) => this.reportFault("answers pickup failed", e))
      .finally(() => (this.takingReplies = null));
  }

  /** Whether an ask waits for an answer row: its actor is not in this node's shards (or this runtime holds none). */
  private awaitingElsewhere(): boolean {
    for (const a of this.asks.values()) if (!this.placement?.owns(a.to)) return true;
    return false;
  }

  /**
   * The fallback of the `replies` hint: while asks wait, this node's answers are polled at the mailbox poll's rate,
   * when one of them waits for another node (a node alone, asking its own actors, polls nothing).
   */
  private armReplyPoll(): void {
    if (this.replyTimer || this.stopping) return;
    this.replyTimer = setInterval(() => {
      if (this.asks.size === 0) {
        clearInterval(this.replyTimer);
        this.replyTimer = undefined;
        return;
      }
      if (this.awaitingElsewhere()) this.takeReplies();
    }, this.pollMs);
  }

  /**
   * A `mailbox` hint (an insert committed somewhere; null: hints may have been lost): the mailbox is read now rather
   * than at the next poll. A node alone ignores the inserts' own hints (payload ''): they are its own, indexed as they
   * commit; a hint with a payload (the CLI's, after it inserted) is always followed.
   */
  private mailboxHint(payload: string | null): void {
    if (!this.running || this.stopping) return;
    if (payload === "" && this.placement?.alone?.()) return;
    this.pickUpFresh().catch((e) => this.reportFault("mailbox poll failed", e));
  }

  private answer(token: string, value: unknown, isError = false): void {
    const a = this.asks.get(token);
    if (!a) return; // asked by a process that is gone, or timed out
    this.asks.delete(token);
    clearTimeout(a.timer);
    if (isError) a.reject(value);
    else a.resolve(value);
  }
}
