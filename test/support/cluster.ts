// Several `caravan serve` processes on one PostgreSQL database, driven the way a load balancer and an unreliable data
// centre would drive them: the proof that several nodes lose nothing (test/e2e/postgres-cluster-proof.test.ts) and
// its figures (bench/cluster.ts). Loopback only, everything bounded.
//
// - Nodes: `bun src/main.ts serve` each (./server.ts startServer), CARAVAN_NODE_ID n1, n2, …, the same master key and
//   key directory, a short CARAVAN_LEASE_MS. A node is killed with SIGKILL and started again under the same ID (its
//   start is refused while the dead incarnation's heartbeat is current, so it is tried again until it serves).
// - The commit ledger: a row per commit of an actor's turn, written by triggers the harness installs in the test's
//   own database (never a migration, never in src/): on every acknowledgement, failure record, checkpoint or burial of
//   a mailbox message (UPDATE or DELETE of actor_messages) and every write of an actor's state (actor_state), the
//   committing connection's node (each node's database URL carries `application_name=proof-<node ID>`), the actor,
//   its shard (FNV-1a, as src/ports/cluster.ts), and the shard's lease row as that transaction sees it (holder,
//   epoch). The fence locks that row FOR SHARE in the same transaction before any of the turn's writes, so the row
//   the trigger reads is the row the commit is made under: a commit by a node that does not hold the lease shows as a
//   row whose holder is another node (or nobody). What the runtime believes plays no part in the count.
// - The balancer: requests round-robin over the nodes; a request a node does not answer (refused, reset, timed out)
//   or answers 503 is sent again to the next node with the same Idempotency-Key, as a load balancer's client would.
// - The receiver: a webhook endpoint on loopback recording every delivery it is sent (CARAVAN_ALLOW_PRIVATE_TARGETS).
// - The checks read the database after the load has settled: see `check`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { closedLoopbackOrigin, runCli, startServer, type ChildServer } from "./server.ts";
import { JANE, RICHARD } from "./persons.ts";
import { randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { startPostgres, type PostgresServer } from "./postgres.ts";
import { shardOf, SHARDS } from "../../src/ports/cluster.ts";

export type Sql = ReturnType<typeof postgres>;

export interface ClusterNodeProc {
  readonly id: string;
  server: ChildServer | null;
  /** The output of every incarnation so far (the running one's is read from `server`). */
  readonly past: string[];
  starts: number;
  kills: number;
}

export interface ProofCluster {
  readonly pg: PostgresServer;
  readonly databaseUrl: string;
  /** The environment every node shares (CARAVAN_DB, the master key, lease time…), without the per-node ones. */
  readonly env: Record<string, string>;
  readonly nodes: ClusterNodeProc[];
  /** The test's own connection to the database. */
  readonly sql: Sql;
  /** Starts every node that does not run (the cluster starts with the first one only). */
  startRest(): Promise<void>;
  /** Starts node `i` (again); resolves once it serves. Tries again while the ID's last heartbeat is current. */
  start(i: number): Promise<void>;
  /** SIGKILL: the process dies at once, holding what it held. */
  kill(i: number): Promise<void>;
  /** The URLs of the nodes that serve now. */
  urls(): string[];
  /** Everything node `i` printed, over all its incarnations. */
  output(i: number): string;
  /** A CLI command against the database, as a real process: its stdout. */
  cli(...args: string[]): Promise<string>;
  /** Stops every node (SIGTERM), the test connection, and removes the key directory. The PostgreSQL cluster stays. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  nodes: number;
  /** CARAVAN_LEASE_MS (default 2000). */
  leaseMs?: number;
  /** More environment for every node. */
  env?: Record<string, string>;
  /** More environment for one node (by index): a node started with settings of its own. */
  nodeEnv?: (i: number) => Record<string, string>;
}

const nodeIdOf = (i: number) => `n${i + 1}`;
/** The application_name a node's connections carry: how the ledger knows which node committed. */
export const appNameOf = (nodeId: string) => `proof-${nodeId}`;

function withAppName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set("application_name", name);
  return u.toString();
}

export async function startProofCluster(o: ClusterOptions): Promise<ProofCluster> {
  const pg = await startPostgres();
  const databaseUrl = await pg.createDatabase();
  const dir = mkdtempSync(join(tmpdir(), "caravan-cluster-"));
  const env: Record<string, string> = {
    CARAVAN_DB: join(dir, "caravan.db"),
    CARAVAN_DATABASE_URL: databaseUrl,
    CARAVAN_MASTER_KEY: randomBytes(32).toString("hex"),
    CARAVAN_LEASE_MS: String(o.leaseMs ?? 2000),
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    CARAVAN_WEBHOOK_RETRY_MS: "200,500",
    ...o.env,
  };
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  const nodes: ClusterNodeProc[] = Array.from({ length: o.nodes }, (_, i) => ({ id: nodeIdOf(i), server: null, past: [], starts: 0, kills: 0 }));
  const nodeEnv = (i: number): Record<string, string> => ({
    ...env,
    CARAVAN_NODE_ID: nodes[i]!.id,
    CARAVAN_DATABASE_URL: withAppName(databaseUrl, appNameOf(nodes[i]!.id)),
    ...o.nodeEnv?.(i),
  });
  const cluster: ProofCluster = {
    pg,
    databaseUrl,
    env,
    nodes,
    sql,
    async start(i) {
      const n = nodes[i]!;
      if (n.server) throw new Error(`node ${n.id} runs already`);
      const until = Date.now() + 60_000;
      for (;;) {
        try {
          n.server = await startServer(nodeEnv(i), { timeoutMs: 60_000 });
          n.starts++;
          return;
        } catch (e) {
          const why = String(e);
          n.past.push(why);
          // The dead incarnation's heartbeat has not lapsed yet: the start is refused, as it must be. Again shortly.
          if (!why.includes("is already running on this database") || Date.now() > until) throw e;
          await Bun.sleep(150);
        }
      }
    },
    async startRest() {
      await Promise.all(nodes.map((n, i) => (n.server ? null : cluster.start(i))));
    },
    async kill(i) {
      const n = nodes[i]!;
      const s = n.server;
      if (!s) return;
      n.server = null;
      s.proc.kill("SIGKILL");
      await s.proc.exited;
      n.past.push(s.output());
      n.kills++;
    },
    urls: () => nodes.flatMap((n) => (n.server ? [n.server.url] : [])),
    output: (i) => [...nodes[i]!.past, nodes[i]!.server?.output() ?? ""].join("\n"),
    async cli(...args) {
      const r = await runCli(args, env);
      if (r.code !== 0) throw new Error(`caravan ${args.join(" ")} failed (exit ${r.code}): ${r.stderr}`);
      return r.stdout.trim();
    },
    async stop() {
      for (const n of nodes) {
        const s = n.server;
        n.server = null;
        if (s) {
          await s.stop("SIGTERM").catch(() => 0);
          n.past.push(s.output());
        }
      }
      await sql.end({ timeout: 5 }).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // The first node alone (it migrates the database and writes the audit signing key beside CARAVAN_DB); the caller
  // starts the rest (startRest) once what must be made on one node is made.
  await cluster.start(0);
  return cluster;
}

// ---- the commit ledger (test-only triggers in the test's database) ----

/**
 * Installs the ledger: `proof_commits` and the triggers that fill it (see the header). Only in the database the
 * harness made; dropped with it. FNV-1a over the address's UTF-8 bytes, modulo the shard count, as `shardOf`.
 */
export async function installCommitLedger(sql: Sql): Promise<void> {
  await sql.unsafe(`
    CREATE TABLE proof_commits (
      id bigserial PRIMARY KEY, app text NOT NULL, actor text NOT NULL, shard int NOT NULL, op text NOT NULL,
      holder text, epoch bigint, expires_at bigint, at_ms bigint NOT NULL
    );
    CREATE FUNCTION proof_shard(address text) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE h bigint := 2166136261; b bytea := convert_to(address, 'UTF8');
    BEGIN
      FOR i IN 0 .. length(b) - 1 LOOP
        h := ((h # get_byte(b, i)) * 16777619) % 4294967296;
      END LOOP;
      RETURN (h % ${SHARDS})::int;
    END $$;
    CREATE FUNCTION proof_record() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE a text; s int; h_node text; h_epoch bigint; h_exp bigint;
    BEGIN
      IF TG_TABLE_NAME = 'actor_state' THEN a := NEW.address; ELSE a := OLD.actor; END IF;
      s := proof_shard(a);
      SELECT node_id, epoch, expires_at INTO h_node, h_epoch, h_exp FROM shard_leases WHERE shard = s;
      INSERT INTO proof_commits (app, actor, shard, op, holder, epoch, expires_at, at_ms)
      VALUES (current_setting('application_name'), a, s, TG_TABLE_NAME || ' ' || TG_OP, h_node, h_epoch, h_exp, (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      RETURN NULL;
    END $$;
    CREATE TRIGGER proof_mailbox AFTER UPDATE OR DELETE ON actor_messages FOR EACH ROW EXECUTE FUNCTION proof_record();
    CREATE TRIGGER proof_state AFTER INSERT OR UPDATE ON actor_state FOR EACH ROW EXECUTE FUNCTION proof_record();
  `);
  // The SQL hash is the runtime's: checked on addresses of every kind the load uses.
  for (const a of ["customer:cus_01abc", "transfer:trf_01xyz", "case:cas_01q", "webhook-dispatcher:main", "é✓"]) {
    const [r] = await sql.unsafe("SELECT proof_shard($1) AS s", [a]);
    if (r!.s !== shardOf(a)) throw new Error(`proof_shard(${a}) = ${r!.s}, shardOf = ${shardOf(a)}`);
  }
}

export interface LedgerReport {
  commits: number;
  byNode: Record<string, number>;
  /** Commits whose shard's lease row, in the committing transaction, named another holder (or none): must be 0. */
  withoutLease: { id: number; app: string; actor: string; shard: number; op: string; holder: string | null; epoch: number | null }[];
  /** Commits from a connection that is not a node's (the CLI, say). */
  notByNode: { app: string; actor: string; op: string }[];
  /** (shard, epoch) pairs committed under by more than one node: must be 0. */
  sharedEpochs: { shard: number; epoch: number; apps: string[] }[];
  /** Commits of a shard at an epoch lower than one committed before it: must be 0. */
  epochRegressions: number;
  /** Commits made after the lease's recorded expiry (the fence checks the expiry at its start; no takeover can pass it). */
  afterExpiry: number;
}

export async function readLedger(sql: Sql): Promise<LedgerReport> {
  const rows = (await sql.unsafe("SELECT id, app, actor, shard, op, holder, epoch, expires_at, at_ms FROM proof_commits ORDER BY id")) as unknown as {
    id: number;
    app: string;
    actor: string;
    shard: number;
    op: string;
    holder: string | null;
    epoch: number | null;
    expires_at: number | null;
    at_ms: number;
  }[];
  const byNode: Record<string, number> = {};
  const withoutLease: LedgerReport["withoutLease"] = [];
  const notByNode: LedgerReport["notByNode"] = [];
  const apps = new Map<string, Set<string>>();
  const lastEpoch = new Map<number, number>();
  let epochRegressions = 0;
  let afterExpiry = 0;
  for (const r of rows) {
    const id = Number(r.id);
    const epoch = r.epoch === null ? null : Number(r.epoch);
    if (!r.app.startsWith("proof-")) {
      notByNode.push({ app: r.app, actor: r.actor, op: r.op });
      continue;
    }
    const node = r.app.slice("proof-".length);
    byNode[node] = (byNode[node] ?? 0) + 1;
    if (r.holder !== node) withoutLease.push({ id, app: r.app, actor: r.actor, shard: r.shard, op: r.op, holder: r.holder, epoch });
    if (epoch !== null) {
      const k = `${r.shard}/${epoch}`;
      if (!apps.has(k)) apps.set(k, new Set());
      apps.get(k)!.add(r.app);
      const last = lastEpoch.get(r.shard);
      if (last !== undefined && epoch < last) epochRegressions++;
      lastEpoch.set(r.shard, Math.max(last ?? epoch, epoch));
    }
    if (r.expires_at !== null && Number(r.at_ms) >= Number(r.expires_at)) afterExpiry++;
  }
  const sharedEpochs = [...apps].filter(([, s]) => s.size > 1).map(([k, s]) => ({ shard: Number(k.split("/")[0]), epoch: Number(k.split("/")[1]), apps: [...s].sort() }));
  return { commits: rows.length, byNode, withoutLease, notByNode, sharedEpochs, epochRegressions, afterExpiry };
}

// ---- the webhook receiver ----

export interface Receipt {
  deliveryId: string;
  event: string;
  at: number;
}

export function startReceiver(): { url: string; receipts: Receipt[]; stop(): void } {
  const receipts: Receipt[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      let event = req.headers.get("x-webhook-event") ?? "";
      try {
        event = (JSON.parse(body) as { event: string }).event;
      } catch {
        /* recorded with the header's type */
      }
      receipts.push({ deliveryId: req.headers.get("x-webhook-delivery-id") ?? "", event, at: Date.now() });
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hooks`, receipts, stop: () => void server.stop(true) };
}

// ---- the balancer ----

export interface Sent {
  status: number;
  body: any;
  /** Attempts made (1: answered by the first node asked). */
  tries: number;
  /** Attempts a node did not answer (refused, reset, timed out). */
  unanswered: number;
  /** Attempts answered 503. */
  unavailable: number;
}

/**
 * Sends a request the way a load balancer's client does: to the next node round-robin; a node that does not answer,
 * or answers 503, and the same request (same Idempotency-Key) goes to the next one. Gives up after `maxMs` with
 * status 0 (no answer at all).
 */
export function balancer(urls: () => string[], key: string, o: { attemptMs?: number; maxMs?: number } = {}) {
  let turn = 0;
  return async function send(path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<Sent> {
    const deadline = Date.now() + (o.maxMs ?? 60_000);
    let tries = 0;
    let unanswered = 0;
    let unavailable = 0;
    for (;;) {
      const live = urls();
      const url = live.length ? live[turn++ % live.length]! : null;
      if (url) {
        tries++;
        try {
          const res = await fetch(url + path, {
            method: init.method ?? "GET",
            headers: { "x-api-key": key, ...(init.json !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
            body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
            signal: AbortSignal.timeout(o.attemptMs ?? 20_000),
          });
          const text = await res.text();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* kept as text */
          }
          if (res.status !== 503) return { status: res.status, body, tries, unanswered, unavailable };
          unavailable++;
        } catch {
          unanswered++;
        }
      }
      if (Date.now() > deadline) return { status: 0, body: null, tries, unanswered, unavailable };
      await Bun.sleep(50);
    }
  };
}

// ---- the workload ----

export interface Workload {
  owner: { key: string };
  /** Each with its wallet (a transfer above the threshold names the originator's wallet). */
  customers: { id: string; address: string }[];
  webhookId: string;
  ruleId: string;
}

/** A create body: `amount` 0.001 completes at once (below the Travel Rule threshold); 1 is held by the rule below. */
export function createBody(customer: { id: string; address: string }, amount: "0.001" | "1"): Record<string, unknown> {
  return {
    asset: "ETH",
    amount,
    network: "ethereum",
    originatorCustomerId: customer.id,
    originatorAddress: customer.address,
    beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    originator: { originatorPersons: [JANE] },
    beneficiary: { beneficiaryPersons: [RICHARD] },
  };
}

/**
 * The company the load runs in: an owner's key, `customers` customers (creates ask the customer's actor: several
 * spread the creates over shards), a webhook subscription to every event at the receiver, and a rule that holds
 * transfers above 0.5 ETH for review (a case opens for each).
 */
export async function prepareWorkload(c: ProofCluster, receiverUrl: string, customers: number): Promise<Workload> {
  const email = `owner-${randomBytes(4).toString("hex")}@members.test`;
  await c.cli("members", "create", "--email", email, "--role", "owner", "--json");
  const owner = JSON.parse((await c.cli("keys", "create", "--env", "test", "--member", email, "--json")).split("\n").at(-1)!) as { key: string };
  const live = JSON.parse((await c.cli("keys", "create", "--env", "live", "--member", email, "--json")).split("\n").at(-1)!) as { key: string };
  const send = balancer(() => c.urls(), owner.key);
  // A transfer above the threshold needs a provider able to carry it: provider_b, saved and switched on, at an
  // address where nothing listens. None of the load's transfers reaches it: each is held before routing, then
  // rejected (by PATCH, or by its case's resolution).
  const credentials = { apiUrl: await closedLoopbackOrigin(), vaspEntityId: "CARAVAN-PROOF", privateKey: randomSeedBase64(), legalName: "Caravan Proof VASP", country: "NL" };
  for (const key of [owner.key, live.key]) {
    const r = await balancer(() => c.urls(), key)("/api/v2/providers/provider_b", { method: "PUT", json: { credentials } });
    if (r.status !== 201) throw new Error(`provider_b: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const on = await balancer(() => c.urls(), live.key)("/api/v2/providers/provider_b", { method: "PATCH", json: { enabled: true } });
  if (on.status !== 200) throw new Error(`provider_b on: ${on.status} ${JSON.stringify(on.body)}`);
  const ids: { id: string; address: string }[] = [];
  for (let i = 0; i < customers; i++) {
    const r = await send("/api/v2/customers", { method: "POST", json: { name: `Originator ${i}` } });
    if (r.status !== 201) throw new Error(`customer: ${r.status} ${JSON.stringify(r.body)}`);
    const address = "0x" + randomBytes(20).toString("hex");
    const wallet = await send("/api/v2/wallets", { method: "POST", json: { customerId: r.body.data.id, network: "ethereum", address } });
    if (wallet.status !== 201) throw new Error(`wallet: ${wallet.status} ${JSON.stringify(wallet.body)}`);
    ids.push({ id: r.body.data.id, address });
  }
  const hook = await send("/api/v2/webhooks", { method: "POST", json: { name: "proof receiver", url: receiverUrl, events: ["*"] } });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
  const rule = await send("/api/v2/rules", {
    method: "POST",
    json: { name: "Review above 0.5 ETH", category: "aml", stage: "precheck", action: "require_review", condition: { rules: [{ type: "if", field: "amount", operator: "gt", value: "0.5", action: "require_review" }] } },
  });
  if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${JSON.stringify(rule.body)}`);
  return { owner, customers: ids, webhookId: hook.body.data.webhook.id, ruleId: rule.body.data.id };
}

export type Scenario = "completed" | "rejected" | "resolved";

export interface CreateRecord {
  key: string;
  scenario: Scenario;
  sent: Sent;
  /** The ID the 2xx answer named. */
  id?: string;
}

export interface ActionRecord {
  transferId: string;
  kind: "reject" | "resolve";
  caseId?: string;
  sent?: Sent;
  /** Why the action was not sent (its transfer never reached `held`, or its case never opened, within the bound). */
  skipped?: string;
}

export interface LoadResult {
  creates: CreateRecord[];
  actions: ActionRecord[];
  ms: number;
  /** Every answer status met (by the final attempt), with counts. */
  statuses: Record<string, number>;
  unanswered: number;
  unavailable: number;
}

/**
 * A bounded mixed load: `clients` clients send creates (each with a recorded Idempotency-Key; one in `heldEvery` held
 * for review) until `creates` were sent or `seconds` passed; an officer takes every held transfer once its case is
 * open and either rejects it (PATCH, with an Idempotency-Key) or approves its case (resolve), alternately.
 */
export async function runLoad(
  c: ProofCluster,
  w: Workload,
  o: { creates: number; clients: number; seconds: number; heldEvery: number; tag: string },
): Promise<LoadResult> {
  const creates: CreateRecord[] = [];
  const actions: ActionRecord[] = [];
  const held: string[] = [];
  const started = performance.now();
  const deadline = Date.now() + o.seconds * 1000;
  let next = 0;
  let creating = true;
  const client = async (n: number) => {
    const send = balancer(() => c.urls(), w.owner.key, { maxMs: 30_000 });
    for (;;) {
      const i = next++;
      if (i >= o.creates || Date.now() > deadline) return;
      const hold = i % o.heldEvery === o.heldEvery - 1;
      const key = `${o.tag}-${n}-${i}`;
      const sent = await send("/api/v2/transfers", {
        method: "POST",
        json: createBody(w.customers[i % w.customers.length]!, hold ? "1" : "0.001"),
        headers: { "Idempotency-Key": key },
      });
      const rec: CreateRecord = { key, scenario: hold ? (held.length % 2 === 0 ? "rejected" : "resolved") : "completed", sent };
      if (sent.status >= 200 && sent.status < 300) rec.id = sent.body.data.id;
      creates.push(rec);
      if (hold && rec.id) {
        held.push(rec.id);
        actions.push({ transferId: rec.id, kind: rec.scenario === "rejected" ? "reject" : "resolve" });
      }
    }
  };
  // The officers' bound: what is not held with its case by then is recorded as skipped (and fails the checks).
  const officersUntil = deadline + 30_000;
  let taken = 0;
  const officer = async () => {
    const send = balancer(() => c.urls(), w.owner.key, { maxMs: 30_000 });
    for (;;) {
      if (taken >= actions.length) {
        if (!creating) return;
        await Bun.sleep(50);
        continue;
      }
      const a = actions[taken++]!;
      // Its case opens once the transfer actor held it (screening runs after the create's answer).
      let caseId: string | undefined;
      const until = Math.min(Date.now() + 20_000, officersUntil);
      while (Date.now() < until) {
        const [r] = await c.sql.unsafe("SELECT c.id FROM cases c JOIN transfers t ON t.id = c.first_transfer_id WHERE c.first_transfer_id = $1 AND t.state = 'held'", [a.transferId]);
        if (r) {
          caseId = r.id as string;
          break;
        }
        await Bun.sleep(100);
      }
      if (!caseId) {
        a.skipped = "the transfer was not held with an open case within the bound";
        continue;
      }
      a.caseId = caseId;
      a.sent =
        a.kind === "reject"
          ? await send(`/api/v2/transfers/${a.transferId}`, { method: "PATCH", json: { action: "reject", status: "rejected", reason: "OTHER" }, headers: { "Idempotency-Key": `reject-${a.transferId}` } })
          : await send(`/api/v2/cases/${caseId}/resolve`, { method: "POST", json: { resolution: "rejected", resolutionNote: "Reviewed: rejected" } });
    }
  };
  const officers = [officer(), officer()];
  await Promise.all(Array.from({ length: o.clients }, (_, n) => client(n)));
  creating = false;
  await Promise.all(officers);
  const ms = performance.now() - started;
  const statuses: Record<string, number> = {};
  let unanswered = 0;
  let unavailable = 0;
  for (const s of [...creates.map((r) => r.sent), ...actions.flatMap((a) => (a.sent ? [a.sent] : []))]) {
    statuses[s.status] = (statuses[s.status] ?? 0) + 1;
    unanswered += s.unanswered;
    unavailable += s.unavailable;
  }
  return { creates, actions, ms, statuses, unanswered, unavailable };
}

// ---- the killer ----

export interface Kill {
  node: string;
  at: number;
  /** The shards it held when it died, with their epochs. */
  held: { shard: number; epoch: number }[];
  /** ms from the SIGKILL until every one of them was held again, at a newer epoch (null: not within the bound). */
  takeoverMs: number | null;
  /** Who holds them then: node → shards. */
  takenBy: Record<string, number>;
  /** ms from the SIGKILL until the node served again under its ID. */
  restartMs: number | null;
}

/**
 * While `running()`: every `everyMs` (± a third, at random) a random node is killed with SIGKILL and started again at
 * once (its start waits out the dead incarnation's heartbeat); one node down at a time. The shards it held are
 * watched until all are held again at a newer epoch: the takeover time.
 */
export async function killLoop(c: ProofCluster, o: { everyMs: number; running: () => boolean; random?: () => number }): Promise<Kill[]> {
  const random = o.random ?? Math.random;
  const kills: Kill[] = [];
  await Bun.sleep(o.everyMs * (0.67 + random() * 0.67));
  while (o.running()) {
    // A node that holds shards (one just started may hold none yet: its share comes at the others' next ticks).
    const holding = new Set(((await c.sql.unsafe("SELECT DISTINCT node_id FROM shard_leases WHERE node_id IS NOT NULL AND expires_at > $1", [Date.now()])) as unknown as { node_id: string }[]).map((r) => r.node_id));
    const candidates = c.nodes.map((_, i) => i).filter((i) => c.nodes[i]!.server && holding.has(c.nodes[i]!.id));
    const i = candidates.length ? candidates[Math.floor(random() * candidates.length)]! : Math.floor(random() * c.nodes.length);
    const n = c.nodes[i]!;
    const now = Date.now();
    const held = ((await c.sql.unsafe("SELECT shard, epoch FROM shard_leases WHERE node_id = $1 AND expires_at > $2 ORDER BY shard", [n.id, now])) as unknown as { shard: number; epoch: number }[]).map((r) => ({
      shard: Number(r.shard),
      epoch: Number(r.epoch),
    }));
    const at = Date.now();
    await c.kill(i);
    const k: Kill = { node: n.id, at, held, takeoverMs: null, takenBy: {}, restartMs: null };
    kills.push(k);
    const restart = c.start(i).then(() => (k.restartMs = Date.now() - at));
    const until = at + 30_000;
    while (Date.now() < until) {
      const rows = (await c.sql.unsafe("SELECT shard, epoch, node_id FROM shard_leases WHERE shard = ANY($1::int[]) AND node_id IS NOT NULL AND expires_at > $2", [held.map((h) => h.shard), Date.now()])) as unknown as {
        shard: number;
        epoch: number;
        node_id: string;
      }[];
      const moved = rows.filter((r) => Number(r.epoch) > held.find((h) => h.shard === Number(r.shard))!.epoch);
      if (moved.length === held.length) {
        k.takeoverMs = Date.now() - at;
        for (const r of moved) k.takenBy[r.node_id] = (k.takenBy[r.node_id] ?? 0) + 1;
        break;
      }
      await Bun.sleep(25);
    }
    await restart;
    if (!o.running()) break;
    await Bun.sleep(o.everyMs * (0.67 + random() * 0.67));
  }
  return kills;
}

// ---- settling and the checks ----

/**
 * Waits (at most `ms`) until the service has finished what the load started: no mailbox message due (or retrying),
 * every event after the subscription's start has its delivery, every delivery is sent, and the receiver has had each.
 * Answers whether it settled, and what was still open if not.
 */
export async function settle(c: ProofCluster, w: Workload, receipts: Receipt[], ms: number): Promise<{ settled: boolean; open: Record<string, number>; stuck?: Record<string, unknown>[] }> {
  const until = Date.now() + ms;
  let open: Record<string, number> = {};
  for (;;) {
    const [m] = await c.sql.unsafe("SELECT count(*)::int AS n FROM actor_messages WHERE due_at <= $1 OR retry_at IS NOT NULL", [Date.now()]);
    const [e] = await c.sql.unsafe(
      `SELECT count(*)::int AS n FROM events e JOIN webhooks h ON h.id = $1 AND e.company_id = h.company_id AND e.environment = h.environment
       WHERE e.seq > h.active_from_seq AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = h.id AND d.event_seq = e.seq)`,
      [w.webhookId],
    );
    const [d] = await c.sql.unsafe("SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status <> 'sent'", [w.webhookId]);
    const sent = (await c.sql.unsafe("SELECT id FROM webhook_deliveries WHERE webhook_id = $1", [w.webhookId])).map((r) => r.id as string);
    const got = new Set(receipts.map((r) => r.deliveryId));
    open = { mailbox: m!.n, undelivered: e!.n, unsent: d!.n, unreceived: sent.filter((id) => !got.has(id)).length };
    if (Object.values(open).every((n) => n === 0)) return { settled: true, open };
    if (Date.now() > until) {
      // What is still in the mailbox, with its shard's holder: for the reader of a failure.
      const stuck = (await c.sql.unsafe(
        `SELECT m.id, m.actor, m.attempts, m.last_error, m.due_at, m.retry_at, l.node_id AS holder, l.epoch, l.expires_at
         FROM actor_messages m LEFT JOIN shard_leases l ON l.shard = proof_shard(m.actor) ORDER BY m.id LIMIT 20`,
      )) as unknown as Record<string, unknown>[];
      return { settled: false, open, stuck: stuck.map((r) => ({ ...r })) };
    }
    await Bun.sleep(200);
  }
}

/** What one transfer (or case) left: its event types in seq order, and its audit actions in order. */
export interface Trace {
  events: string[];
  audit: string[];
}

export async function tracesOf(sql: Sql, ids: string[]): Promise<Map<string, Trace>> {
  const out = new Map<string, Trace>(ids.map((id) => [id, { events: [], audit: [] }]));
  for (const r of await sql.unsafe("SELECT entity_id, type FROM events WHERE entity_id = ANY($1::text[]) ORDER BY seq", [ids])) out.get(r.entity_id as string)!.events.push(r.type as string);
  for (const r of await sql.unsafe("SELECT entity_id, action FROM audit_log WHERE entity_id = ANY($1::text[]) ORDER BY seq", [ids])) out.get(r.entity_id as string)!.audit.push(r.action as string);
  return out;
}

export interface Findings {
  /** 2xx creates whose key names no transfer, more than one, or another ID than answered. */
  createsNotOnce: { key: string; answered: string; found: string[] }[];
  /** Creates never answered 2xx that exist more than once. */
  unansweredTwice: { key: string; found: string[] }[];
  /** Transfers (and cases) whose events or audit entries differ from the calm reference of their scenario. */
  tracesDiffer: { id: string; scenario: string; got: Trace; want: Trace }[];
  /** Event IDs stored more than once. */
  duplicateEventIds: number;
  /** Answers that are neither the expected success nor an expected refusal. */
  badAnswers: { what: string; status: number; body: unknown }[];
  /** Events after the subscription's start with no delivery, or with more than one delivery row. */
  undelivered: number;
  deliveryRowsTwice: number;
  /** The events without a delivery, for the reader of a failure. */
  undeliveredEvents?: { seq: number; type: string; entityId: string; createdAt: string }[];
  /** Deliveries the receiver never had. */
  unreceived: number;
  /** Deliveries the receiver had more than once (at least once allows it: counted, printed). */
  receivedTwice: number;
  receipts: number;
  /** Deliveries whose first receipt came after the first receipt of a later event (per subscription, in order). */
  outOfOrder: number;
  eligibleEvents: number;
}

/**
 * Reads the database: every create answered 2xx exists once, under the ID answered; each transfer's events and
 * audit entries are its scenario's reference (made in calm, before the load), once each and in order, and so are its
 * case's; every event after the subscription's start has exactly one delivery, sent, received at least once, first
 * received in event order.
 */
export async function check(c: ProofCluster, w: Workload, load: LoadResult, references: Record<Scenario, { transfer: Trace; case?: Trace }>, receipts: Receipt[]): Promise<Findings> {
  const f: Findings = { createsNotOnce: [], unansweredTwice: [], tracesDiffer: [], duplicateEventIds: 0, badAnswers: [], undelivered: 0, deliveryRowsTwice: 0, unreceived: 0, receivedTwice: 0, receipts: receipts.length, outOfOrder: 0, eligibleEvents: 0 };
  const keys = load.creates.map((r) => r.key);
  const byKey = new Map<string, string[]>(keys.map((k) => [k, []]));
  for (const r of await c.sql.unsafe("SELECT external_id, id FROM transfers WHERE external_id = ANY($1::text[]) ORDER BY id", [keys])) byKey.get(r.external_id as string)!.push(r.id as string);
  for (const r of load.creates) {
    const found = byKey.get(r.key)!;
    const ok = r.sent.status === 201 || r.sent.status === 202 || (r.sent.status === 200 && r.sent.body?.meta?.idempotent === true);
    if (r.id) {
      if (!ok) f.badAnswers.push({ what: `create ${r.key}`, status: r.sent.status, body: r.sent.body });
      if (found.length !== 1 || found[0] !== r.id) f.createsNotOnce.push({ key: r.key, answered: r.id, found });
    } else {
      f.badAnswers.push({ what: `create ${r.key}`, status: r.sent.status, body: r.sent.body });
      if (found.length > 1) f.unansweredTwice.push({ key: r.key, found });
    }
  }
  for (const a of load.actions) {
    if (a.skipped) f.badAnswers.push({ what: `${a.kind} ${a.transferId}`, status: -1, body: a.skipped });
    else if (a.sent) {
      const s = a.sent;
      // A resolve sent again after an attempt that was not answered may find the case closed by that attempt.
      const fine = a.kind === "reject" ? s.status === 200 : s.status === 200 || (s.status === 409 && s.body?.code === "CASE_CLOSED" && s.tries > 1);
      if (!fine) f.badAnswers.push({ what: `${a.kind} ${a.transferId}`, status: s.status, body: s.body });
    }
  }
  // Traces: each transfer against its scenario's reference; cases too.
  const scenarioOf = new Map<string, Scenario>();
  for (const r of load.creates) if (r.id) scenarioOf.set(r.id, r.scenario);
  for (const a of load.actions) if (a.skipped) scenarioOf.delete(a.transferId);
  const caseOf = new Map(load.actions.filter((a) => a.caseId).map((a) => [a.caseId!, a.transferId]));
  const traces = await tracesOf(c.sql, [...scenarioOf.keys(), ...caseOf.keys()]);
  for (const [id, scenario] of scenarioOf) {
    const got = traces.get(id)!;
    const want = references[scenario].transfer;
    if (JSON.stringify(got) !== JSON.stringify(want)) f.tracesDiffer.push({ id, scenario, got, want });
  }
  for (const [caseId, transferId] of caseOf) {
    const scenario = scenarioOf.get(transferId);
    const want = scenario ? references[scenario].case : undefined;
    const got = traces.get(caseId)!;
    if (want && JSON.stringify(got) !== JSON.stringify(want)) f.tracesDiffer.push({ id: caseId, scenario: `${scenario} (its case)`, got, want });
  }
  const [dup] = await c.sql.unsafe("SELECT count(*)::int AS n FROM (SELECT id FROM events GROUP BY id HAVING count(*) > 1) x");
  f.duplicateEventIds = dup!.n;
  // Webhooks.
  const eligible = (await c.sql.unsafe(
    `SELECT e.seq, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.webhook_id = h.id AND d.event_seq = e.seq) AS n
     FROM events e JOIN webhooks h ON h.id = $1 AND e.company_id = h.company_id AND e.environment = h.environment WHERE e.seq > h.active_from_seq ORDER BY e.seq`,
    [w.webhookId],
  )) as unknown as { seq: number; n: number }[];
  f.eligibleEvents = eligible.length;
  f.undelivered = eligible.filter((e) => e.n === 0).length;
  if (f.undelivered > 0) {
    const missing = eligible.filter((e) => e.n === 0).map((e) => Number(e.seq));
    const rows = await c.sql.unsafe("SELECT seq, type, entity_id, created_at FROM events WHERE seq = ANY($1::bigint[]) ORDER BY seq", [missing]);
    f.undeliveredEvents = rows.map((r) => ({ seq: Number(r.seq), type: r.type as string, entityId: r.entity_id as string, createdAt: r.created_at as string }));
  }
  f.deliveryRowsTwice = eligible.filter((e) => e.n > 1).length;
  const deliveries = (await c.sql.unsafe("SELECT id, event_seq FROM webhook_deliveries WHERE webhook_id = $1 AND event_seq IS NOT NULL", [w.webhookId])) as unknown as { id: string; event_seq: number }[];
  const seqOf = new Map(deliveries.map((d) => [d.id, Number(d.event_seq)]));
  const counts = new Map<string, number>();
  for (const r of receipts) counts.set(r.deliveryId, (counts.get(r.deliveryId) ?? 0) + 1);
  f.unreceived = deliveries.filter((d) => !counts.has(d.id)).length;
  f.receivedTwice = [...counts.values()].filter((n) => n > 1).length;
  const firstSeqs: number[] = [];
  const seen = new Set<string>();
  for (const r of receipts) {
    if (seen.has(r.deliveryId) || !seqOf.has(r.deliveryId)) continue;
    seen.add(r.deliveryId);
    firstSeqs.push(seqOf.get(r.deliveryId)!);
  }
  let high = -1;
  for (const s of firstSeqs) {
    if (s < high) f.outOfOrder++;
    high = Math.max(high, s);
  }
  return f;
}

/** The calm references: one transfer of each scenario, made and finished before the load (no node killed). */
export async function makeReferences(c: ProofCluster, w: Workload, receipts: Receipt[]): Promise<Record<Scenario, { transfer: Trace; case?: Trace }>> {
  const load = await runLoad(c, w, { creates: 3, clients: 1, seconds: 60, heldEvery: 1, tag: "calm" });
  // heldEvery 1: all three held; the first is rejected, the second resolved. One completed create besides.
  const completed = await runLoad(c, w, { creates: 1, clients: 1, seconds: 60, heldEvery: 1_000_000, tag: "calm-completed" });
  const s = await settle(c, w, receipts, 60_000);
  if (!s.settled) throw new Error(`the calm references did not settle: ${JSON.stringify(s.open)}`);
  const pick = (scenario: Scenario) => load.actions.find((a) => a.kind === (scenario === "rejected" ? "reject" : "resolve") && a.caseId)!;
  const rejected = pick("rejected");
  const resolved = pick("resolved");
  const ids = [rejected.transferId, rejected.caseId!, resolved.transferId, resolved.caseId!, completed.creates[0]!.id!];
  const t = await tracesOf(c.sql, ids);
  return {
    rejected: { transfer: t.get(rejected.transferId)!, case: t.get(rejected.caseId!)! },
    resolved: { transfer: t.get(resolved.transferId)!, case: t.get(resolved.caseId!)! },
    completed: { transfer: t.get(completed.creates[0]!.id!)! },
  };
}

/** Quantiles of a list of ms (null when empty). */
export function spread(xs: number[]): { n: number; min: number; median: number; max: number } | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s[s.length - 1]! };
}

// ---- the whole proof ----

export interface ProofOptions {
  nodes: number;
  creates: number;
  clients: number;
  /** The load's time bound. */
  seconds: number;
  heldEvery: number;
  killEveryMs: number;
  /** How long the service may take to finish what the load started, after it. */
  settleMs: number;
  customers: number;
  leaseMs?: number;
  env?: Record<string, string>;
  nodeEnv?: (i: number) => Record<string, string>;
  log?: (line: string) => void;
}

export interface ProofResult {
  load: LoadResult;
  kills: Kill[];
  settled: { settled: boolean; open: Record<string, number>; stuck?: Record<string, unknown>[] };
  findings: Findings;
  ledger: LedgerReport;
  /** Commits the fence refused, per node, as the nodes logged them (a killed incarnation's lines included). */
  fenced: Record<string, number>;
  /** Node outputs (every incarnation), for a failure's message. */
  outputs: Record<string, string>;
}

/**
 * The proof: a cluster of `nodes`, the workload prepared and the calm references made on the first node alone, the
 * ledger installed, the other nodes started; the bounded load with a node killed every `killEveryMs`; every node
 * serving again; the service settled; the checks and the ledger read.
 */
export async function runProof(o: ProofOptions): Promise<ProofResult> {
  const log = o.log ?? (() => {});
  const t0 = performance.now();
  const lap = (m: string) => log(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${m}`);
  const c = await startProofCluster({ nodes: o.nodes, leaseMs: o.leaseMs, env: o.env, nodeEnv: o.nodeEnv });
  const rx = startReceiver();
  try {
    const w = await prepareWorkload(c, rx.url, o.customers);
    await installCommitLedger(c.sql);
    const references = await makeReferences(c, w, rx.receipts);
    await c.startRest();
    lap(`${o.nodes} nodes serve; references made on one`);
    let running = true;
    const killer = killLoop(c, { everyMs: o.killEveryMs, running: () => running });
    let load: LoadResult;
    try {
      load = await runLoad(c, w, { creates: o.creates, clients: o.clients, seconds: o.seconds, heldEvery: o.heldEvery, tag: "load" });
    } finally {
      running = false;
    }
    const kills = await killer;
    lap(`load: ${load.creates.length} creates, ${load.actions.length} actions in ${(load.ms / 1000).toFixed(1)} s, ${kills.length} kills`);
    for (let i = 0; i < c.nodes.length; i++) if (!c.nodes[i]!.server) await c.start(i);
    const settled = await settle(c, w, rx.receipts, o.settleMs);
    lap(`settled: ${JSON.stringify(settled)}`);
    const findings = await check(c, w, load, references, rx.receipts);
    const ledger = await readLedger(c.sql);
    const fenced: Record<string, number> = {};
    const outputs: Record<string, string> = {};
    for (let i = 0; i < c.nodes.length; i++) {
      const out = c.output(i);
      outputs[c.nodes[i]!.id] = out;
      fenced[c.nodes[i]!.id] = out.split("\n").filter((l) => l.includes('"msg":"commit refused by the shard fence"')).length;
    }
    return { load, kills, settled, findings, ledger, fenced, outputs };
  } finally {
    rx.stop();
    await c.stop();
  }
}

/** The proof's figures, as lines to print. */
export function describeProof(r: ProofResult): string[] {
  const f = r.findings;
  const l = r.ledger;
  const taken = r.kills.filter((k) => k.held.length > 0);
  const t = spread(taken.flatMap((k) => (k.takeoverMs === null ? [] : [k.takeoverMs])));
  const restart = spread(r.kills.flatMap((k) => (k.restartMs === null ? [] : [k.restartMs])));
  const ok2xx = r.load.creates.filter((x) => x.id).length;
  return [
    `load: ${r.load.creates.length} creates (${ok2xx} answered 2xx), ${r.load.actions.length} held transfers acted on (PATCH reject or case resolve), ${(r.load.ms / 1000).toFixed(1)} s; answers ${JSON.stringify(r.load.statuses)}; attempts a node did not answer ${r.load.unanswered}, answered 503 ${r.load.unavailable} (each sent again to the next node)`,
    `kills: ${r.kills.length} SIGKILLs (${r.kills.map((k) => `${k.node} holding ${k.held.length}`).join(", ")})`,
    `takeover (SIGKILL until every shard the node held is held again at a newer epoch): ${t ? `median ${t.median} ms, min ${t.min}, max ${t.max} over ${t.n} kills` : "none measured"}${taken.some((k) => k.takeoverMs === null) ? `; ${taken.filter((k) => k.takeoverMs === null).length} not within 30 s` : ""}`,
    `restart under the same ID (SIGKILL until it serves again): ${restart ? `median ${restart.median} ms, max ${restart.max}` : "none"}`,
    `creates answered 2xx not stored exactly once under their ID: ${f.createsNotOnce.length}; unanswered creates stored twice: ${f.unansweredTwice.length}; answers neither success nor an expected refusal: ${f.badAnswers.length}`,
    `transfers and cases whose events or audit entries differ from the calm reference (once each, in order): ${f.tracesDiffer.length}; event IDs stored twice: ${f.duplicateEventIds}`,
    `ledger: ${l.commits} actor commits (${Object.entries(l.byNode).map(([n, k]) => `${n} ${k}`).join(", ")}); without the lease: ${l.withoutLease.length}; shard epochs committed under by two nodes: ${l.sharedEpochs.length}; epoch regressions: ${l.epochRegressions}; not by a node: ${l.notByNode.length}; committed past the lease's expiry but before any takeover: ${l.afterExpiry}`,
    `fence refusals logged: ${Object.entries(r.fenced).map(([n, k]) => `${n} ${k}`).join(", ")}`,
    `webhooks: ${f.eligibleEvents} events, undelivered ${f.undelivered}, delivery rows twice ${f.deliveryRowsTwice}, never received ${f.unreceived}, received more than once ${f.receivedTwice} (of ${f.receipts} receipts), first receipts out of event order ${f.outOfOrder}`,
    // The first few of whatever failed, with their IDs.
    ...f.badAnswers.slice(0, 5).map((b) => `  answer: ${b.what} → ${b.status} ${JSON.stringify(b.body).slice(0, 300)}`),
    ...f.tracesDiffer.slice(0, 5).map((t) => `  trace of ${t.id} (${t.scenario}): got ${JSON.stringify(t.got)}, calm ${JSON.stringify(t.want)}`),
    ...l.withoutLease.slice(0, 5).map((x) => `  without the lease: ${JSON.stringify(x)}`),
    ...(f.undeliveredEvents ?? []).slice(0, 5).map((e) => `  no delivery: ${JSON.stringify(e)}`),
    ...(r.settled.stuck ?? []).slice(0, 5).map((m) => `  still in the mailbox: ${JSON.stringify(m)}`),
  ];
}
