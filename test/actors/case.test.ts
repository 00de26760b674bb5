// The case actor's contract with the transfer actor (Part 2 "Case" opened by screening, resolution, transfer outcome),
// in a runtime of its own with a stub transfer actor that speaks the real messages.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { createRepositories } from "../../src/adapters/storage/repositories.ts";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { caseActor, newCaseId, type CaseResolved, type OpenFromScreening, type TransferOutcome } from "../../src/actors/case.ts";
import { CasePresenter } from "../../src/actors/case-presenter.ts";
import { Cases } from "../../src/adapters/storage/repos/cases.ts";
import { tempDir } from "../support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
let storage: Storage;
let runtime: ActorRuntime;
let companyId: string;
const pii = new Sealer(crypto.getRandomValues(new Uint8Array(32)));
const received: CaseResolved[] = [];
/** What the stub transfer actor answers: the state reached, or a refusal. */
let answer: (m: CaseResolved) => { moved: boolean; newValue: string } = () => ({ moved: true, newValue: "rejected" });

const stubTransfer: ActorKind<Record<string, never>, CaseResolved> = {
  kind: "transfer",
  initialState: () => ({}),
  handle(ctx, msg) {
    received.push(msg);
    const a = answer(msg);
    const out: TransferOutcome = { type: "transferOutcome", companyId: msg.companyId, environment: msg.environment, transferId: ctx.id, ...a };
    ctx.tell(`case:${msg.caseId}`, out);
  },
};

let n = 0;
function transferRow(state: string, status = "pending"): string {
  const id = `trf_${String(++n).padStart(6, "0")}${"0".repeat(20)}`;
  const now = new Date().toISOString();
  storage
    .stmt(
      `INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, created_at, updated_at, threshold_info)
       VALUES (?, ?, 'test', 'outgoing', ?, ?, 'ETH', '2', 'ethereum', '0xabc', ?, ?, ?)`,
    )
    .run(id, companyId, state, status, now, now, JSON.stringify({ jurisdiction: "DE" }));
  return id;
}

const member = { type: "member" as const, memberId: "mem_officer", apiKeyId: "key_1" };
const scoped = () => ({ companyId, environment: "test" as const, actor: member });

function screening(transferId: string, over: Partial<OpenFromScreening> = {}): OpenFromScreening {
  return {
    type: "openFromScreening",
    companyId,
    environment: "test",
    transferId,
    ruleId: null,
    caseType: "sanctions_hit",
    category: "sanctions",
    severity: "medium",
    stage: "precheck",
    verdict: "require_review",
    at: new Date().toISOString(),
    ...over,
  };
}

const history = async (caseId: string) => (await new Cases(storage).history(caseId, null, 100, true)).map((h) => [h.action, h.field, h.newValue]);

beforeAll(async () => {
  storage = await openStorage(join(dir, "case.db"));
  companyId = (storage.stmt("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;
  runtime = new ActorRuntime(storage, { concurrency: 8 });
  await runtime.register(caseActor({ repositories: createRepositories(storage, { pii, secrets: pii, clock: Date.now }), pii, nameIndexKey: new Uint8Array(32) })).register(stubTransfer).start();
});

afterAll(async () => {
  await runtime.stop();
  storage.close();
});

describe("opened by screening", () => {
  test("a hold opens a case: type and category from the rule, priority from severity, source screening, no assignee, the transfer linked, title sealed, case.created", async () => {
    const t = transferRow("held");
    const id = newCaseId(Date.now());
    await runtime.tell(`case:${id}`, screening(t, { severity: "high", stage: "postcheck", verdict: "block" }));
    await runtime.idle();
    const c = (await new Cases(storage).get(companyId, "test", id))!;
    expect(c).toMatchObject({ type: "sanctions_hit", category: "sanctions", priority: "high", source: "screening", assigneeId: null, status: "open" });
    expect((storage.stmt("SELECT first_transfer_id FROM cases WHERE id = ?").get(id) as { first_transfer_id: string }).first_transfer_id).toBe(t);
    expect(c.transferIds).toEqual([t]);
    expect(c.titleSealed.includes("Transfer")).toBe(false);
    const d = (await new CasePresenter(new Cases(storage), pii).detail(companyId, "test", c, { piiView: true, transfersRead: true, strsRead: true })) as any;
    expect(d.title).toBe("Transfer blocked at postcheck by screening");
    expect(d.createdById).toBeNull();
    const ev = storage.stmt("SELECT type FROM events WHERE entity_id = ?").all(id) as { type: string }[];
    expect(ev.map((e) => e.type)).toEqual(["case.created"]);
  });

  test("a second hold of the same transfer adds to its open case (history, case.updated), never opening another", async () => {
    const t = transferRow("held");
    const id = newCaseId(Date.now());
    await runtime.tell(`case:${id}`, screening(t, { severity: "low" }));
    await runtime.idle();
    await runtime.tell(`case:${id}`, screening(t, { severity: "high", stage: "postcheck" }));
    await runtime.idle();
    const rows = storage.stmt("SELECT id, priority FROM cases WHERE first_transfer_id = ?").all(t) as { id: string; priority: string }[];
    expect(rows).toEqual([{ id, priority: "high" }]);
    expect(await history(id)).toEqual([
      ["updated", "priority", "high"],
      ["updated", "screening", "postcheck:require_review"],
      ["created", "status", "open"],
    ]);
    const ev = storage.stmt("SELECT type FROM events WHERE entity_id = ? ORDER BY seq").all(id) as { type: string }[];
    expect(ev.map((e) => e.type)).toEqual(["case.created", "case.updated"]);
  });
});

describe("resolution and the transfer's outcome", () => {
  async function openAndResolve(resolution: "approved" | "rejected", mayWriteStrs: boolean, t: string) {
    const id = newCaseId(Date.now());
    await runtime.tell(`case:${id}`, screening(t));
    await runtime.idle();
    const out = await runtime.ask<any>(`case:${id}`, { type: "resolve", ...scoped(), resolution, resolutionNote: "Confirmed match", mayWriteTransfers: true, mayWriteStrs });
    await runtime.idle();
    return { id, out };
  }

  test("caseResolved reaches transfer:<first linked> with act true when queued; transfer_updated recorded once with the state reached", async () => {
    answer = () => ({ moved: true, newValue: "queued" });
    const t = transferRow("held");
    const { id, out } = await openAndResolve("approved", true, t);
    expect(out.data.transferAction).toEqual({ transferId: t, result: "queued" });
    const msg = received.find((m) => m.caseId === id)!;
    expect(msg).toEqual({ type: "caseResolved", companyId, environment: "test", actor: member, caseId: id, resolution: "approved", act: true });
    const h = await history(id);
    expect(h.filter((x) => x[0] === "transfer_updated")).toEqual([["transfer_updated", "state", "queued"]]);
    expect(h.some((x) => x[0] === "str_drafted")).toBe(false);
  });

  test("a repeated transferOutcome is recorded once", async () => {
    answer = () => ({ moved: true, newValue: "queued" });
    const t = transferRow("held");
    const { id } = await openAndResolve("approved", true, t);
    await runtime.tell(`case:${id}`, { type: "transferOutcome", companyId, environment: "test", transferId: t, moved: true, newValue: "queued" });
    await runtime.idle();
    expect((await history(id)).filter((x) => String(x[0]).startsWith("transfer_")).length).toBe(1);
  });

  test("a rejection that moved the transfer drafts the suspicion report (draft, jurisdiction of the transfer, generatedBy the member) and records str_drafted", async () => {
    answer = () => ({ moved: true, newValue: "rejected" });
    const t = transferRow("held");
    const { id } = await openAndResolve("rejected", true, t);
    const h = await history(id);
    expect(h.slice(0, 2).map((x) => x[0]).sort()).toEqual(["str_drafted", "transfer_updated"]);
    const reportId = h.find((x) => x[0] === "str_drafted")![2];
    const r = storage.stmt("SELECT status, jurisdiction, transfer_id, case_id, generated_by, detection_method FROM reports WHERE id = ?").get(reportId);
    expect(r).toEqual({ status: "draft", jurisdiction: "DE", transfer_id: t, case_id: id, generated_by: "mem_officer", detection_method: "screening" });
    // str_drafted is shown only to a key holding reports:read and strs:read.
    const c = (await new Cases(storage).get(companyId, "test", id))!;
    const p = new CasePresenter(new Cases(storage), pii);
    const seen = (await p.detail(companyId, "test", c, { piiView: true, transfersRead: true, strsRead: true })) as any;
    const hidden = (await p.detail(companyId, "test", c, { piiView: true, transfersRead: true, strsRead: false })) as any;
    expect(seen.history.some((e: any) => e.action === "str_drafted")).toBe(true);
    expect(hidden.history.some((e: any) => e.action === "str_drafted")).toBe(false);
    expect(seen.historyCount - hidden.historyCount).toBe(1);
  });

  test("no report without strs:write; a refusal is recorded as transfer_not_updated with its reason", async () => {
    answer = () => ({ moved: true, newValue: "rejected" });
    const a = await openAndResolve("rejected", false, transferRow("held"));
    expect((await history(a.id)).some((x) => x[0] === "str_drafted")).toBe(false);
    answer = () => ({ moved: false, newValue: "reject_refused" });
    const b = await openAndResolve("rejected", true, transferRow("held"));
    const h = await history(b.id);
    expect(h[0]).toEqual(["transfer_not_updated", "state", "reject_refused"]);
    expect(h.some((x) => x[0] === "str_drafted")).toBe(false);
  });

  test("act is false when the transfer is not rejectable; the transfer is still told", async () => {
    answer = () => ({ moved: false, newValue: "reject_refused" });
    const t = transferRow("held", "approved");
    const { id, out } = await openAndResolve("rejected", true, t);
    expect(out.data.transferAction).toEqual({ transferId: t, result: "skipped", reason: "not_rejectable" });
    expect(received.find((m) => m.caseId === id)!.act).toBe(false);
  });
});

describe("a command answers the case it committed (the routes present it without reading it again)", () => {
  test("create, update, note and resolve answer the record as it now reads; the note as written", async () => {
    const cases = new Cases(storage);
    const id = newCaseId(Date.now());
    const input = { title: "Review", description: null, type: "compliance_review", category: "aml", priority: "low", ruleId: null, transferId: null, assigneeId: null };
    const made = await runtime.ask<any>(`case:${id}`, { type: "create", ...scoped(), input, source: "api" });
    expect(made.ok).toBe(true);
    expect(made.data.case).toEqual(await cases.get(companyId, "test", id));
    const changed = await runtime.ask<any>(`case:${id}`, { type: "update", ...scoped(), patch: { priority: "high", title: "Reviewed" } });
    expect(changed.data.case).toEqual(await cases.get(companyId, "test", id));
    expect(changed.data.case.version).toBe(2);
    const noted = await runtime.ask<any>(`case:${id}`, { type: "addNote", ...scoped(), content: "checked" });
    const { seq: _seq, ...note } = (await cases.note(id, noted.data.id))!;
    expect(noted.data.note).toEqual(note);
    const resolved = await runtime.ask<any>(`case:${id}`, { type: "resolve", ...scoped(), resolution: "approved", resolutionNote: null, mayWriteTransfers: false, mayWriteStrs: false });
    expect(resolved.data.case).toEqual(await cases.get(companyId, "test", id));
    expect(resolved.data.case).toMatchObject({ status: "closed", resolution: "approved", noteCount: 1 });
  });
});
