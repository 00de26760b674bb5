// How many statements PostgreSQL receives for one transfer create and for one detail read through the real service
// (the whole route pipeline, the customer actor, the runtime's group commit, the work the create sets off, up to the
// runtime being idle again), with a little data and with a lot: a customer with 1 wallet and one with 30, a transfer
// with a few checks, history entries and events and one with hundreds, a few existing transfers and several hundred.
// The count must be the same (no statement per row, no N+1), and bounded. Counted with the session's debug hook
// (PgOptions.onStatement, passed through the engine options); the hook is held to the server's own log (log_statement
// = all) for one create, as test/storage/postgres-statements.test.ts holds it for the repositories.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { startService, type RunningService } from "../../src/services.ts";
import { DEFAULT_RATE_LIMITS } from "../../src/domain/ratelimit.ts";
import { startPostgres, type PostgresServer } from "../support/postgres.ts";

setDefaultTimeout(180_000);

/** The most statements one create (with what it sets off) or one read may take: generous, and far below any per-row growth. */
const CREATE_BOUND = 40;
const READ_BOUND = 12;
const MANY = 300;

let server: PostgresServer;
let url: string;
let dir: string;
let service: RunningService;
let admin: postgres.Sql;
let headers: Record<string, string>;
/** Every statement text the hook saw, in order; `counting` false while the test sets data up. */
const seen: string[] = [];

async function api(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<{ status: number; json: { data: Record<string, unknown> } }> {
  const res = await fetch(`${service.url}${path}`, { method, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 400)}`);
  return { status: res.status, json: JSON.parse(text) };
}

/** The statements `fn` sent, up to the runtime being idle again (the work a create sets off counts too). */
async function statements(fn: () => Promise<unknown>): Promise<string[]> {
  await settled();
  const from = seen.length;
  await fn();
  await settled();
  return seen.slice(from);
}

/** The runtime idle, and nothing sent for a while (the webhook dispatcher's turn after a commit comes on a timer). */
async function settled(): Promise<void> {
  for (;;) {
    await service.runtime.idle();
    const n = seen.length;
    await Bun.sleep(300);
    await service.runtime.idle();
    if (seen.length === n) return;
  }
}

async function newCustomer(tag: string, wallets: number): Promise<string> {
  const id = String((await api("POST", "/api/v2/customers", { externalId: `stmt-${tag}`, name: `Jane Doe ${tag}` })).json.data.id);
  for (let i = 0; i < wallets; i++) {
    const address = `0x${randomBytes(20).toString("hex")}`;
    await api("POST", "/api/v2/wallets", { address, network: "ethereum", customerId: id, label: `w${i}` });
  }
  return id;
}

function createBody(customerId: string): Record<string, unknown> {
  return {
    asset: "ETH",
    amount: "0.01",
    network: "ethereum",
    originatorCustomerId: customerId,
    beneficiaryAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } }] },
  };
}

let keyN = 0;
async function create(customerId: string): Promise<string> {
  const r = await api("POST", "/api/v2/transfers", createBody(customerId), { "idempotency-key": `stmt-${keyN++}` });
  expect(r.status).toBe(201);
  return String(r.json.data.id);
}

async function read(id: string): Promise<void> {
  const r = await api("GET", `/api/v2/transfers/${id}`);
  expect(r.json.data.id).toBe(id);
}

/** Gives transfer `id` `n` checks, `n` history entries and `n` events (as the actors would have written them over a long life). */
async function grow(id: string, n: number): Promise<void> {
  const [row] = await admin<{ company_id: string; environment: string; created_at: string }[]>`SELECT company_id, environment, created_at FROM transfers WHERE id = ${id}`;
  const checks = Array.from({ length: n }, (_, i) => ({
    id: `chk_${id}_${i}`, integration: null, integrationId: `int_${i}`, displayName: `Check ${i}`, type: "sanctions", stage: "pre_submission", evaluation: 0,
    status: "success", requestedAt: row!.created_at, durationMs: 5, error: null, responseSealed: null, run: "run_0",
  }));
  const history = Array.from({ length: n }, (_, i) => ({ type: "note", from: "completed", to: "completed", at: row!.created_at, detail: { i } }));
  await admin`UPDATE transfers SET checks = ${JSON.stringify(checks)}, history = ${JSON.stringify(history)} WHERE id = ${id}`;
  for (let i = 0; i < n; i++)
    await admin`INSERT INTO events (id, company_id, environment, type, entity_type, entity_id, data, created_at)
      VALUES (${`evt_${id}_${i}`}, ${row!.company_id}, ${row!.environment}, 'transfer.updated', 'transfer', ${id}, ${JSON.stringify({ id, i })}, ${row!.created_at})`;
}

/** The service every count runs on: one reader, the node's tick, the sweeps, the poll and the audit sealer kept out of the counts. */
function countedService() {
  return startService({
    dbPath: join(dir, "caravan.db"),
    databaseUrl: url,
    // One reader: a second reader's first statement would add the driver's one-off type query to a count.
    postgres: { readers: 1, onStatement: (text) => seen.push(text) },
    host: "127.0.0.1",
    port: 0,
    logLevel: "silent",
    // The node's tick (heartbeat, renewal, live nodes: three statements) every hour only, not into a count at random.
    env: { CARAVAN_LEASE_MS: "10800000" },
    rateLimits: { ...DEFAULT_RATE_LIMITS, company: { limit: 1_000_000_000, windowSeconds: 1 } },
    // No sweep runs during a count (each would add its own statements): the first of January at midnight only.
    sweepSchedule: () => "0 0 0 1 1 *",
    actorPollMs: 3_600_000,
    auditCheckpointMs: 3_600_000,
    // The audit sealer seals on a timer, all entries committed since its last turn in one (background work batched
    // whatever the rate of creates): off here, so that its turns do not fall into a count at random.
    auditSealMs: 3_600_000,
  });
}

beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
  admin = postgres(url, { max: 1, onnotice: () => {} });
  dir = mkdtempSync(join(tmpdir(), "caravan-pg-create-statements-"));
  service = await countedService();
  const tenancy = service.tenancy;
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "stmt@example.com", "owner");
  const { key } = await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" });
  headers = { "x-api-key": key, "content-type": "application/json" };
});

afterAll(async () => {
  await service?.stop();
  await admin?.end({ timeout: 5 });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("one create and one detail read take the same, bounded number of statements with little data and with a lot", async () => {
  const small = await newCustomer("small", 1);
  const large = await newCustomer("large", 30);
  // Each customer's first create warms what is cached per customer (its actor's state, the key's and the company's caches).
  const fewId = await create(small);
  await create(large);
  await read(fewId);

  const createSmall = await statements(() => create(small));
  const createLarge = await statements(() => create(large));

  // Several hundred transfers already stored (the customer with 30 wallets), then a transfer with hundreds of checks,
  // history entries and events.
  for (let i = 0; i < MANY; i += 16) await Promise.all(Array.from({ length: Math.min(16, MANY - i) }, () => create(large)));
  const manyId = await create(large);
  await grow(manyId, MANY);
  await read(manyId);

  const createMany = await statements(() => create(large));
  const readFew = await statements(() => read(fewId));
  const readMany = await statements(() => read(manyId));

  const report = { createSmall: createSmall.length, createLarge: createLarge.length, createMany: createMany.length, readFew: readFew.length, readMany: readMany.length };
  // Printed for docs/benchmarks.md (round trips per create and per read).
  console.log(`statements: ${JSON.stringify(report)}`);
  console.log(`one create's statements:\n  ${createMany.map((s) => s.replace(/\s+/g, " ").slice(0, 140)).join("\n  ")}`);
  console.log(`one read's statements:\n  ${readMany.map((s) => s.replace(/\s+/g, " ").slice(0, 140)).join("\n  ")}`);
  expect(createSmall.length).toBeGreaterThan(0);
  expect(createLarge.length).toBe(createSmall.length);
  expect(createMany.length).toBe(createSmall.length);
  expect(readMany.length).toBe(readFew.length);
  expect(readFew.length).toBeGreaterThan(0);
  expect(createSmall.length).toBeLessThanOrEqual(CREATE_BOUND);
  expect(readFew.length).toBeLessThanOrEqual(READ_BOUND);
});

test("the hook saw every statement the server executed for a create", async () => {
  const name = new URL(url).pathname.slice(1);
  await admin.unsafe(`ALTER DATABASE ${name} SET log_statement = 'all'`);
  // The setting applies to connections opened from now on: a new service over the same database (the hook again).
  await service.stop();
  seen.length = 0;
  service = await countedService();
  const customer = await newCustomer("logged", 1);
  await create(customer);
  const log = join(server.dir, "log");
  await settled();
  const offset = statSync(log).size;
  const marker = `marker_${randomBytes(6).toString("hex")}`;
  const sent = await statements(() => create(customer));
  // A connection opened after the setting (the one opened before it does not log).
  const marking = postgres(url, { max: 1, onnotice: () => {} });
  await marking.unsafe(`SELECT '${marker}'`);
  await marking.end({ timeout: 5 });
  let lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const text = readFileSync(log).subarray(offset).toString("utf8");
    const at = text.indexOf(marker);
    if (at >= 0) {
      // Not the marking connection's own lines (its process ID is on the marker's line).
      const pid = /\[(\d+)\][^\n]*$/.exec(text.slice(0, text.indexOf("\n", at) === -1 ? text.length : text.indexOf("\n", at)))?.[1];
      lines = text.slice(0, at).split("\n").filter((l) => /\bLOG:\s+(execute [^:]+|statement): /.test(l) && !l.includes(`[${pid}]`));
      break;
    }
    await Bun.sleep(25);
  }
  expect(lines.length).toBeGreaterThan(0);
  // The server's lines for the service's connections over the create: one for each statement the hook saw.
  expect(lines.length).toBe(sent.length);
});
