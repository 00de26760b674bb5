// The events port (src/ports/events.ts), as every engine must keep it: the shared sequence in commit order, the tail
// of every tenant and one tenant's pages between two seqs, heads without data, the entities by seq, and retention's
// edges (a whole prefix pruned, the last seq handed out still counted, a resume point before the prune known).
// Events are written the one way the service writes them: the runtime store's insertEvent (src/ports/runtime-store.ts).
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Environment } from "../../../src/domain/types.ts";
import type { RuntimeStore } from "../../../src/ports/runtime-store.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const OTHER = "cmp_contract_events_other";

/** The engine's runtime store (with options: another one over the same engine). */
const runtimeStoreOf = (store: OpenedStore, o?: { compactEvents?: boolean }): RuntimeStore => (o ? store.runtimeStore(o) : store.runtime);

export function eventContract(engine: Engine): void {
  describe("events", () => {
    let store: OpenedStore;
    let runtime: RuntimeStore;
    let n = 0;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
      runtime = runtimeStoreOf(store);
    });
    afterAll(() => store.close());

    /** One event committed, as the runtime commits it; its seq. */
    const emit = (o: { companyId?: string; env?: Environment; type?: string; entityType?: string; entityId?: string; data?: unknown; at?: number; compact?: boolean } = {}) =>
      store.store.transaction(() =>
        (o.compact ? runtimeStoreOf(store, { compactEvents: true }) : runtime).insertEvent(
          newId("evt", NOW + n++),
          {
            companyId: o.companyId ?? store.companyId,
            environment: o.env ?? "test",
            type: o.type ?? "transfer.updated",
            entityType: o.entityType ?? "transfer",
            entityId: o.entityId ?? `trf_${n}`,
            data: o.data ?? { n },
          },
          iso(o.at ?? NOW),
        ),
      );

    test("a fresh store: newest seq 0, nothing pruned, an empty tail", async () => {
      const e = store.repositories.events;
      expect(await e.newestSeq()).toBe(0);
      expect(await e.prunedThrough()).toBe(0);
      expect(await e.after(0, 10)).toEqual([]);
      expect(await e.headsAfter(0, 10)).toEqual([]);
    });

    test("seqs ascend in commit order across tenants; the tail reads them back as records, data as its JSON text", async () => {
      const e = store.repositories.events;
      const before = await e.newestSeq();
      const a = await emit({ type: "transfer.created", data: { id: "trf_a", amount: "1.50" } });
      const b = await emit({ companyId: OTHER, env: "live", type: "case.created", entityType: "case", entityId: "cas_b", data: { id: "cas_b" } });
      const c = await emit({ env: "live", data: { nested: { list: [1, 2] } } });
      expect(a).toBeGreaterThan(before);
      expect(b).toBeGreaterThan(a);
      expect(c).toBeGreaterThan(b);
      expect(await e.newestSeq()).toBe(c);
      const tail = await e.after(before, 10);
      expect(tail.map((x) => x.seq)).toEqual([a, b, c]);
      expect(tail[0]).toEqual({ seq: a, id: tail[0].id, companyId: store.companyId, environment: "test", type: "transfer.created", dataJson: tail[0].dataJson, createdAt: iso(NOW) });
      expect(tail[0].id).toMatch(/^evt_/);
      expect(JSON.parse(tail[0].dataJson)).toEqual({ id: "trf_a", amount: "1.50" });
      expect(tail[1]).toMatchObject({ companyId: OTHER, environment: "live", type: "case.created" });
      expect(JSON.parse(tail[2].dataJson)).toEqual({ nested: { list: [1, 2] } });
      // Heads: the same events, in the same order, without their data.
      const heads = await e.headsAfter(before, 10);
      expect(heads).toEqual(tail.map(({ dataJson: _, ...h }) => h));
      // Paging: a limit, then from the last seq given.
      expect((await e.after(before, 2)).map((x) => x.seq)).toEqual([a, b]);
      expect((await e.after(b, 2)).map((x) => x.seq)).toEqual([c]);
      expect(await e.after(c, 2)).toEqual([]);
    });

    test("data written compactly reads back as the same JSON text", async () => {
      const e = store.repositories.events;
      const data = { id: "trf_compact", state: "completed", amount: "0.000123", flags: [true, false, null] };
      const seq = await emit({ data, compact: true });
      const [got] = await e.after(seq - 1, 1);
      expect(got.seq).toBe(seq);
      expect(typeof got.dataJson).toBe("string");
      expect(JSON.parse(got.dataJson)).toEqual(data);
    });

    test("one tenant's page: its company and environment only, after < seq <= upTo, in seq order, at most limit", async () => {
      const e = store.repositories.events;
      const from = await e.newestSeq();
      const mine = [await emit({ env: "test" }), await emit({ env: "live" }), await emit({ env: "test" }), await emit({ companyId: OTHER, env: "test" }), await emit({ env: "test" })];
      const [t1, , t2, , t3] = mine;
      const page = await e.tenantPage(store.companyId, "test", from, t3, 10);
      expect(page.map((x) => x.seq)).toEqual([t1, t2, t3]);
      expect(Object.keys(page[0]).sort()).toEqual(["createdAt", "dataJson", "seq", "type"]);
      expect((await e.tenantPage(store.companyId, "test", from, t2, 10)).map((x) => x.seq)).toEqual([t1, t2]);
      expect((await e.tenantPage(store.companyId, "test", t1, t3, 1)).map((x) => x.seq)).toEqual([t2]);
      expect((await e.tenantPage(OTHER, "test", from, t3, 10)).map((x) => x.seq)).toEqual([mine[3]]);
      expect(await e.tenantPage(store.companyId, "test", t3, t3, 10)).toEqual([]);
    });

    test("entities by seq: this tenant's only; none asked, none answered; an unknown seq is absent", async () => {
      const e = store.repositories.events;
      const t = await emit({ entityType: "transfer", entityId: "trf_entity" });
      const c = await emit({ type: "case.created", entityType: "case", entityId: "cas_entity" });
      const live = await emit({ env: "live", entityType: "transfer", entityId: "trf_live" });
      const got = await e.entities(store.companyId, "test", [t, c, live, 999_999]);
      expect([...got.entries()].sort((x, y) => x[0] - y[0])).toEqual([
        [t, { entityType: "transfer", entityId: "trf_entity" }],
        [c, { entityType: "case", entityId: "cas_entity" }],
      ]);
      expect((await e.entities(store.companyId, "test", [])).size).toBe(0);
      expect((await e.entities(OTHER, "test", [t])).size).toBe(0);
    });
  });

  describe("events retention", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("a prefix: old events up to the first young one, within upTo and limit; pruning records the point; the newest seq survives an empty log", async () => {
      const e = store.repositories.events;
      const runtime = runtimeStoreOf(store);
      const put = (at: number) =>
        store.store.transaction(() =>
          runtime.insertEvent(newId("evt", at), { companyId: store.companyId, environment: "test", type: "transfer.updated", entityType: "transfer", entityId: "trf_r", data: {} }, iso(at)),
        );
      const cutoff = iso(NOW);
      const old1 = await put(NOW - 3000);
      const old2 = await put(NOW - 2000);
      const young = await put(NOW);
      const oldAfterYoung = await put(NOW - 1000);
      // The prefix stops at the first event committed at or after the cutoff, whatever follows.
      expect(await e.prunableThrough(0, young + 10, cutoff, 100)).toBe(old2);
      // Bounded by upTo (the dispatcher's position) and by the limit.
      expect(await e.prunableThrough(0, old1, cutoff, 100)).toBe(old1);
      expect(await e.prunableThrough(0, young + 10, cutoff, 1)).toBe(old1);
      // Nothing to prune: `from` itself.
      expect(await e.prunableThrough(old2, young + 10, cutoff, 100)).toBe(old2);
      expect(await e.pruneThrough(old2, old2)).toBe(0);
      expect(await e.prunedThrough()).toBe(0);

      expect(await store.store.transaction(() => e.pruneThrough(0, old2))).toBe(2);
      expect(await e.prunedThrough()).toBe(old2);
      expect((await e.after(0, 10)).map((x) => x.seq)).toEqual([young, oldAfterYoung]);
      // Everything pruned: the last seq handed out still counts, and the next event continues after it.
      expect(await store.store.transaction(() => e.pruneThrough(old2, oldAfterYoung))).toBe(2);
      expect(await e.prunedThrough()).toBe(oldAfterYoung);
      expect(await e.after(0, 10)).toEqual([]);
      expect(await e.newestSeq()).toBe(oldAfterYoung);
      expect(await put(NOW)).toBeGreaterThan(oldAfterYoung);
    });
  });
}
