// The audit ports (src/ports/audit.ts, src/ports/audit-tree.ts), as every engine must keep them: entries recorded in
// a unit of work read back as the same record (parsed detail, the actor's fields), pages newest first by seq with
// filters and counts, other companies and environments apart; sealing gives leaves in commit order, a checkpoint
// signs each grown tree once, proofs and the signing keys answer as records.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { newSigningKey } from "../../../src/adapters/crypto/audit-key.ts";
import { AuditTreeError, logIdOf } from "../../../src/ports/audit-tree.ts";
import type { AuditEntryInput } from "../../../src/ports/audit.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

export function auditContract(engine: Engine): void {
  describe("audit log", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    const entry = (o: Partial<AuditEntryInput> = {}): AuditEntryInput => ({
      companyId: store.companyId,
      environment: "test",
      actor: { type: "member", memberId: "mem_contract", apiKeyId: "key_contract" },
      action: "thing.created",
      entityType: "Thing",
      entityId: "thing_1",
      detail: { n: 1, nested: { ok: true }, list: ["a"] },
      ...o,
    });

    test("a recorded entry reads back as the same record: the actor's fields (absent ones null), the detail parsed, the time", async () => {
      const a = store.repositories.audit;
      const id = await store.store.transaction(() => a.record(entry({ actor: { type: "member", memberId: "mem_contract", sessionId: "ses_1" } }), NOW));
      const got = (await a.get(store.companyId, "test", id))!;
      expect(got).toMatchObject({
        id,
        companyId: store.companyId,
        environment: "test",
        actor: { type: "member", memberId: "mem_contract", apiKeyId: null, sessionId: "ses_1" },
        action: "thing.created",
        entityType: "Thing",
        entityId: "thing_1",
        detail: { n: 1, nested: { ok: true }, list: ["a"] },
        createdAt: "2026-03-01T10:00:00.000Z",
      });
      expect(typeof got.seq).toBe("number");
      expect(await a.get(store.companyId, "live", id)).toBeUndefined();
      expect(await a.get("cmp_other", "test", id)).toBeUndefined();
      expect(await a.get(store.companyId, "test", "aud_missing")).toBeUndefined();
    });

    test("an entry without detail reads back with an empty one", async () => {
      const a = store.repositories.audit;
      const id = await a.record(entry({ detail: undefined, actor: { type: "system" } }), NOW);
      expect((await a.get(store.companyId, "test", id))!).toMatchObject({ detail: {}, actor: { type: "system", memberId: null, apiKeyId: null, sessionId: null } });
    });

    test("a rolled-back unit of work leaves no entry", async () => {
      const a = store.repositories.audit;
      let id = "";
      await expect(
        store.store.transaction(async () => {
          id = await a.record(entry({ entityId: "thing_rolled_back" }), NOW);
          throw new Error("undo");
        }),
      ).rejects.toThrow("undo");
      expect(await a.get(store.companyId, "test", id)).toBeUndefined();
      expect(await a.count(store.companyId, "test", { entityId: "thing_rolled_back" })).toBe(0);
    });

    test("pages are newest first by seq, strictly before the keyset; filters and counts agree", async () => {
      const a = store.repositories.audit;
      const ids: string[] = [];
      await store.store.transaction(async () => {
        for (let i = 0; i < 5; i++) ids.push(await a.record(entry({ entityType: "Paged", entityId: `p_${i % 2}`, action: i % 2 ? "paged.odd" : "paged.even" }), NOW + i));
      });
      const all = await a.page(store.companyId, "test", { entityType: "Paged" }, null, 10);
      expect(all.map((e) => e.id)).toEqual([...ids].reverse());
      const seqs = all.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => y - x));
      const first = await a.page(store.companyId, "test", { entityType: "Paged" }, null, 2);
      const rest = await a.page(store.companyId, "test", { entityType: "Paged" }, first[1]!.seq, 10);
      expect([...first, ...rest].map((e) => e.id)).toEqual(all.map((e) => e.id));
      expect(await a.count(store.companyId, "test", { entityType: "Paged" })).toBe(5);
      expect(await a.count(store.companyId, "test", { entityType: "Paged", action: "paged.odd" })).toBe(2);
      expect((await a.page(store.companyId, "test", { entityType: "Paged", entityId: "p_0" }, null, 10)).map((e) => e.entityId)).toEqual(["p_0", "p_0", "p_0"]);
      expect(await a.count(store.companyId, "live", { entityType: "Paged" })).toBe(0);
      expect(await a.count(store.companyId, "test", { entityType: "Paged", memberId: "mem_nobody" })).toBe(0);
    });
  });

  describe("audit trees", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("sealing gives every committed entry its leaf in commit order; a checkpoint signs each grown tree once; proofs answer", async () => {
      const { audit, auditTrees: trees } = store.repositories;
      const key = newSigningKey();
      await trees.adoptKey(key, NOW, "the contract");
      expect((await trees.activeKey())!).toMatchObject({ keyId: key.keyId, retiredAt: null });
      await trees.adoptKey(key, NOW, "the contract");
      await expect(trees.adoptKey(newSigningKey(), NOW, "another file")).rejects.toBeInstanceOf(AuditTreeError);
      const seqs: number[] = [];
      for (let i = 0; i < 20; i++) {
        const id = await audit.record({ companyId: store.companyId, environment: "live", actor: { type: "system" }, action: "tree.entry", entityType: "Thing", entityId: `t_${i}` }, NOW + i);
        seqs.push((await audit.get(store.companyId, "live", id))!.seq);
      }
      expect(await trees.sealAll()).toBeGreaterThanOrEqual(20);
      expect(await trees.seal()).toBe(0);
      const logId = logIdOf(store.companyId, "live");
      const tree = (await trees.tree(logId))!;
      expect(tree).toMatchObject({ logId, companyId: store.companyId, environment: "live" });
      expect(tree.size).toBeGreaterThanOrEqual(20);
      expect((await trees.trees()).map((t) => t.logId)).toContain(logId);
      const leaves = await Promise.all(seqs.map((s) => trees.leafOf(s)));
      const indexes = leaves.map((l) => l!.leafIndex);
      expect(indexes).toEqual([...indexes].sort((x, y) => x - y));
      expect(new Set(indexes).size).toBe(20);
      expect(leaves[0]!.encoding.length).toBeGreaterThan(0);
      expect(await trees.leafOf(Number.MAX_SAFE_INTEGER)).toBeUndefined();

      const { checkpoints, eventSeqs } = await trees.checkpoint(key, NOW + 1000);
      const mine = checkpoints.find((c) => c.logId === logId)!;
      expect(mine).toMatchObject({ logId, treeSize: tree.size, keyId: key.keyId, createdAt: "2026-03-01T10:00:01.000Z" });
      expect(eventSeqs.length).toBe(checkpoints.length);
      // Nothing grew: no second checkpoint.
      expect((await trees.checkpoint(key, NOW + 2000)).checkpoints).toEqual([]);
      expect(await trees.latest(logId)).toEqual(mine);
      expect(await trees.checkpointAt(logId, tree.size)).toEqual(mine);
      expect(await trees.checkpointAt(logId, tree.size + 1)).toBeUndefined();
      expect(await trees.checkpoints(logId)).toEqual([mine]);
      const view = await trees.view(mine);
      expect(view).toMatchObject({ origin: tree.origin, treeSize: tree.size, keyId: key.keyId, note: mine.note });
      expect(view.rootHash).toBe(Buffer.from(await trees.root(logId, tree.size)).toString("base64"));
      const proof = await trees.inclusion(logId, indexes[3]!, tree.size);
      expect(proof.length).toBeGreaterThan(0);
      expect(await trees.consistency(logId, tree.size, tree.size)).toEqual([]);
    });

    test("a rotation retires the active key and lists the new one; the keys read oldest first", async () => {
      const trees = store.repositories.auditTrees;
      const before = (await trees.activeKey())!;
      const next = newSigningKey();
      await store.store.transaction(() => trees.rotateTo(next, NOW + 5000));
      const keys = await trees.keys();
      expect(keys.map((k) => k.keyId)).toEqual([before.keyId, next.keyId]);
      expect(keys[0]!.retiredAt).toBe("2026-03-01T10:00:05.000Z");
      expect((await trees.activeKey())!.keyId).toBe(next.keyId);
      expect(typeof keys[1]!.publicKey).toBe("string");
    });
  });
}
