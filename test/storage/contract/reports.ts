// The reports port (src/ports/reports.ts), as every engine must keep it: a draft numbered per company and environment
// and read back as a record (booleans, the content sealed and opened again), found by ID and number, keyset pages
// newest first with filters and counts, and a step the domain decided written at the version it was decided on (the
// stale one refused), with its audit entry in the same unit of work.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso, newId } from "../../../src/domain/ids.ts";
import { decideStep } from "../../../src/domain/reports/life.ts";
import type { CreateDraftInput, ReportRecord } from "../../../src/ports/reports.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

export function reportContract(engine: Engine): void {
  describe("reports", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    const input = (o: Partial<CreateDraftInput> = {}): CreateDraftInput => ({
      id: newId("rpt", NOW),
      companyId: store.companyId,
      environment: "test",
      transferId: newId("trf", NOW),
      caseId: null,
      jurisdiction: "US",
      narrative: "The customer moved funds received from a sanctioned exchange.",
      riskIndicators: ["layering"],
      generatedBy: "mem_drafter",
      detectionMethod: "manual",
      regulatoryData: { subjectName: "Doe, Jane" },
      ...o,
    });

    async function draft(o: Partial<CreateDraftInput> = {}): Promise<ReportRecord> {
      const i = input(o);
      const made = await store.store.transaction(() => store.repositories.reports.createDraft(i, NOW));
      const got = (await store.repositories.reports.get(i.companyId, i.environment, i.id))!;
      // The record a draft gives is the one written.
      expect(made).toEqual(got);
      return got;
    }

    test("a draft reads back as a record: numbered, status draft, version 1, booleans, its content opened as given, audited", async () => {
      const reports = store.repositories.reports;
      const i = input();
      const made = await store.store.transaction(() => reports.createDraft(i, NOW));
      const r = (await reports.get(store.companyId, "test", i.id))!;
      expect(r).toMatchObject({ id: i.id, reportNumber: made.reportNumber, status: "draft", jurisdiction: "US", transferId: i.transferId, caseId: null, generatedBy: "mem_drafter", version: 1, createdAt: iso(NOW) });
      expect(typeof r.filingReady).toBe("boolean");
      expect(typeof r.hasCjk).toBe("boolean");
      expect(r.textLength).toBeGreaterThan(0);
      const c = await reports.content(r);
      expect(c.narrative).toBe(i.narrative);
      expect(c.riskIndicators).toEqual(["layering"]);
      expect(c.regulatoryData.subjectName).toBe("Doe, Jane");
      expect(await reports.byNumber(store.companyId, "test", made.reportNumber.toLowerCase())).toEqual(r);
      expect(await reports.get(store.companyId, "live", i.id)).toBeUndefined();
      expect(await reports.get(store.companyId, "test", "rpt_missing")).toBeUndefined();
      expect(await store.repositories.audit.count(store.companyId, "test", { entityId: i.id, action: "str.drafted" })).toBe(1);
      const missing = await reports.missing(r);
      expect(missing).toEqual(await reports.missing(r, c));
    });

    test("the content is stored sealed (no clear text in what the store holds), bound to its report and field, and sealed again by an edit", async () => {
      const reports = store.repositories.reports;
      const secret = { narrative: "Wired funds for Zebulon Quixote-Marsh.", name: "Quixote-Marsh, Zebulon", indicator: "zebulon_indicator" };
      const r = await draft({ narrative: secret.narrative, riskIndicators: [secret.indicator], regulatoryData: { subjectName: secret.name } });
      const stored = [r.sealed.narrative ?? "", r.sealed.riskIndicators, r.sealed.regulatoryData];
      for (const value of stored) {
        expect(value.length).toBeGreaterThan(0);
        for (const clear of ["Zebulon", "Quixote", secret.indicator]) expect(value).not.toContain(clear);
      }
      // Each value opens only as the report and field it was sealed for.
      const other = await draft();
      await expect(reports.content({ ...r, sealed: { ...r.sealed, narrative: other.sealed.narrative } })).rejects.toThrow();
      await expect(reports.content({ ...r, sealed: { ...r.sealed, narrative: r.sealed.regulatoryData } })).rejects.toThrow();
      const d = decideStep(r, "edit", { memberId: "mem_editor", viaConsole: false }, { narrative: "Zebulon Quixote-Marsh again." }, iso(NOW + 500), () => ({
        narrative: secret.narrative,
        riskIndicators: [secret.indicator],
        regulatoryData: { subjectName: secret.name },
      }));
      if (!d.ok) throw new Error(d.refusal.message);
      await store.store.transaction(() => reports.saveStep(r, d.step, { type: "member", memberId: "mem_editor" }, NOW + 500));
      const after = (await reports.get(store.companyId, "test", r.id))!;
      expect(after.sealed.narrative).not.toBe(r.sealed.narrative);
      for (const value of [after.sealed.narrative ?? "", after.sealed.riskIndicators, after.sealed.regulatoryData]) for (const clear of ["Zebulon", "Quixote", secret.indicator]) expect(value).not.toContain(clear);
      expect((await reports.content(after)).narrative).toBe("Zebulon Quixote-Marsh again.");
      // The audit entries the draft and the edit wrote carry none of it either.
      const entries = await store.repositories.audit.page(store.companyId, "test", { entityId: r.id }, null, 10);
      expect(entries.length).toBe(2);
      for (const clear of ["Zebulon", "Quixote", secret.indicator]) expect(JSON.stringify(entries.map((e) => e.detail))).not.toContain(clear);
    });

    test("drafts are numbered one after another in their company and environment", async () => {
      const a = await draft();
      const b = await draft();
      expect(b.seq).toBe(a.seq + 1);
      const live = await draft({ environment: "live" });
      expect(live.reportNumber).not.toBe(b.reportNumber);
    });

    test("a decided step is written at its version with its audit entry; a step decided on a stale version is refused", async () => {
      const reports = store.repositories.reports;
      const r = await draft();
      const content = await reports.content(r);
      const d = decideStep(r, "edit", { memberId: "mem_editor", viaConsole: true }, { narrative: "A new narrative.", fields: { subjectName: "" } }, iso(NOW + 1000), () => content);
      if (!d.ok) throw new Error(d.refusal.message);
      const actor = { type: "member" as const, memberId: "mem_editor", sessionId: "ses_1" };
      const written = await store.store.transaction(() => reports.saveStep(r, d.step, actor, NOW + 1000));
      const after = (await reports.get(store.companyId, "test", r.id))!;
      // The record the step gives is the one written, sealed content included.
      expect(written).toEqual(after);
      expect(after).toMatchObject({ status: "draft", lastEditedBy: "mem_editor", updatedAt: "2026-03-01T10:00:01.000Z", version: 2 });
      const opened = await reports.content(after);
      expect(opened.narrative).toBe("A new narrative.");
      expect(opened.regulatoryData.subjectName).toBeUndefined();
      expect(after.textLength).toBe(d.step.set.textLength!);
      const entries = await store.repositories.audit.page(store.companyId, "test", { entityId: r.id, action: "str.updated" }, null, 10);
      expect(entries.map((e) => e.detail)).toEqual([d.step.audit.detail]);
      // Decided on the version it read: once written, the same step again is refused and writes nothing.
      await expect(store.store.transaction(() => reports.saveStep(r, d.step, actor, NOW + 2000))).rejects.toThrow();
      expect((await reports.get(store.companyId, "test", r.id))!.version).toBe(2);
      expect(await store.repositories.audit.count(store.companyId, "test", { entityId: r.id, action: "str.updated" })).toBe(1);
    });

    test("filing keeps the reference (found by search in any case)", async () => {
      const reports = store.repositories.reports;
      const r = await draft();
      const d = decideStep({ ...r, status: "submitted", filingReady: true }, "file", { memberId: "mem_filer", viaConsole: false }, { reference: " FIU-Contract-42 " }, iso(NOW + 3000), () => {
        throw new Error("a filing opens no content");
      });
      if (!d.ok) throw new Error(d.refusal.message);
      const written = await store.store.transaction(() => reports.saveStep(r, d.step, { type: "member", memberId: "mem_filer" }, NOW + 3000));
      expect(written).toEqual((await reports.get(store.companyId, "test", r.id))!);
      expect(written).toMatchObject({ status: "filed", filingReference: "FIU-Contract-42", filedBy: "mem_filer", filedAt: "2026-03-01T10:00:03.000Z" });
      expect((await reports.page(store.companyId, "test", { search: "fiu-contract-42" }, null, 10)).map((x) => x.id)).toEqual([r.id]);
    });

    test("pages are newest first with a keyset on (createdAt, id); filters and counts agree", async () => {
      const reports = store.repositories.reports;
      await draft({ jurisdiction: "DE" });
      const all = await reports.page(store.companyId, "test", {}, null, 100);
      const keys = all.map((r) => `${r.createdAt}|${r.id}`);
      expect(keys).toEqual([...keys].sort().reverse());
      const first = await reports.page(store.companyId, "test", {}, null, 2);
      const rest = await reports.page(store.companyId, "test", {}, [first[1]!.createdAt, first[1]!.id], 100);
      expect([...first, ...rest].map((r) => r.id)).toEqual(all.map((r) => r.id));
      expect(await reports.count(store.companyId, "test", {})).toBe(all.length);
      const de = await reports.page(store.companyId, "test", { jurisdiction: "DE" }, null, 100);
      expect(de.length).toBe(1);
      expect(await reports.count(store.companyId, "test", { jurisdiction: "DE" })).toBe(1);
      expect(await reports.count(store.companyId, "test", { status: "filed" })).toBe((await reports.page(store.companyId, "test", { status: "filed" }, null, 100)).length);
    });

    test("a draft by hand for a transfer the environment does not hold is refused and writes nothing", async () => {
      const reports = store.repositories.reports;
      const plan = await reports.planDraft(store.companyId, "test", { transferId: "trf_missing", memberId: "mem_drafter", actor: { type: "member", memberId: "mem_drafter" } }, NOW);
      expect(plan.outcome).toMatchObject({ ok: false, refusal: { code: "TRANSFER_NOT_FOUND" } });
      const before = await reports.count(store.companyId, "test", {});
      expect(await store.store.transaction(() => plan.apply())).toBeUndefined();
      expect(await reports.count(store.companyId, "test", {})).toBe(before);
      expect(await reports.goamlParties({ ...(await draft()), transferId: "trf_missing" })).toBeNull();
      expect(await reports.valuation(store.companyId, null)).toBeNull();
    });
  });
}
