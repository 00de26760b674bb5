// The cases port (src/ports/cases.ts), as every engine must keep it: the case record in and out (linked transfers as a
// list, the resolution context parsed, sealed text as given), updates at a version (a stale one refused, the version
// raised), keyset pages newest first with filters and counts, notes and history newest first by seq, the text index.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Environment } from "../../../src/domain/types.ts";
import type { CaseRecord } from "../../../src/ports/cases.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

/** A case inserted through the port (every field as a create sets it, overridable), in the store's default company. */
export async function insertCase(store: OpenedStore, env: Environment, o: Partial<CaseRecord> = {}, at = NOW): Promise<Omit<CaseRecord, "version">> {
  const cases = store.repositories.cases;
  const seq = await store.store.transaction(() => cases.nextSeq(store.companyId, env));
  const c: Omit<CaseRecord, "version"> = {
    id: newId("cas", at),
    companyId: store.companyId,
    environment: env,
    seq,
    caseNumber: `CASE-${env.toUpperCase()}-${seq}`,
    titleSealed: "sealed-title",
    descriptionSealed: null,
    type: "compliance_review",
    category: "aml",
    priority: "medium",
    status: "open",
    resolution: null,
    resolutionNoteSealed: null,
    assigneeId: null,
    ruleId: null,
    transferIds: [],
    source: "api",
    noteCount: 0,
    createdById: "mem_contract",
    resolvedAt: null,
    resolvedById: null,
    resolutionContext: null,
    transferOutcome: null,
    createdAt: iso(at),
    updatedAt: iso(at),
    ...o,
  };
  await store.store.transaction(() => cases.insert(c));
  return c;
}

export function caseContract(engine: Engine): void {
  describe("cases", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    const newCase = (env: Environment, o: Partial<CaseRecord> = {}, at = NOW) => insertCase(store, env, o, at);

    test("an inserted case reads back as the same record at version 1; the other environment and company do not see it", async () => {
      const cases = store.repositories.cases;
      const c = await newCase("test", { transferIds: ["trf_a", "trf_b"], descriptionSealed: "sealed-description" });
      expect(await cases.get(store.companyId, "test", c.id)).toEqual({ ...c, version: 1 });
      expect(await cases.environmentOf(store.companyId, c.id)).toBe("test");
      expect(await cases.get(store.companyId, "live", c.id)).toBeUndefined();
      expect(await cases.get("cmp_other", "test", c.id)).toBeUndefined();
      expect(await cases.environmentOf(store.companyId, "cas_missing")).toBeUndefined();
    });

    test("case numbers are drawn one after another per environment, never reused", async () => {
      const cases = store.repositories.cases;
      const a = await store.store.transaction(() => cases.nextSeq(store.companyId, "live"));
      const b = await store.store.transaction(() => cases.nextSeq(store.companyId, "live"));
      expect(b).toBe(a + 1);
    });

    test("an update at the current version writes the change and raises the version; a stale version is refused", async () => {
      const cases = store.repositories.cases;
      const c = await newCase("test", { transferIds: ["trf_first"] });
      const context = { actor: { type: "member" as const, memberId: "mem_contract" }, mayWriteStrs: true, act: false };
      await store.store.transaction(() =>
        cases.update(c.id, 1, { status: "closed", resolution: "rejected", resolutionContext: context, transferIds: ["trf_second"], updatedAt: iso(NOW + 1000) }),
      );
      const got = (await cases.get(store.companyId, "test", c.id))!;
      expect(got).toEqual({ ...c, status: "closed", resolution: "rejected", resolutionContext: context, transferIds: ["trf_second"], updatedAt: "2026-03-01T10:00:01.000Z", version: 2 });
      await expect(store.store.transaction(() => cases.update(c.id, 1, { priority: "high" }))).rejects.toThrow();
      expect((await cases.get(store.companyId, "test", c.id))!.priority).toBe("medium");
    });

    test("pages are newest first with a keyset on (createdAt, id); filters and counts agree", async () => {
      const cases = store.repositories.cases;
      const env: Environment = "live";
      const made: Omit<CaseRecord, "version">[] = [];
      for (let i = 0; i < 4; i++) made.push(await newCase(env, { priority: i % 2 ? "high" : "low", assigneeId: i === 0 ? "mem_a" : null, transferIds: i === 3 ? ["trf_x"] : [] }, NOW + 10_000 + i));
      const all = await cases.page(store.companyId, env, {}, null, 100);
      const times = all.map((c) => c.createdAt);
      expect(times).toEqual([...times].sort().reverse());
      expect(all.slice(0, 4).map((c) => c.id)).toEqual(made.map((c) => c.id).reverse());
      const first = await cases.page(store.companyId, env, {}, null, 2);
      const after = await cases.page(store.companyId, env, {}, [first[1]!.createdAt, first[1]!.id], 100);
      expect([...first, ...after].map((c) => c.id)).toEqual(all.map((c) => c.id));
      expect((await cases.page(store.companyId, env, { priority: "high" }, null, 100)).every((c) => c.priority === "high")).toBe(true);
      expect(await cases.count(store.companyId, env, { priority: "high" })).toBe((await cases.page(store.companyId, env, { priority: "high" }, null, 100)).length);
      expect((await cases.page(store.companyId, env, { assigneeId: "mem_a" }, null, 100)).map((c) => c.id)).toEqual([made[0]!.id]);
      expect((await cases.page(store.companyId, env, { hasTransfer: true }, null, 100)).map((c) => c.id)).toEqual([made[3]!.id]);
      expect((await cases.page(store.companyId, env, { search: { seq: made[2]!.seq, ids: [made[1]!.id] } }, null, 100)).map((c) => c.id).sort()).toEqual([made[1]!.id, made[2]!.id].sort());
      expect(await cases.openCaseOfTransfer(store.companyId, env, "trf_x")).toMatchObject({ id: made[3]!.id });
      expect(await cases.openCaseOfTransfer(store.companyId, env, "trf_none")).toBeUndefined();
    });

    test("notes and history read newest first by seq, before a keyset; str_drafted only when asked for", async () => {
      const cases = store.repositories.cases;
      const c = await newCase("test");
      const base = { caseId: c.id, companyId: store.companyId, environment: "test" as const };
      await store.store.transaction(async () => {
        for (let i = 0; i < 3; i++) await cases.addNote({ ...base, id: newId("cnt", NOW + i), contentSealed: `sealed-${i}`, authorId: i ? "mem_contract" : null, createdAt: iso(NOW + i) });
        await cases.addHistory({ ...base, id: newId("chi", NOW), action: "created", field: "status", oldValue: null, newValue: "open", sealed: false, userId: null, createdAt: iso(NOW) });
        await cases.addHistory({ ...base, id: newId("chi", NOW + 1), action: "updated", field: "title", oldValue: "sealed-old", newValue: "sealed-new", sealed: true, userId: "mem_contract", createdAt: iso(NOW + 1) });
        await cases.addHistory({ ...base, id: newId("chi", NOW + 2), action: "str_drafted", field: "reportId", oldValue: null, newValue: "rpt_x", sealed: false, userId: null, createdAt: iso(NOW + 2) });
      });
      const notes = await cases.notes(c.id, null, 10);
      expect(notes.map((n) => n.contentSealed)).toEqual(["sealed-2", "sealed-1", "sealed-0"]);
      expect(notes[2]).toMatchObject({ authorId: null, caseId: c.id, createdAt: iso(NOW) });
      expect((await cases.notes(c.id, notes[0]!.seq, 10)).map((n) => n.contentSealed)).toEqual(["sealed-1", "sealed-0"]);
      expect(await cases.note(c.id, notes[1]!.id)).toEqual(notes[1]);
      expect(await cases.note(c.id, "cnt_missing")).toBeUndefined();
      const all = await cases.history(c.id, null, 10, true);
      expect(all.map((h) => h.action)).toEqual(["str_drafted", "updated", "created"]);
      expect(all[1]).toMatchObject({ sealed: true, oldValue: "sealed-old", newValue: "sealed-new", userId: "mem_contract" });
      expect(all[2]!.sealed).toBe(false);
      expect((await cases.history(c.id, null, 10, false)).map((h) => h.action)).toEqual(["updated", "created"]);
      expect(await cases.historyCount(c.id, true)).toBe(3);
      expect(await cases.historyCount(c.id, false)).toBe(2);
    });

    test("the text index finds a case by all its grams; sealed texts answer for the given cases or all", async () => {
      const cases = store.repositories.cases;
      const c = await newCase("test", { titleSealed: "t-sealed", descriptionSealed: "d-sealed" });
      await store.store.transaction(() => cases.replaceGrams(store.companyId, "test", c.id, ["g1", "g2", "g3"]));
      expect(await cases.withAllGrams(store.companyId, "test", ["g1", "g3"], 10)).toEqual([c.id]);
      expect(await cases.withAllGrams(store.companyId, "test", ["g1", "gx"], 10)).toEqual([]);
      expect(await cases.withAllGrams(store.companyId, "live", ["g1"], 10)).toEqual([]);
      expect(await cases.sealedTexts(store.companyId, "test", [c.id])).toEqual([{ id: c.id, titleSealed: "t-sealed", descriptionSealed: "d-sealed" }]);
      expect(await cases.sealedTexts(store.companyId, "test", [])).toEqual([]);
      expect((await cases.sealedTexts(store.companyId, "test", "all")).map((t) => t.id)).toContain(c.id);
    });

    test("counts without a filter, of open and of closed cases follow inserts and status changes", async () => {
      const cases = store.repositories.cases;
      const env: Environment = "test";
      const counts = async () => [await cases.count(store.companyId, env, {}), await cases.count(store.companyId, env, { status: "open" }), await cases.count(store.companyId, env, { status: "closed" })];
      const [all, open, closed] = await counts();
      expect(all).toBe(open! + closed!);
      expect((await cases.page(store.companyId, env, { status: "open" }, null, 1000)).length).toBe(open);
      const c = await newCase(env);
      await newCase(env);
      expect(await counts()).toEqual([all! + 2, open! + 2, closed]);
      await store.store.transaction(() => cases.update(c.id, 1, { status: "closed", updatedAt: iso(NOW + 1) }));
      expect(await counts()).toEqual([all! + 2, open! + 1, closed! + 1]);
      expect((await cases.page(store.companyId, env, { status: "closed" }, null, 1000)).length).toBe(closed! + 1);
    });

    test("the text index: replacing a case's grams drops the old ones; candidates come in ID order, at most `cap`", async () => {
      const cases = store.repositories.cases;
      const [a, b, c] = [await newCase("live"), await newCase("live"), await newCase("live")];
      for (const x of [c, a, b]) await store.store.transaction(() => cases.replaceGrams(store.companyId, "live", x.id, ["q1", "q2"]));
      const ids = [a.id, b.id, c.id].sort();
      expect(await cases.withAllGrams(store.companyId, "live", ["q2", "q1"], 10)).toEqual(ids);
      expect(await cases.withAllGrams(store.companyId, "live", ["q1", "q2"], 2)).toEqual(ids.slice(0, 2));
      await store.store.transaction(() => cases.replaceGrams(store.companyId, "live", b.id, ["q3"]));
      expect(await cases.withAllGrams(store.companyId, "live", ["q1"], 10)).toEqual([a.id, c.id].sort());
      expect(await cases.withAllGrams(store.companyId, "live", ["q3"], 10)).toEqual([b.id]);
      await store.store.transaction(() => cases.replaceGrams(store.companyId, "live", b.id, []));
      expect(await cases.withAllGrams(store.companyId, "live", ["q3"], 10)).toEqual([]);
    });

    test("links: unknown rules, transfers and members are absent, not errors", async () => {
      const cases = store.repositories.cases;
      expect(await cases.rule(store.companyId, "test", "rul_missing")).toBeUndefined();
      expect(await cases.transfers(store.companyId, "test", ["trf_missing"])).toEqual([]);
      expect(await cases.transfers(store.companyId, "test", [])).toEqual([]);
      expect((await cases.members(store.companyId, ["mem_missing", null, "system"])).size).toBe(0);
    });
  });
}
