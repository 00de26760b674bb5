// The audit trees port (src/ports/audit-tree.ts), beyond what the audit suite (test/storage/contract/audit.ts) holds:
// one tree per company and environment, its leaves numbered from 0 in commit order, each leaf the RFC 6962 hash of its
// entry's encoding; roots, inclusion and consistency proofs exactly those RFC 6962 computes over the same leaves
// (src/domain/audit-tree.ts); checkpoints only of the tree asked, again under a new key with `all`, co-signed with
// `alsoSignWith`, each announced by an `audit.checkpoint` event of its tenant.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { newSigningKey } from "../../../src/adapters/crypto/audit-key.ts";
import { consistencyProof, EMPTY_ROOT, inclusionProof, leafHash, nodeHash, parseCheckpointText, rangeHash, verifyNote, type SubtreeHash } from "../../../src/domain/audit-tree.ts";
import { logIdOf, type EntryLeaf } from "../../../src/ports/audit-tree.ts";
import type { Environment } from "../../../src/domain/types.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const OTHER = "cmp_tree_contract_other";

/** The perfect subtree hashes over leaf hashes held in memory: what RFC 6962's functions read. */
function subtrees(leaves: Uint8Array[]): SubtreeHash {
  const get = (level: number, index: number): Uint8Array => (level === 0 ? leaves[index]! : nodeHash(get(level - 1, 2 * index), get(level - 1, 2 * index + 1)));
  return get;
}

export function auditTreeContract(engine: Engine): void {
  describe("audit trees", () => {
    let store: OpenedStore;
    /** Each tree's leaves as the port gave them, by log ID. */
    const leaves = new Map<string, EntryLeaf[]>();
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    const record = (companyId: string, environment: Environment, i: number) =>
      store.store.transaction(() => store.repositories.audit.record({ companyId, environment, actor: { type: "system" }, action: "tree.contract", entityType: "Thing", entityId: `t_${i}`, detail: { i } }, NOW + i));

    test("one tree per company and environment; leaves from 0 in commit order, each the leaf hash of its entry's encoding", async () => {
      const { audit, auditTrees: trees } = store.repositories;
      await trees.sealAll();
      const sizes = new Map((await trees.trees()).map((t) => [t.logId, t.size]));
      const tenants: [string, Environment][] = [
        [store.companyId, "test"],
        [store.companyId, "live"],
        [OTHER, "test"],
      ];
      const seqs = new Map<string, number[]>(tenants.map(([c, e]) => [logIdOf(c, e), []]));
      for (let i = 0; i < 23; i++) {
        const [c, e] = tenants[i % 3 === 2 ? 2 : i % 2]!;
        const id = await record(c, e, i);
        seqs.get(logIdOf(c, e))!.push((await audit.get(c, e, id))!.seq);
      }
      expect(await trees.sealAll()).toBe(23);
      for (const [logId, mine] of seqs) {
        const before = sizes.get(logId) ?? 0;
        const tree = (await trees.tree(logId))!;
        expect(tree.size).toBe(before + mine.length);
        const got = await Promise.all(mine.map((s) => trees.leafOf(s)));
        expect(got.map((l) => l!.leafIndex)).toEqual(mine.map((_, k) => before + k));
        for (const l of got) {
          expect(l!.logId).toBe(logId);
          expect([...l!.leafHash]).toEqual([...leafHash(l!.encoding)]);
        }
        // The whole tree's leaves, for the proofs below (a tree that held entries before: theirs first).
        if (before === 0) leaves.set(logId, got.map((l) => l!));
      }
      expect(leaves.size).toBeGreaterThan(0);
      expect((await trees.tree(logIdOf("cmp_none", "test")))).toBeUndefined();
    });

    test("roots, inclusion and consistency proofs are RFC 6962's over the same leaves, at every size", async () => {
      const trees = store.repositories.auditTrees;
      for (const [logId, ls] of leaves) {
        const get = subtrees(ls.map((l) => l.leafHash));
        expect([...(await trees.root(logId, 0))]).toEqual([...EMPTY_ROOT]);
        for (let size = 1; size <= ls.length; size++) {
          expect([...(await trees.root(logId, size))]).toEqual([...rangeHash(0, size, get)]);
          for (const m of [0, size - 1, size >> 1]) expect((await trees.inclusion(logId, m, size)).map((p) => [...p])).toEqual(inclusionProof(m, size, get).map((p) => [...p]));
          for (const from of [1, size >> 1, size - 1]) if (from >= 0) expect((await trees.consistency(logId, from, size)).map((p) => [...p])).toEqual(consistencyProof(from, size, get).map((p) => [...p]));
        }
      }
    });

    test("a checkpoint of the tree asked only; again under a new key with `all`; co-signed; announced to its tenant", async () => {
      const trees = store.repositories.auditTrees;
      const key = newSigningKey();
      await trees.adoptKey(key, NOW, "the contract");
      const only = logIdOf(OTHER, "test");
      const one = await trees.checkpoint(key, NOW + 1000, { only });
      expect(one.checkpoints.map((c) => c.logId)).toEqual([only]);
      const tree = (await trees.tree(only))!;
      const text = parseCheckpointText(one.checkpoints[0]!.note.slice(0, one.checkpoints[0]!.note.lastIndexOf("\n\n") + 1));
      expect(text).toEqual({ origin: tree.origin, size: tree.size, root: await trees.root(only, tree.size), time: "2026-03-01T10:00:01.000Z" });
      expect(verifyNote(one.checkpoints[0]!.note, tree.origin, [key.publicKey]).by.length).toBe(1);
      // The event: its tenant's, the checkpoint's view.
      const [seq] = one.eventSeqs;
      const [ev] = await store.repositories.events.tenantPage(OTHER, "test", seq! - 1, seq!, 1);
      expect(ev!.type).toBe("audit.checkpoint");
      expect(JSON.parse(ev!.dataJson)).toEqual(await trees.view(one.checkpoints[0]!));

      // The rest grew: signed now; the one asked before did not.
      const rest = await trees.checkpoint(key, NOW + 2000);
      expect(rest.checkpoints.map((c) => c.logId)).not.toContain(only);
      expect(rest.checkpoints.length).toBeGreaterThan(0);
      // Same key, nothing grew: `all` signs nothing again.
      expect((await trees.checkpoint(key, NOW + 3000, { all: true })).checkpoints).toEqual([]);
      // A new key: `all` signs every tree again at its size, co-signed with the old key.
      const next = newSigningKey();
      await store.store.transaction(() => trees.rotateTo(next, NOW + 4000));
      const again = await trees.checkpoint(next, NOW + 4000, { all: true, alsoSignWith: [key] });
      expect(again.checkpoints.map((c) => c.logId).sort()).toEqual((await trees.trees()).map((t) => t.logId).sort());
      const mine = again.checkpoints.find((c) => c.logId === only)!;
      expect(mine).toMatchObject({ treeSize: tree.size, keyId: next.keyId });
      expect(verifyNote(mine.note, tree.origin, [key.publicKey, next.publicKey]).by.length).toBe(2);
      expect((await trees.checkpoints(only)).map((c) => c.keyId)).toEqual([key.keyId, next.keyId]);
      expect(await trees.view(mine)).toMatchObject({ treeSize: tree.size, keyId: next.keyId, note: mine.note });
    });
  });
}
