// The provider stores port (src/ports/provider-stores.ts) and the VASP directory port (src/ports/vasps.ts), as every
// engine must keep them: provider_a's processed messages by their whole key, provider_b's claims (new once, in
// progress, reclaimable, a duplicate, the answer replayed, a release), the reads of unknown things (undefined or
// null, never a throw), and VASP search (each VASP once under its latest name, by lower-cased name then ID, keyset
// pages). The sweeps' due transfers over real transfers are held to by test/adapters/provider-sweeps.test.ts until
// transfers have a port of their own to create them through.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import type { Engine, OpenedStore } from "./engines.ts";
import { IN_PROGRESS_RELEASE_MS } from "../../../src/domain/provider_b/decisions.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const never = () => {
  throw new Error("nothing to open");
};

export function providerStoreContract(engine: Engine): void {
  describe("provider stores", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("provider_a: a message is processed only once recorded, by its whole key; recording twice is harmless", async () => {
      const a = store.repositories.providerA;
      const k = { companyId: store.companyId, environment: "test" as const, entity: "did:web:us.example", messageId: "msg_1", bodySha256: "ab".repeat(32) };
      expect(await a.processed(k)).toBe(false);
      await a.record(k, "ptx_1", null, NOW);
      await a.record(k, "ptx_1", null, NOW + 1);
      expect(await a.processed(k)).toBe(true);
      expect(await a.processed({ ...k, bodySha256: "cd".repeat(32) })).toBe(false);
      expect(await a.processed({ ...k, environment: "live" })).toBe(false);
      expect(await a.processed({ ...k, messageId: "msg_2" })).toBe(false);
    });

    test("unknown transfers, customers and addresses read as undefined or null; nothing is due in an empty store", async () => {
      const { providerA, providerD, providerE } = store.repositories;
      expect(await providerA.byProviderTransferId(store.companyId, "test", "ptx_unknown")).toBeUndefined();
      expect(await providerA.outgoingByRef(store.companyId, "test", "trf_unknown")).toBeUndefined();
      expect(await providerA.verifiedIdentity(never, store.companyId, "test", "cus_unknown")).toBeNull();
      expect(await providerA.originatorCustomerOf(store.companyId, "test", "trf_unknown")).toBeNull();
      expect(await providerE.originatorIdentity(never, store.companyId, "test", "trf_unknown")).toBeNull();
      expect(await providerD.knownBeneficiary(store.companyId, "test", "ethereum", "0x0000000000000000000000000000000000000001")).toBeNull();
      expect(await providerA.dueForPoll(NOW)).toEqual([]);
      expect(await providerA.dueForStall(NOW, 2)).toEqual([]);
      expect(await providerE.dueForPoll(NOW)).toEqual([]);
      expect(await providerE.dueForExpiry(NOW)).toEqual([]);
      expect(await providerD.dueForExpiry(NOW, 1)).toEqual([]);
    });

    test("provider_b: new once, in progress, a duplicate, reclaimable after five minutes, the answer replayed", async () => {
      const b = store.repositories.providerBRequests;
      const key = { companyId: store.companyId, environment: "test" as const, sender: "code:kimchi", transferId: "t-1" };
      expect(await b.get(key)).toBeUndefined();
      const first = await b.claim(key, "transfer", "h1", NOW);
      expect(first.decision).toBe("new");
      expect(first.request).toEqual({
        id: expect.stringMatching(/^pbr_[0-9a-z]{26}$/),
        ...key,
        kind: "transfer",
        contentHash: "h1",
        state: "in_progress",
        startedAt: "2026-03-01T10:00:00.000Z",
        completedAt: null,
        answerSealed: null,
        transferRef: null,
        createdAt: "2026-03-01T10:00:00.000Z",
        updatedAt: "2026-03-01T10:00:00.000Z",
      });
      expect(await b.get(key)).toEqual(first.request);
      expect((await b.claim(key, "transfer", "h1", NOW + 1000)).decision).toBe("in_progress");
      expect((await b.claim(key, "transfer", "h2", NOW + 1000)).decision).toBe("duplicate");
      const again = await b.claim(key, "transfer", "h1", NOW + IN_PROGRESS_RELEASE_MS);
      expect(again.decision).toBe("reclaim");
      expect(again.request.id).toBe(first.request.id);
      await b.finish(first.request.id, "sealed", "trf_1", NOW + IN_PROGRESS_RELEASE_MS + 1);
      const replay = await b.claim(key, "transfer", "h1", NOW + 3_600_000);
      expect(replay.decision).toBe("replay");
      expect(replay.request).toMatchObject({ state: "done", answerSealed: "sealed", transferRef: "trf_1", completedAt: "2026-03-01T10:05:00.001Z" });
      // Finishing again without a transfer keeps the one known.
      await b.finish(first.request.id, "sealed-2", null, NOW + 3_600_001);
      expect((await b.get(key))!.transferRef).toBe("trf_1");
    });

    test("provider_b: a release lets the next identical request process at once; a finished record is never released", async () => {
      const b = store.repositories.providerBRequests;
      const key = { companyId: store.companyId, environment: "live" as const, sender: "code:kimchi", transferId: "t-2" };
      const c = await b.claim(key, "transfer_data", "h", NOW);
      await b.release(c.request.id, NOW + 10);
      const next = await b.claim(key, "transfer_data", "h", NOW + 20);
      expect(next.decision).toBe("reclaim");
      expect(next.request.id).toBe(c.request.id);
      await b.finish(c.request.id, "a", null, NOW + 30);
      await b.release(c.request.id, NOW + 40);
      expect((await b.claim(key, "transfer_data", "h", NOW + 50)).decision).toBe("replay");
      // Records are per sender and environment.
      expect((await b.claim({ ...key, sender: "code:other" }, "transfer_data", "h", NOW)).decision).toBe("new");
      expect((await b.claim({ ...key, environment: "test" }, "transfer_data", "h", NOW)).decision).toBe("new");
    });

    test("provider_b: of claims racing in one process, exactly one is new", async () => {
      const b = store.repositories.providerBRequests;
      const key = { companyId: store.companyId, environment: "test" as const, sender: "code:race", transferId: "t-3" };
      const all = await Promise.all(Array.from({ length: 5 }, () => b.claim(key, "transfer", "h", NOW)));
      expect(all.map((c) => c.decision).sort()).toEqual(["in_progress", "in_progress", "in_progress", "in_progress", "new"]);
    });
  });

  describe("VASP directory", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
      const d = store.repositories.vasps;
      const c = store.companyId;
      await d.record(c, "test", "did:ethr:0xaaa1", "Old Exchange Name", "discovery", "2026-01-01T00:00:00.000Z");
      await d.record(c, "test", "did:ethr:0xaaa1", "Zeta Exchange", "discovery", "2026-02-01T00:00:00.000Z");
      // A later sighting without a name does not replace the latest name; a transfer's sighting marks the source.
      await d.record(c, "test", "did:ethr:0xaaa1", null, "transfer_history", "2026-03-15T00:00:00.000Z");
      await d.record(c, "test", "vasp-42", "  Alpha Custody  ", "discovery", "2026-03-01T00:00:00.000Z");
      await d.record(c, "test", "VASP9", null, "trisa_directory", "2026-03-02T00:00:00.000Z");
      for (let i = 0; i < 5; i++) await d.record(c, "test", `did:web:bulk${i}.example`, `Bulk Exchange ${i}`, "discovery", "2026-04-01T00:00:00.000Z");
      await d.record(c, "live", "did:web:live-only.example", "Exchange Live Only", "transfer_history", "2026-04-01T00:00:00.000Z");
    });
    afterAll(() => store.close());

    test("found by any past name or the ID, once, under the latest name; a transfer's sighting wins the source", async () => {
      const d = store.repositories.vasps;
      expect(await d.search(store.companyId, "test", "old exchange", null, 10)).toEqual([{ id: "did:ethr:0xaaa1", name: "Zeta Exchange", source: "transfer_history" }]);
      expect(await d.search(store.companyId, "test", "0xaaa1", null, 10)).toEqual([{ id: "did:ethr:0xaaa1", name: "Zeta Exchange", source: "transfer_history" }]);
      // Names are trimmed; a VASP never named is listed under its ID.
      expect(await d.search(store.companyId, "test", "alpha", null, 10)).toEqual([{ id: "vasp-42", name: "Alpha Custody", source: "discovery" }]);
      expect(await d.search(store.companyId, "test", "vasp9", null, 10)).toEqual([{ id: "VASP9", name: "VASP9", source: "trisa_directory" }]);
      expect(await d.search(store.companyId, "test", "nothing like it", null, 10)).toEqual([]);
    });

    test("sorted by lower-cased name then ID; pages continue strictly after the keyset position", async () => {
      const d = store.repositories.vasps;
      const all = await d.search(store.companyId, "test", "exchange", null, 50);
      expect(all.map((v) => v.name)).toEqual(["Bulk Exchange 0", "Bulk Exchange 1", "Bulk Exchange 2", "Bulk Exchange 3", "Bulk Exchange 4", "Zeta Exchange"]);
      const first = await d.search(store.companyId, "test", "exchange", null, 2);
      const last = first[first.length - 1]!;
      const second = await d.search(store.companyId, "test", "exchange", [last.name.toLowerCase(), last.id], 2);
      expect([...first, ...second]).toEqual(all.slice(0, 4));
    });

    test("by environment and company", async () => {
      const d = store.repositories.vasps;
      expect((await d.search(store.companyId, "test", "live only", null, 10)).length).toBe(0);
      expect(await d.search(store.companyId, "live", "live only", null, 10)).toEqual([{ id: "did:web:live-only.example", name: "Exchange Live Only", source: "transfer_history" }]);
      expect(await d.search("com_other", "test", "exchange", null, 10)).toEqual([]);
    });
  });
}
