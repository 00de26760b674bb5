// How many statements PostgreSQL receives for the repository calls of rules, thresholds, provider settings and the
// provider stores: the same number with a little data as with a lot (no statement per row, no N+1), counted with the
// session's debug hook (PgOptions.onStatement). The hook itself is held to the server's own count first: with
// log_statement = all on the test database, every statement the server executes is one line of its log, and the hook
// must have seen exactly as many.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { openPostgres, createPgRepositories, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import type { Repositories } from "../../src/ports/repositories.ts";
import { validateCreateRule } from "../../src/domain/rules/validate.ts";
import { newRule } from "../../src/domain/rules/life.ts";
import { newThreshold, validateCreateThreshold, THRESHOLD_TYPES } from "../../src/domain/thresholds.ts";
import { COUNTRY_CODES } from "../../src/domain/ivms101/countries.ts";
import { definitions } from "../../src/domain/providers/catalog.ts";
import { iso, newId } from "../../src/domain/ids.ts";
import { startPostgres, type PostgresServer } from "../support/postgres.ts";

setDefaultTimeout(120_000);

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const SMALL = 1;
const LARGE = 50;

let server: PostgresServer;
let session: PgSession;
let repos: Repositories;
let companyId: string;
/** Every statement text the hook saw, in order. */
const seen: string[] = [];

/** The statements `fn` sent, by the hook. */
async function statements(fn: () => Promise<unknown>): Promise<string[]> {
  const from = seen.length;
  await fn();
  return seen.slice(from);
}

beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase();
  const name = new URL(url).pathname.slice(1);
  // The server logs every statement it executes on this database (connections opened from now on).
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`ALTER DATABASE ${name} SET log_statement = 'all'`);
  await admin.end({ timeout: 5 });
  // One reader: a second reader's first statement would add the driver's one-off type query to a count.
  session = await openPostgres(url, { readers: 1, onStatement: (text) => seen.push(text) });
  repos = createPgRepositories(session, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock: () => NOW });
  companyId = (await session.read<{ id: string }>("SELECT id FROM companies WHERE slug = 'default'"))[0]!.id;
  // Both connections open (and past the driver's one-off type query) before anything is counted.
  await session.q("SELECT 1");
  await session.read("SELECT 1");
});

afterAll(async () => {
  await session?.close();
});

/** The statement lines of the server log written since `offset`, up to and including the line with `marker`. */
async function loggedUntil(offset: number, marker: string): Promise<string[]> {
  const log = join(server.dir, "log");
  for (let i = 0; i < 400; i++) {
    const text = readFileSync(log).subarray(offset).toString("utf8");
    const at = text.indexOf(marker);
    if (at >= 0) {
      const upTo = text.slice(0, text.indexOf("\n", at) === -1 ? text.length : text.indexOf("\n", at));
      return upTo.split("\n").filter((l) => /\bLOG:\s+(execute [^:]+|statement): /.test(l));
    }
    await Bun.sleep(25);
  }
  throw new Error(`the server log never showed ${marker}`);
}

test("the hook fires once for every statement the server executes: plain statements, a transaction, a savepoint, a failed write", async () => {
  const offset = statSync(join(server.dir, "log")).size;
  const marker = `marker_${randomBytes(6).toString("hex")}`;
  const sent = await statements(async () => {
    await session.q("SELECT $1::text AS x", ["one"]);
    await session.read("SELECT $1::text AS x", ["two"]);
    await session.read("SELECT $1::text AS x", ["three"]); // prepared by now: executed without a new parse
    await session.transaction(async () => {
      await session.q("SELECT 1 AS inside");
      await session.transaction(async () => session.q("SELECT 2 AS nested"));
    });
    await expect(session.q("INSERT INTO database_meta (key, value) VALUES (NULL, 'x')")).rejects.toThrow();
    await session.read(`SELECT '${marker}' AS marker`);
  });
  const logged = await loggedUntil(offset, marker);
  // Three selects, begin, a select, a savepoint, a select, commit, the failed insert, the marker: one log line each.
  expect(sent.length).toBe(logged.length);
  expect(sent.length).toBe(10);
  expect(sent.filter((s) => /^begin/i.test(s))).toHaveLength(1);
  expect(sent.filter((s) => /^commit/i.test(s))).toHaveLength(1);
  expect(sent.filter((s) => /^savepoint/i.test(s))).toHaveLength(1);
});

// ---- data ----

function rule(i: number) {
  const v = validateCreateRule({ name: `Rule ${i}`, category: "aml", jurisdictions: ["DE"], threshold: 1000 + i, thresholdCurrency: "EUR" }, () => undefined);
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return newRule(newId("rul", NOW), companyId, "test", v.value, "mem_count", iso(NOW));
}

/** 50 distinct (country, type) pairs. */
const PAIRS = COUNTRY_CODES.slice(0, LARGE / 2).flatMap((c) => THRESHOLD_TYPES.map((t) => [c, t] as const));

function threshold(i: number) {
  const [countryCode, type] = PAIRS[i]!;
  const v = validateCreateThreshold({ countryCode, type, name: "Travel Rule", thresholdAmount: `${1000 + i}.50`, regulation: "Law" });
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return newThreshold(newId("thr", NOW), v.value, "mem_count", iso(NOW));
}

/** Due provider transfers up to `n` of each protocol, written directly (the transfers port is not the subject here). */
async function dueTransfers(from: number, to: number): Promise<void> {
  await session.q(
    `INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, protocol, expires_at, created_at, updated_at)
     SELECT 'trf_count_' || p || '_' || lpad(g::text, 3, '0'), $1, 'test', 'outgoing', 'exchanging', 'pending', 'BTC', '1', 'bitcoin', 'bc1q' || g, p, $2, $2, $2
       FROM generate_series($3::int, $4::int) g, unnest(ARRAY['provider_a', 'provider_d', 'provider_e']) p`,
    [companyId, iso(NOW - 3_600_000), from, to],
  );
}

/** The representative calls; each answers what it found, to check the data really grew. */
function calls(): Record<string, () => Promise<number>> {
  const r = repos;
  return {
    "rules.active": async () => (await r.rules.active(companyId, "test")).length,
    "rules.page (20)": async () => (await r.rules.page(companyId, "test", { category: "aml" }, null, 20)).length,
    "rules.count (search)": () => r.rules.count(companyId, "test", { search: "rule" }),
    "rules.promotedTo": async () => ((await r.rules.promotedTo(companyId, "rul_promoted")) === null ? 0 : 1),
    "thresholds.applicable": async () => ((await r.thresholds.applicable(companyId, { type: "tr", now: NOW })).threshold ? 1 : 0),
    "thresholds.all": async () => (await r.thresholds.all(companyId)).length,
    "thresholds.activeCount": () => r.thresholds.activeCount(companyId),
    "thresholds.ownVasp": async () => ((await r.thresholds.ownVasp(companyId)).id ? 1 : 0),
    "providerSettings.list": async () => (await r.providerSettings.list(companyId, "test", "provider")).filter((s) => s.configured).length,
    "providerSettings.get": async () => ((await r.providerSettings.get(companyId, "test", definitions("provider")[0]!.name)).configured ? 1 : 0),
    "providerA.dueForPoll": async () => (await r.providerA.dueForPoll(NOW)).length,
    "providerA.dueForStall": async () => (await r.providerA.dueForStall(NOW)).length,
    "providerD.dueForExpiry": async () => (await r.providerD.dueForExpiry(NOW)).length,
    "providerE.dueForPoll": async () => (await r.providerE.dueForPoll(NOW)).length,
    "providerE.dueForExpiry": async () => (await r.providerE.dueForExpiry(NOW)).length,
    "providerBRequests.claim (new)": async () => ((await r.providerBRequests.claim({ companyId, environment: "test", sender: "code:count", transferId: `t-${randomBytes(4).toString("hex")}` }, "transfer", "h", NOW)).decision === "new" ? 1 : 0),
  };
}

/** Each call's statement count, and what it found. */
async function measure(): Promise<Record<string, { statements: number; found: number }>> {
  const out: Record<string, { statements: number; found: number }> = {};
  for (const [name, call] of Object.entries(calls())) {
    let found = 0;
    const sent = await statements(async () => {
      found = await call();
    });
    out[name] = { statements: sent.length, found };
  }
  return out;
}

/** Writes the data up to `n` of each kind (rules, thresholds, promotions, saved settings, due transfers, provider_b records). */
async function grow(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await repos.rules.insert(rule(i));
    await repos.thresholds.insert(companyId, threshold(i));
    // Promotions of one test rule to live rules that no longer exist: promotedTo must look past every one of them.
    await session.q(
      "INSERT INTO audit_log (id, company_id, environment, actor_type, action, entity_type, entity_id, detail, created_at) VALUES ($1, $2, 'test', 'system', 'rule.promoted', 'Rule', 'rul_promoted', $3, $4)",
      [newId("aud", NOW), companyId, JSON.stringify({ liveRuleId: `rul_gone_${i}` }), iso(NOW)],
    );
    await repos.providerBRequests.claim({ companyId, environment: "test", sender: "code:other", transferId: `grow-${i}` }, "transfer", "h", NOW);
  }
  await dueTransfers(from, to - 1);
  const names = definitions("provider").map((d) => d.name);
  for (const name of to >= LARGE ? names : names.slice(0, 1)) {
    if (await repos.providerSettings.id(companyId, name)) continue;
    const at = iso(NOW);
    await session.transaction(async () => {
      await repos.providerSettings.insertSwitch(companyId, name, { id: newId("prv", NOW), enabled: true, enabledChangedAt: at, createdAt: at, updatedAt: at });
      await repos.providerSettings.insertEnvironment(companyId, "test", name, { configuredFields: ["apiKey"], notes: null, lastTestedAt: null, lastTestResult: null, lastError: null, createdAt: at, updatedAt: at }, { apiKey: "k" });
    });
  }
}

test(`every call sends as many statements with ${LARGE} rows as with ${SMALL}`, async () => {
  await grow(0, SMALL);
  const small = await measure();
  await grow(SMALL, LARGE);
  const large = await measure();
  // The data grew where it is read (so the comparison compares something).
  expect(large["rules.active"]!.found).toBe(LARGE);
  expect(large["rules.page (20)"]!.found).toBe(20);
  expect(large["thresholds.all"]!.found).toBe(LARGE);
  expect(large["providerA.dueForPoll"]!.found).toBe(LARGE);
  expect(large["providerD.dueForExpiry"]!.found).toBe(LARGE);
  expect(large["providerE.dueForExpiry"]!.found).toBe(LARGE);
  expect(large["providerSettings.list"]!.found).toBe(definitions("provider").length);
  expect(small["providerSettings.list"]!.found).toBe(1);
  const counts = (m: typeof small) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.statements]));
  expect(counts(large)).toEqual(counts(small));
  // And how many: one statement per read; a claim is begin, the locking read, the insert, commit.
  expect(counts(small)).toEqual({
    "rules.active": 1,
    "rules.page (20)": 1,
    "rules.count (search)": 1,
    "rules.promotedTo": 1,
    "thresholds.applicable": 1,
    "thresholds.all": 1,
    "thresholds.activeCount": 1,
    "thresholds.ownVasp": 1,
    "providerSettings.list": 1,
    "providerSettings.get": 1,
    "providerA.dueForPoll": 1,
    "providerA.dueForStall": 1,
    "providerD.dueForExpiry": 1,
    "providerE.dueForPoll": 1,
    "providerE.dueForExpiry": 1,
    "providerBRequests.claim (new)": 4,
  });
});

test("a sweep reads one statement per page: the page size, not the number of due transfers, sets the count", async () => {
  const sent = await statements(() => repos.providerA.dueForPoll(NOW, 20));
  // 50 due: pages of 20, 20 and 10 (a short page ends the sweep).
  expect(sent).toHaveLength(3);
});
