// Replaying a dead letter through the API is an operator's power: an owner's console session only. An API key, however
// scoped, is 403 OFFICER_SESSION_REQUIRED; a session whose role lacks dead-letters:replay is 403
// INSUFFICIENT_PERMISSION; the owner's session puts the message back in its actor's mailbox, where the running server
// handles it (a customer's deactivation here), audited with the member and the session. IDs are the company's and
// environment's own: another environment's session, a made-up ID and a replayed one are 404 DEAD_LETTER_NOT_FOUND.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, expectOk, ISO_MS } from "../support/api.ts";
import { MasterKey, parseMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { Value } from "@sinclair/typebox/value";
import { ROUTES } from "../../src/api/index.ts";

// A server on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "replay.db");
const { newKey, newSession, call } = apiClient(db, () => S.url);
let S: ChildServer;
let owner: { key: string; memberEmail: string };
let ownerSession: { token: string; sessionId: string; memberId: string; login(env: "test" | "live"): Promise<string> };
let officerSession: string;
let companyId: string;
const customers: string[] = [];

const sql = <T = Record<string, unknown>>(q: string, ...args: (string | number)[]) => {
  const d = new Database(db);
  try {
    return d.query(q).all(...args) as T[];
  } finally {
    d.close();
  }
};

/**
 * A dead letter as the runtime buries one: a real customer command (deactivate), sealed under the server's mailbox
 * key for its actor, parked after five attempts with the company and environment it names.
 */
function bury(id: number, customerId: string, environment: "test" | "live" = "test") {
  const key = MasterKey.fromBytes(parseMasterKey(readFileSync(join(dirname(db), "master.key"), "utf8")));
  const sealer = new Sealer(key.derive("mailbox"));
  const actor = `customer:${customerId}`;
  const body = sealer.seal(JSON.stringify({ type: "deactivate", reason: "replayed by the operator", companyId, environment, actor: { type: "system" } }), actor);
  const now = Date.now();
  const d = new Database(db);
  try {
    d.query("INSERT INTO actor_dead_letters (id, actor, body, attempts, last_error, created_at, died_at, company_id, environment) VALUES (?, ?, ?, 5, 'Error: a fault since fixed', ?, ?, ?, ?)").run(id, actor, body, now, now, companyId, environment);
  } finally {
    d.close();
  }
}

const status = (customerId: string) => sql<{ status: string }>("SELECT status FROM customers WHERE id = ?", customerId)[0]!.status;
const deadLetters = async (session: string) => {
  const r = await call("/api/v2/dead-letters", { session });
  expectOk(r);
  expect(Value.Check(ROUTES["GET /api/v2/dead-letters"]!.answer!, r.body)).toBe(true);
  return r.body.data as { id: string; actor: string; attempts: number; lastError: string; diedAt: string }[];
};

beforeAll(async () => {
  S = await startServer({ CARAVAN_DB: db, CARAVAN_ACTOR_POLL_MS: "60000" });
  owner = await newKey("--env", "test", "--role", "owner");
  companyId = sql<{ id: string }>("SELECT id FROM companies WHERE slug = 'default'")[0]!.id;
  ownerSession = await newSession({ email: owner.memberEmail });
  officerSession = (await newSession("compliance_officer")).token;
  for (const name of ["Jane Doe", "John Roe", "Ann Poe"]) {
    const r = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name } });
    expect(r.status).toBe(201);
    customers.push(r.body.data.id);
  }
  bury(9_000_001, customers[0]!);
  bury(9_000_002, customers[1]!);
  bury(9_000_003, customers[2]!);
});

afterAll(async () => {
  await S?.stop();
});

test("the list shows each with its own ID (not the mailbox number), actor, attempts, last error and when", async () => {
  const rows = await deadLetters(ownerSession.token);
  expect(rows.map((r) => r.actor).sort()).toEqual(customers.map((c) => `customer:${c}`).sort());
  for (const r of rows) {
    expect(r.id).toMatch(/^dl_[A-Za-z0-9_-]{22}$/);
    expect(r.id).not.toContain("9000");
    expect(r).toMatchObject({ attempts: 5, lastError: "Error: a fault since fixed", diedAt: expect.stringMatching(ISO_MS) });
  }
});

test("an API key with every scope → 403 OFFICER_SESSION_REQUIRED; a compliance officer's session → 403 INSUFFICIENT_PERMISSION; nothing replayed", async () => {
  const [first] = await deadLetters(ownerSession.token);
  expectError(await call(`/api/v2/dead-letters/${first!.id}/replay`, { method: "POST", key: owner.key }), 403, "OFFICER_SESSION_REQUIRED");
  expectError(await call("/api/v2/dead-letters/replay", { method: "POST", key: owner.key }), 403, "OFFICER_SESSION_REQUIRED");
  expectError(await call(`/api/v2/dead-letters/${first!.id}/replay`, { method: "POST", session: officerSession }), 403, "INSUFFICIENT_PERMISSION");
  expectError(await call("/api/v2/dead-letters/replay", { method: "POST", session: officerSession }), 403, "INSUFFICIENT_PERMISSION");
  expect(sql("SELECT id FROM actor_dead_letters")).toHaveLength(3);
  expect(customers.map(status)).toEqual(["active", "active", "active"]);
});

test("the owner's session replays one: the server handles it (the customer is deactivated), audited with member and session; again → 404", async () => {
  const rows = await deadLetters(ownerSession.token);
  const target = rows.find((r) => r.actor === `customer:${customers[0]}`)!;
  const r = await call(`/api/v2/dead-letters/${target.id}/replay`, { method: "POST", session: ownerSession.token });
  expectOk(r);
  expect(r.body.data).toEqual({ id: target.id, actor: `customer:${customers[0]}`, replayedAt: expect.stringMatching(ISO_MS) });
  expect(Value.Check(ROUTES["POST /api/v2/dead-letters/:id/replay"]!.answer!, r.body)).toBe(true);
  // Handled by the running server (its poll is a minute here: the route wakes the runtime itself).
  while (status(customers[0]!) !== "deactivated") await Bun.sleep(20);
  expect(status(customers[1]!)).toBe("active");
  expect((await deadLetters(ownerSession.token)).map((x) => x.id)).not.toContain(target.id);
  expect(sql("SELECT count(*) AS n FROM actor_messages WHERE actor = ?", `customer:${customers[0]}`)).toEqual([{ n: 0 }]);

  const audit = await call(`/api/v2/audit-log?entityType=DeadLetter&entityId=${target.id}`, { key: owner.key });
  expectOk(audit);
  expect(audit.body.data).toHaveLength(1);
  expect(audit.body.data[0]).toMatchObject({
    action: "dead_letter.replayed",
    entityId: target.id,
    actor: { type: "member", memberId: ownerSession.memberId, sessionId: ownerSession.sessionId },
    detail: { actor: `customer:${customers[0]}`, via: "console" },
  });

  expectError(await call(`/api/v2/dead-letters/${target.id}/replay`, { method: "POST", session: ownerSession.token }), 404, "DEAD_LETTER_NOT_FOUND");
  expectError(await call("/api/v2/dead-letters/dl_AAAAAAAAAAAAAAAAAAAAAA/replay", { method: "POST", session: ownerSession.token }), 404, "DEAD_LETTER_NOT_FOUND");
  expectError(await call("/api/v2/dead-letters/9000002/replay", { method: "POST", session: ownerSession.token }), 404, "DEAD_LETTER_NOT_FOUND");
});

test("another environment's session does not reach them; replay of all puts back the caller's environment's, each audited", async () => {
  const rows = await deadLetters(ownerSession.token);
  expect(rows).toHaveLength(2);
  const live = await ownerSession.login("live");
  expect(await deadLetters(live)).toEqual([]);
  expectError(await call(`/api/v2/dead-letters/${rows[0]!.id}/replay`, { method: "POST", session: live }), 404, "DEAD_LETTER_NOT_FOUND");
  const none = await call("/api/v2/dead-letters/replay", { method: "POST", session: live });
  expectOk(none);
  expect(none.body.data).toEqual({ replayed: [] });
  expect(sql("SELECT id FROM actor_dead_letters")).toHaveLength(2);

  const all = await call("/api/v2/dead-letters/replay", { method: "POST", session: ownerSession.token });
  expectOk(all);
  expect(Value.Check(ROUTES["POST /api/v2/dead-letters/replay"]!.answer!, all.body)).toBe(true);
  expect(all.body.data.replayed.map((x: { id: string }) => x.id).sort()).toEqual(rows.map((x) => x.id).sort());
  while (status(customers[1]!) !== "deactivated" || status(customers[2]!) !== "deactivated") await Bun.sleep(20);
  expect(await deadLetters(ownerSession.token)).toEqual([]);
  const audit = await call("/api/v2/audit-log?entityType=DeadLetter", { key: owner.key });
  expect(audit.body.data.map((e: { entityId: string }) => e.entityId)).toEqual(expect.arrayContaining(rows.map((x) => x.id)));
  expect(audit.body.data).toHaveLength(3);
});
