// Part 2 "Case", "States and transitions → Case", the Cases endpoints, case events, Errors and Limits, over real HTTP.
// Held transfers are set in the database file (the transfer actor's side of a resolution is tested with it by the lead).
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { sqlRows, storedEvents, storedText } from "../support/db.ts";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, ISO_MS, type Answer } from "../support/api.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "cases.db");
const { cli, newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;

interface Key {
  key: string;
  id: string;
  memberId: string;
  memberEmail: string;
}
let owner: Key;
let ownerLive: Key;
let analyst: Key;
let officer: Key;
/** Owner role, key scoped to cases:write only: gets receipts. */
let writeOnly: Key;
/** Owner role, cases scopes but no transfers:write. */
let noTransferWrite: Key;
let companyId: string;

const CASE_ID = /^cas_[0-9a-z]{26}$/;
const LIST_FIELDS = [
  "assignee", "assigneeId", "category", "caseNumber", "createdAt", "createdById", "description", "id", "noteCount", "priority", "resolution", "resolutionNote",
  "ruleId", "source", "status", "title", "transferIds", "type", "updatedAt",
].sort();
const DETAIL_FIELDS = [...LIST_FIELDS, "createdBy", "history", "historyCount", "notes", "resolvedAt", "resolvedBy", "resolvedById", "rule", "transfers"].sort();
const EVENT_FIELDS = [
  "assigneeId", "caseNumber", "category", "createdAt", "id", "priority", "resolution", "resolvedAt", "ruleId", "source", "status", "transferIds", "type", "updatedAt",
].sort();


let trfSeq = 0;
/** A transfer row of the environment in the given state (the transfer actor's side is not under test here). */
function transferRow(env: "test" | "live", state: string, status = "pending"): string {
  const id = `trf_${String(++trfSeq).padStart(6, "0")}${"0".repeat(20)}`;
  const now = new Date().toISOString();
  sqlRows(
    db,
    `INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, created_at, updated_at, threshold_info)
     VALUES (?, ?, ?, 'outgoing', ?, ?, 'ETH', '1.5', 'ethereum', '0xabc', ?, ?, ?)`,
    id, companyId, env, state, status, now, now, JSON.stringify({ jurisdiction: "NL" }),
  );
  return id;
}

const create = (json: unknown, key: Key = owner) => call("/api/v2/cases", { method: "POST", key: key.key, json });
const get = (id: string, key: Key = owner) => call(`/api/v2/cases/${id}`, { key: key.key });
const patch = (id: string, json: unknown, key: Key = owner) => call(`/api/v2/cases/${id}`, { method: "PATCH", key: key.key, json });
const resolve = (id: string, json: unknown, key: Key = owner) => call(`/api/v2/cases/${id}/resolve`, { method: "POST", key: key.key, json });
const addNote = (id: string, content: unknown, key: Key = owner) => call(`/api/v2/cases/${id}/notes`, { method: "POST", key: key.key, json: { content } });
const list = (query = "", key: Key = owner) => call(`/api/v2/cases${query ? `?${query}` : ""}`, { key: key.key });

function ok(r: Answer, status = 200) {
  expect({ status: r.status, body: r.status === status ? null : r.body }).toEqual({ status, body: null });
  expect(r.body.meta.apiVersion).toBe(2);
  expect(r.body.meta.timestamp).toMatch(ISO_MS);
}

async function newCase(json: Record<string, unknown> = {}, key: Key = owner): Promise<any> {
  const r = await create({ title: "Structuring pattern for Jane Roe", type: "manual_escalation", ...json }, key);
  ok(r, 201);
  return r.body.data;
}

const events = (entityId: string) => storedEvents(db, entityId);

beforeAll(async () => {
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  owner = await newKey("--env", "test", "--role", "owner");
  ownerLive = await newKey("--env", "live", "--role", "owner");
  analyst = await newKey("--env", "test", "--role", "analyst");
  officer = await newKey("--env", "test", "--role", "compliance_officer");
  writeOnly = await newKey("--env", "test", "--role", "owner", "--scopes", "cases:write");
  noTransferWrite = await newKey("--env", "test", "--role", "owner", "--scopes", "cases:read,cases:write,transfers:read");
  companyId = (sqlRows(db, "SELECT id FROM companies WHERE slug = 'default'")[0] as { id: string }).id;
  S = await startServer({ CARAVAN_DB: db });
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

describe("POST /api/v2/cases", () => {
  test("201 with the case in detail: every field, CASE-TEST-<year>-<6 digits>, open, created history, no notes", async () => {
    const t = transferRow("test", "completed", "approved");
    const r = await create({ title: "Unusual velocity", type: "compliance_review", description: "Ten transfers in an hour", priority: "high", transferId: t, assigneeId: officer.memberId });
    ok(r, 201);
    const c = r.body.data;
    expect(Object.keys(c).sort()).toEqual(DETAIL_FIELDS);
    expect(c.id).toMatch(CASE_ID);
    expect(c.caseNumber).toMatch(new RegExp(`^CASE-TEST-${new Date().getUTCFullYear()}-\\d{6}$`));
    expect(c).toMatchObject({
      title: "Unusual velocity",
      description: "Ten transfers in an hour",
      type: "compliance_review",
      category: "aml",
      priority: "high",
      status: "open",
      resolution: null,
      resolutionNote: null,
      assigneeId: officer.memberId,
      assignee: { id: officer.memberId, name: officer.memberEmail, email: officer.memberEmail },
      ruleId: null,
      rule: null,
      transferIds: [t],
      source: "api",
      noteCount: 0,
      createdById: owner.memberId,
      createdBy: { id: owner.memberId, name: owner.memberEmail, email: owner.memberEmail },
      resolvedAt: null,
      resolvedBy: null,
      notes: [],
    });
    expect(c.transfers).toEqual([{ id: t, externalId: null, direction: "outgoing", state: "completed", complianceStatus: "approved", amount: "1.5", asset: "ETH", network: "ethereum", createdAt: expect.stringMatching(ISO_MS) }]);
    expect(c.history.map((h: any) => [h.action, h.field, h.newValue])).toEqual([
      ["assigned", "assigneeId", officer.memberId],
      ["created", "status", "open"],
    ]);
    expect(c.historyCount).toBe(2);
    expect(c.createdAt).toMatch(ISO_MS);
    expect(r.body.meta.piiMasked).toBeUndefined();
  });

  test("case numbers are sequential per environment and never reused", async () => {
    const a = await newCase();
    const b = await newCase();
    const n = (x: string) => Number(x.slice(-6));
    expect(n(b.caseNumber)).toBe(n(a.caseNumber) + 1);
    const live = await create({ title: "Live one", type: "kyc_failure" }, ownerLive);
    ok(live, 201);
    expect(live.body.data.caseNumber).toMatch(/^CASE-\d{4}-000001$/);
    expect(live.body.data.category).toBe("kyc");
  });

  test("category from the type when not given, priority medium by default", async () => {
    const c = await newCase({ type: "sanctions_hit" });
    expect({ category: c.category, priority: c.priority }).toEqual({ category: "sanctions", priority: "medium" });
  });

  test("a body failing validation → 422 VALIDATION_ERROR with details.issues naming each field", async () => {
    const r = await create({ description: 5, type: "other", priority: "urgent", extra: true });
    expectError(r, 422, "VALIDATION_ERROR");
    expect(r.body.details.issues.map((i: any) => i.path).sort()).toEqual(["description", "extra", "priority", "title", "type"]);
    expectError(await create([]), 422, "VALIDATION_ERROR");
  });

  test("limits: title 1 to 200 characters, description 2,000", async () => {
    ok(await create({ title: "é".repeat(200), type: "manual_escalation" }), 201);
    expectError(await create({ title: "x".repeat(201), type: "manual_escalation" }), 422, "VALIDATION_ERROR");
    expectError(await create({ title: "", type: "manual_escalation" }), 422, "VALIDATION_ERROR");
    ok(await create({ title: "t", type: "manual_escalation", description: "d".repeat(2000) }), 201);
    const r = await create({ title: "t", type: "manual_escalation", description: "d".repeat(2001) });
    expectError(r, 422, "VALIDATION_ERROR");
    expect(r.body.details.issues).toEqual([{ path: "description", message: "must be at most 2,000 characters" }]);
  });

  test("links: unknown or other-environment transferId → 422 TRANSFER_NOT_FOUND; unknown ruleId → 422 RULE_NOT_FOUND", async () => {
    expectError(await create({ title: "t", type: "manual_escalation", transferId: "trf_nope" }), 422, "TRANSFER_NOT_FOUND");
    expectError(await create({ title: "t", type: "manual_escalation", transferId: transferRow("live", "held") }), 422, "TRANSFER_NOT_FOUND");
    expectError(await create({ title: "t", type: "manual_escalation", ruleId: "rul_00000000000000000000000000" }), 422, "RULE_NOT_FOUND");
  });

  test("assigneeId must be an active member whose role can view cases (422 INVALID_ASSIGNEE); a developer may not be assigned live cases", async () => {
    expectError(await create({ title: "t", type: "manual_escalation", assigneeId: "mem_00000000000000000000000000" }), 422, "INVALID_ASSIGNEE");
    const dev = await newKey("--env", "test", "--role", "developer");
    ok(await create({ title: "t", type: "manual_escalation", assigneeId: dev.memberId }), 201);
    expectError(await create({ title: "t", type: "manual_escalation", assigneeId: dev.memberId }, ownerLive), 422, "INVALID_ASSIGNEE");
    const gone = await newKey("--env", "test", "--role", "compliance_officer");
    await cli("members", "disable", "--email", gone.memberEmail);
    expectError(await create({ title: "t", type: "manual_escalation", assigneeId: gone.memberId }), 422, "INVALID_ASSIGNEE");
  });

  test("an analyst (no cases:create) → 403 INSUFFICIENT_PERMISSION; a key without cases:write → 403 INSUFFICIENT_SCOPE", async () => {
    expectError(await create({ title: "t", type: "manual_escalation" }, analyst), 403, "INSUFFICIENT_PERMISSION");
    const readOnly = await newKey("--env", "test", "--role", "owner", "--scopes", "cases:read");
    expectError(await create({ title: "t", type: "manual_escalation" }, readOnly), 403, "INSUFFICIENT_SCOPE");
  });

  test("a key without cases:read gets the receipt {id, caseNumber, status}", async () => {
    const r = await create({ title: "t", type: "manual_escalation" }, writeOnly);
    ok(r, 201);
    expect(Object.keys(r.body.data).sort()).toEqual(["caseNumber", "id", "status"]);
    expect(r.body.data.status).toBe("open");
  });

  test("case.created event with exactly the Part 2 case fields, no free text", async () => {
    const c = await newCase({ title: "Secret Title Of Jane", description: "Secret description" });
    const ev = events(c.id);
    expect(ev.map((e) => e.type)).toEqual(["case.created"]);
    expect(Object.keys(ev[0].data).sort()).toEqual(EVENT_FIELDS);
    expect(JSON.stringify(ev[0].data)).not.toContain("Secret");
  });
});

describe("reading", () => {
  test("a case of the other environment → 404 CASE_NOT_FOUND; a malformed ID too", async () => {
    const c = await newCase();
    expectError(await get(c.id, ownerLive), 404, "CASE_NOT_FOUND");
    expectError(await get("cas_x"), 404, "CASE_NOT_FOUND");
    expectError(await patch(c.id, { priority: "low" }, ownerLive), 404, "CASE_NOT_FOUND");
  });

  test("without pii:view: title, description, resolution note, notes and free-text history values are ***, meta.piiMasked, staff named", async () => {
    const c = await newCase({ description: "about Jane", assigneeId: officer.memberId });
    ok(await patch(c.id, { title: "Renamed for John" }), 200);
    ok(await addNote(c.id, "Called the customer"), 201);
    ok(await resolve(c.id, { resolution: "approved", resolutionNote: "Documents fine" }), 200);
    const r = await get(c.id, analyst);
    ok(r);
    expect(r.body.meta.piiMasked).toBe(true);
    const d = r.body.data;
    expect([d.title, d.description, d.resolutionNote, d.notes[0].content]).toEqual(["***", "***", "***", "***"]);
    const renamed = d.history.find((h: any) => h.field === "title");
    expect([renamed.oldValue, renamed.newValue]).toEqual(["***", "***"]);
    expect(d.history.find((h: any) => h.action === "resolved").newValue).toBe("approved");
    expect(d.assignee).toEqual({ id: officer.memberId, name: officer.memberEmail, email: officer.memberEmail });
    expect(d.notes[0].author.email).toBe(owner.memberEmail);
    const full = await get(c.id);
    expect(full.body.data.history.find((h: any) => h.field === "title").newValue).toBe("Renamed for John");
    expect(full.body.data.resolutionNote).toBe("Documents fine");
  });

  test("linked transfers only for a key with transfers:read", async () => {
    const t = transferRow("test", "held");
    const c = await newCase({ transferId: t });
    const noTransfers = await newKey("--env", "test", "--role", "owner", "--scopes", "cases:read,cases:write");
    const r = await get(c.id, noTransfers);
    ok(r);
    expect(r.body.data.transferIds).toEqual([t]);
    expect("transfers" in r.body.data).toBe(false);
  });

  test("title, description and notes are sealed at rest: the database file holds none of them", async () => {
    const marker = `Zanzibar${crypto.randomUUID().slice(0, 8)}`;
    const c = await newCase({ title: `${marker} title`, description: `${marker} description` });
    ok(await addNote(c.id, `${marker} note`), 201);
    ok(await patch(c.id, { title: `${marker} second` }), 200);
    const stored = storedText(db);
    expect(stored).toContain(c.id);
    expect(stored.includes(marker)).toBe(false);
  });
});

describe("GET /api/v2/cases", () => {
  test("filters: status, priority, type, assigneeId (member or me), hasTransfer", async () => {
    const me = await newKey("--env", "test", "--role", "compliance_officer");
    const a = await newCase({ priority: "low", type: "threshold_breach", assigneeId: me.memberId });
    const b = await newCase({ priority: "low", type: "threshold_breach", transferId: transferRow("test", "completed", "approved") });
    const ids = async (q: string, key: Key = owner) => {
      const r = await list(q, key);
      ok(r);
      return r.body.data.map((x: any) => x.id);
    };
    expect(await ids("assigneeId=me", me)).toEqual([a.id]);
    expect(await ids(`assigneeId=${me.memberId}`)).toEqual([a.id]);
    const both = await ids("type=threshold_breach&priority=low&status=open");
    expect(both.slice(0, 2)).toEqual([b.id, a.id]);
    expect(await ids("type=threshold_breach&hasTransfer=true")).toEqual([b.id]);
    expect((await ids("type=threshold_breach&hasTransfer=false")).includes(b.id)).toBe(false);
    ok(await resolve(a.id, { resolution: "approved" }), 200);
    expect(await ids("type=threshold_breach&status=closed")).toEqual([a.id]);
  });

  test("list items have exactly the Part 2 list fields; newest first; cursor pages; total", async () => {
    const r1 = await list("limit=2");
    ok(r1);
    expect(r1.body.data.map((x: any) => Object.keys(x).sort())).toEqual([LIST_FIELDS, LIST_FIELDS]);
    expect(r1.body.meta).toMatchObject({ hasMore: true, limit: 2 });
    expect(r1.body.meta.total).toBeGreaterThan(5);
    const r2 = await list(`limit=2&cursor=${encodeURIComponent(r1.body.meta.cursor)}`);
    ok(r2);
    const all = [...r1.body.data, ...r2.body.data];
    expect(new Set(all.map((x: any) => x.id)).size).toBe(4);
    const times = all.map((x: any) => x.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test("search: case number for everyone; title and description only with pii:view", async () => {
    const word = `Quokka${crypto.randomUUID().slice(0, 6)}`;
    const c = await newCase({ title: `Review of ${word} payments`, description: "nothing" });
    const d = await newCase({ title: "Other", description: `mentions ${word.toLowerCase()}` });
    const ids = async (q: string, key: Key = owner) => (await list(`search=${encodeURIComponent(q)}`, key)).body.data.map((x: any) => x.id);
    expect((await ids(word)).sort()).toEqual([c.id, d.id].sort());
    expect(await ids(word, analyst)).toEqual([]);
    expect(await ids(c.caseNumber, analyst)).toEqual([c.id]);
    expect(await ids(String(Number(c.caseNumber.slice(-6))), analyst)).toEqual([c.id]);
    expect(await ids(c.caseNumber.toLowerCase())).toEqual([c.id]);
  });

  test("bad query → 400 INVALID_QUERY: unknown parameter, limit 201, search over 100, bad assigneeId; foreign cursor → 400 INVALID_CURSOR", async () => {
    for (const q of ["foo=1", "limit=201", "limit=0", `search=${"x".repeat(101)}`, "assigneeId=bob", "status=pending", "hasTransfer=yes"]) expectError(await list(q), 400, "INVALID_QUERY");
    ok(await list("limit=200"));
    expectError(await list("cursor=cas_00000000000000000000000000"), 400, "INVALID_CURSOR");
  });
});

describe("PATCH /api/v2/cases/:id", () => {
  test("at least one field, else 422 VALIDATION_ERROR; unknown fields refused", async () => {
    const c = await newCase();
    expectError(await patch(c.id, {}), 422, "VALIDATION_ERROR");
    expectError(await patch(c.id, { status: "closed" }), 422, "VALIDATION_ERROR");
  });

  test("each changed field is a history entry (assigned for assigneeId); null clears; a new transferId replaces the links; case.updated", async () => {
    const t1 = transferRow("test", "completed", "approved");
    const t2 = transferRow("test", "completed", "approved");
    const c = await newCase({ transferId: t1 });
    const r = await patch(c.id, { priority: "high", assigneeId: officer.memberId, transferId: t2 });
    ok(r);
    expect(r.body.data).toMatchObject({ priority: "high", assigneeId: officer.memberId, transferIds: [t2] });
    const h = r.body.data.history.slice(0, 3).map((e: any) => [e.action, e.field, e.oldValue, e.newValue]);
    expect(h).toContainEqual(["updated", "priority", "medium", "high"]);
    expect(h).toContainEqual(["assigned", "assigneeId", null, officer.memberId]);
    expect(h).toContainEqual(["updated", "transferIds", t1, t2]);
    const cleared = await patch(c.id, { assigneeId: null, transferId: null, description: null });
    ok(cleared);
    expect(cleared.body.data).toMatchObject({ assigneeId: null, assignee: null, transferIds: [], description: null });
    expect(events(c.id).map((e) => e.type)).toEqual(["case.created", "case.updated", "case.updated"]);
  });

  test("a PATCH that changes nothing writes no history and sends no event", async () => {
    const c = await newCase({ priority: "low" });
    ok(await patch(c.id, { priority: "low" }));
    expect((await get(c.id)).body.data.historyCount).toBe(1);
    expect(events(c.id).length).toBe(1);
  });

  test("links are checked on change: TRANSFER_NOT_FOUND, RULE_NOT_FOUND, INVALID_ASSIGNEE (422)", async () => {
    const c = await newCase();
    expectError(await patch(c.id, { transferId: "trf_missing" }), 422, "TRANSFER_NOT_FOUND");
    expectError(await patch(c.id, { ruleId: "rul_missing" }), 422, "RULE_NOT_FOUND");
    expectError(await patch(c.id, { assigneeId: analyst.memberId + "x" }), 422, "INVALID_ASSIGNEE");
  });

  test("an analyst may not change (cases:update) nor assign (cases:assign): 403 INSUFFICIENT_PERMISSION naming the permission", async () => {
    const c = await newCase();
    const analystWriter = await newKey("--env", "test", "--role", "analyst", "--scopes", "cases:read,cases:write");
    const a = await patch(c.id, { assigneeId: officer.memberId }, analystWriter);
    expectError(a, 403, "INSUFFICIENT_PERMISSION");
    expect(a.body.details.permission).toBe("cases:assign");
    const u = await patch(c.id, { priority: "low" }, analystWriter);
    expectError(u, 403, "INSUFFICIENT_PERMISSION");
    expect(u.body.details.permission).toBe("cases:update");
  });

  test("a key without cases:read that changes a case gets the receipt", async () => {
    const c = await newCase();
    const r = await patch(c.id, { priority: "high" }, writeOnly);
    ok(r);
    expect(r.body.data).toEqual({ id: c.id, caseNumber: c.caseNumber, status: "open" });
  });

  test("PATCH on a closed case → 409 CASE_CLOSED; notes are still accepted", async () => {
    const c = await newCase();
    ok(await resolve(c.id, { resolution: "approved" }));
    expectError(await patch(c.id, { priority: "low" }), 409, "CASE_CLOSED");
    ok(await addNote(c.id, "after closing"), 201);
  });
});

describe("notes and history", () => {
  test("POST note: 201 {id, content, authorId, author, createdAt}; content 1 to 5,000; no event; noteCount", async () => {
    const c = await newCase();
    const r = await addNote(c.id, "n".repeat(5000), officer);
    ok(r, 201);
    expect(Object.keys(r.body.data).sort()).toEqual(["author", "authorId", "content", "createdAt", "id"]);
    expect(r.body.data.authorId).toBe(officer.memberId);
    expectError(await addNote(c.id, "n".repeat(5001)), 422, "VALIDATION_ERROR");
    expectError(await addNote(c.id, ""), 422, "VALIDATION_ERROR");
    expect(events(c.id).map((e) => e.type)).toEqual(["case.created"]);
    expect((await get(c.id)).body.data.noteCount).toBe(1);
  });

  test("notes and history newest first with limit and cursor; the detail holds the 20 latest of each", async () => {
    const c = await newCase();
    for (let i = 1; i <= 22; i++) ok(await addNote(c.id, `note ${i}`), 201);
    const d = (await get(c.id)).body.data;
    expect(d.notes.length).toBe(20);
    expect(d.notes[0].content).toBe("note 22");
    expect(d.history.length).toBe(20);
    expect(d.historyCount).toBe(23);
    const p1 = await call(`/api/v2/cases/${c.id}/notes?limit=10`, { key: owner.key });
    ok(p1);
    expect(p1.body.meta).toMatchObject({ hasMore: true, total: 22, limit: 10 });
    const p3 = await call(`/api/v2/cases/${c.id}/notes?limit=10&cursor=${encodeURIComponent((await call(`/api/v2/cases/${c.id}/notes?limit=10&cursor=${encodeURIComponent(p1.body.meta.cursor)}`, { key: owner.key })).body.meta.cursor)}`, { key: owner.key });
    expect(p3.body.data.map((n: any) => n.content)).toEqual(["note 2", "note 1"]);
    expect(p3.body.meta.hasMore).toBe(false);
    const h = await call(`/api/v2/cases/${c.id}/history?limit=1`, { key: owner.key });
    ok(h);
    expect(h.body.data[0]).toMatchObject({ action: "note_added", field: "notes" });
    expect(Object.keys(h.body.data[0]).sort()).toEqual(["action", "createdAt", "field", "id", "newValue", "oldValue", "user", "userId"]);
    expectError(await call(`/api/v2/cases/${c.id}/history?cursor=${encodeURIComponent(p1.body.meta.cursor)}`, { key: owner.key }), 400, "INVALID_CURSOR");
  });
});

describe("POST /api/v2/cases/:id/resolve", () => {
  test("closes the case: resolved history, case.resolved event, resolvedBy; meta.transferAction null without a linked transfer", async () => {
    const c = await newCase();
    const r = await resolve(c.id, { resolution: "rejected", resolutionNote: "Confirmed" }, officer);
    ok(r);
    expect(r.body.meta.transferAction).toBeNull();
    expect(r.body.data).toMatchObject({ status: "closed", resolution: "rejected", resolutionNote: "Confirmed", resolvedById: officer.memberId });
    expect(r.body.data.resolvedAt).toMatch(ISO_MS);
    expect(r.body.data.history[0]).toMatchObject({ action: "resolved", field: "resolution", newValue: "rejected", userId: officer.memberId });
    const ev = events(c.id);
    expect(ev.map((e) => e.type)).toEqual(["case.created", "case.resolved"]);
    expect(ev[1].data).toMatchObject({ status: "closed", resolution: "rejected", resolvedAt: r.body.data.resolvedAt });
  });

  test("a second resolution → 409 CASE_CLOSED", async () => {
    const c = await newCase();
    ok(await resolve(c.id, { resolution: "approved" }));
    expectError(await resolve(c.id, { resolution: "rejected" }), 409, "CASE_CLOSED");
  });

  test("of simultaneous resolutions exactly one wins; the others get 409 CASE_CLOSED", async () => {
    const c = await newCase();
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => resolve(c.id, { resolution: i % 2 ? "approved" : "rejected" })));
    expect(rs.filter((r) => r.status === 200).length).toBe(1);
    for (const r of rs.filter((x) => x.status !== 200)) expectError(r, 409, "CASE_CLOSED");
    expect(events(c.id).filter((e) => e.type === "case.resolved").length).toBe(1);
    expect((await get(c.id)).body.data.history.filter((h: any) => h.action === "resolved").length).toBe(1);
  });

  test("body: resolution required (approved or rejected), resolutionNote at most 2,000", async () => {
    const c = await newCase();
    expectError(await resolve(c.id, {}), 422, "VALIDATION_ERROR");
    expectError(await resolve(c.id, { resolution: "maybe" }), 422, "VALIDATION_ERROR");
    expectError(await resolve(c.id, { resolution: "approved", resolutionNote: "x".repeat(2001) }), 422, "VALIDATION_ERROR");
    ok(await resolve(c.id, { resolution: "approved", resolutionNote: "x".repeat(2000) }));
  });

  test("an analyst may not resolve (cases:resolve): 403 INSUFFICIENT_PERMISSION", async () => {
    const c = await newCase();
    const analystWriter = await newKey("--env", "test", "--role", "analyst", "--scopes", "cases:read,cases:write");
    expectError(await resolve(c.id, { resolution: "approved" }, analystWriter), 403, "INSUFFICIENT_PERMISSION");
  });

  test("meta.transferAction: queued for a held transfer; null when the first linked transfer is not held", async () => {
    const held = transferRow("test", "held");
    const c = await newCase({ transferId: held });
    const r = await resolve(c.id, { resolution: "approved" });
    ok(r);
    expect(r.body.meta.transferAction).toEqual({ transferId: held, result: "queued" });
    const done = await newCase({ transferId: transferRow("test", "completed", "approved") });
    expect((await resolve(done.id, { resolution: "rejected" })).body.meta.transferAction).toBeNull();
  });

  test("meta.transferAction skipped/insufficient_permission for a key without transfers:write (approved or rejected)", async () => {
    for (const resolution of ["approved", "rejected"]) {
      const held = transferRow("test", "held");
      const c = await newCase({ transferId: held });
      const r = await resolve(c.id, { resolution }, noTransferWrite);
      ok(r);
      expect(r.body.meta.transferAction).toEqual({ transferId: held, result: "skipped", reason: "insufficient_permission" });
    }
  });

  test("meta.transferAction skipped/not_rejectable when rejected but the held transfer no longer awaits an officer (verdict not pending)", async () => {
    const held = transferRow("test", "held", "approved");
    const c = await newCase({ transferId: held });
    const r = await resolve(c.id, { resolution: "rejected" });
    ok(r);
    expect(r.body.meta.transferAction).toEqual({ transferId: held, result: "skipped", reason: "not_rejectable" });
  });

  test("a key without cases:read gets the receipt and meta.transferAction", async () => {
    const c = await newCase();
    const r = await resolve(c.id, { resolution: "approved" }, writeOnly);
    ok(r);
    expect(r.body.data).toEqual({ id: c.id, caseNumber: c.caseNumber, status: "closed" });
    expect(r.body.meta.transferAction).toBeNull();
  });
});

describe("CLI: cases list|show|note|assign|resolve as a named member", () => {
  test("an officer notes, assigns and resolves through the case actor's rules; the API sees it; a member without the permission is refused", async () => {
    const c = await newCase({ title: "CLI case for Ana" });
    const email = officer.memberEmail;
    const note = JSON.parse(await cli("cases", "note", "--id", c.id, "--text", "Checked by phone", "--member", email, "--json"));
    expect(note.content).toBe("Checked by phone");
    const assigned = JSON.parse(await cli("cases", "assign", "--id", c.id, "--to", email, "--member", email, "--json"));
    expect(assigned.assigneeId).toBe(officer.memberId);
    const mine = JSON.parse(await cli("cases", "list", "--env", "test", "--mine", "--member", email, "--json"));
    expect(mine.map((x: any) => x.id)).toContain(c.id);
    const resolved = JSON.parse(await cli("cases", "resolve", "--id", c.id, "--resolution", "approved", "--note", "fine", "--member", email, "--json"));
    expect(resolved).toMatchObject({ status: "closed", resolution: "approved", resolvedById: officer.memberId, transferAction: null });
    const shown = JSON.parse(await cli("cases", "show", "--id", c.id, "--member", analyst.memberEmail, "--json"));
    expect(shown.title).toBe("***");
    const api = (await get(c.id)).body.data;
    expect(api.history.map((h: any) => h.action).slice(0, 3)).toEqual(["resolved", "assigned", "note_added"]);
    expect(events(c.id).map((e) => e.type)).toEqual(["case.created", "case.updated", "case.resolved"]);
    const again = await runCli(["cases", "resolve", "--id", c.id, "--resolution", "rejected", "--member", email], { CARAVAN_DB: db });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("CASE_CLOSED");
    const refused = await runCli(["cases", "note", "--id", c.id, "--text", "x", "--member", analyst.memberEmail], { CARAVAN_DB: db });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("cases:update");
  });
});
