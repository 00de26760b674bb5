// The customers port (src/ports/customers.ts) and the customer overview (src/ports/customer-overview.ts), as every
// engine must keep them: the records in and out as the callers hold them (sealed fields untouched, booleans, a
// version), environments apart, found by the blind name index the list's search uses, keyset pages newest first,
// an erasure that keeps the record and its key but no personal data or name tags, and the optimistic version check.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { blindGrams } from "../../../src/domain/blind-index.ts";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Environment } from "../../../src/domain/types.ts";
import { VersionConflict, type NewCustomer } from "../../../src/ports/customers.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const KEY = new Uint8Array(32).fill(7);

/** A customer as the customer actor builds one (sealed fields are opaque text to the store). */
export function newCustomer(companyId: string, env: Environment, at: number, o: Partial<NewCustomer> = {}): NewCustomer {
  const id = newId("cus", at);
  return {
    id,
    companyId,
    environment: env,
    externalId: `ext-${id}`,
    externalIdSearch: `ext-${id}`,
    nameSealed: `sealed-name-of-${id}`,
    metadataSealed: null,
    identitySealed: null,
    identityStatus: null,
    identityCountry: null,
    publicKey: "02ab",
    privateKeySealed: `sealed-key-of-${id}`,
    status: "active",
    deactivatedAt: null,
    deactivatedBy: null,
    deactivationReasonSealed: null,
    erasedAt: null,
    erasedBy: null,
    erasureReasonSealed: null,
    createdAt: iso(at),
    updatedAt: iso(at),
    ...o,
  };
}

export function customerContract(engine: Engine): void {
  describe("customers", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("an inserted customer reads back as the same record, by ID and by external ID; unknown or the other environment → undefined", async () => {
      const r = store.repositories.customers;
      const given = newCustomer(store.companyId, "test", NOW, { identitySealed: "sealed-persons", identityStatus: "verified", identityCountry: "DE", metadataSealed: "sealed-meta" });
      await r.insert(given);
      const got = await r.get(store.companyId, "test", given.id);
      expect(got).toEqual({ ...given, legalHold: false, version: 1 });
      expect(await r.byExternalId(store.companyId, "test", given.externalId!)).toEqual(got);
      expect(await r.get(store.companyId, "live", given.id)).toBeUndefined();
      expect(await r.get("com_other", "test", given.id)).toBeUndefined();
      expect(await r.get(store.companyId, "test", "cus_unknown")).toBeUndefined();
      expect(await r.byExternalId(store.companyId, "live", given.externalId!)).toBeUndefined();
      expect(await r.holdState(store.companyId, given.id)).toEqual({ id: given.id, environment: "test", legalHold: false, status: "active" });
      expect(await r.holdState(store.companyId, "cus_unknown")).toBeUndefined();
    });

    test("a change at the current version is written and bumps the version; a stale version is refused with VersionConflict", async () => {
      const r = store.repositories.customers;
      const given = newCustomer(store.companyId, "test", NOW + 1);
      await r.insert(given);
      await r.update(given.id, 1, { status: "deactivated", deactivatedAt: iso(NOW + 5), deactivatedBy: "mem_1", deactivationReasonSealed: "sealed-reason", updatedAt: iso(NOW + 5) });
      const got = (await r.get(store.companyId, "test", given.id))!;
      expect(got).toMatchObject({ status: "deactivated", deactivatedAt: iso(NOW + 5), deactivatedBy: "mem_1", deactivationReasonSealed: "sealed-reason", updatedAt: iso(NOW + 5), version: 2 });
      expect(got.nameSealed).toBe(given.nameSealed);
      await expect(r.update(given.id, 1, { status: "active" })).rejects.toBeInstanceOf(VersionConflict);
      expect((await r.get(store.companyId, "test", given.id))!.status).toBe("deactivated");
      await r.setLegalHold(given.id, true, iso(NOW + 6));
      expect(await r.get(store.companyId, "test", given.id)).toMatchObject({ legalHold: true, version: 3, updatedAt: iso(NOW + 6) });
      expect(await r.holdState(store.companyId, given.id)).toEqual({ id: given.id, environment: "test", legalHold: true, status: "deactivated" });
      await r.setLegalHold(given.id, false, iso(NOW + 7));
      expect((await r.get(store.companyId, "test", given.id))!.legalHold).toBe(false);
    });

    test("the name index finds a customer by the tags of any part of its name, in its environment only; its sealed name comes back as stored", async () => {
      const r = store.repositories.customers;
      const jane = newCustomer(store.companyId, "test", NOW + 10, { nameSealed: "sealed:Jane van Dyke" });
      const john = newCustomer(store.companyId, "test", NOW + 11, { nameSealed: "sealed:John Smith" });
      const live = newCustomer(store.companyId, "live", NOW + 12, { nameSealed: "sealed:Jane van Dyke" });
      for (const [c, name] of [[jane, "Jane van Dyke"], [john, "John Smith"], [live, "Jane van Dyke"]] as const) {
        await r.insert(c);
        await r.replaceNameGrams(store.companyId, c.environment, c.id, blindGrams(KEY, name));
      }
      // As the list's search asks: the tags of the search text, at most a cap of candidates, then their sealed names.
      const ids = await r.withAllGrams(store.companyId, "test", blindGrams(KEY, "van dy"), 50);
      expect(ids).toEqual([jane.id]);
      expect(await r.sealedNames(ids)).toEqual([{ id: jane.id, nameSealed: "sealed:Jane van Dyke" }]);
      expect(await r.withAllGrams(store.companyId, "test", blindGrams(KEY, "smith"), 50)).toEqual([john.id]);
      expect(await r.withAllGrams(store.companyId, "test", blindGrams(KEY, "nobody"), 50)).toEqual([]);
      expect(await r.withAllGrams(store.companyId, "test", [], 50)).toEqual([]);
      expect(await r.withAllGrams(store.companyId, "live", blindGrams(KEY, "van dy"), 50)).toEqual([live.id]);
      expect(await r.sealedNames([])).toEqual([]);
      // Under three characters there are no tags: the environment's sealed names are scanned instead.
      const all = await r.allSealedNames(store.companyId, "test");
      expect(all).toContainEqual({ id: jane.id, nameSealed: "sealed:Jane van Dyke" });
      expect(all.map((x) => x.id)).not.toContain(live.id);
      // Replacing the tags (a new name) drops the old ones.
      await r.replaceNameGrams(store.companyId, "test", john.id, blindGrams(KEY, "Jonathan Smyth"));
      expect(await r.withAllGrams(store.companyId, "test", blindGrams(KEY, "smith"), 50)).toEqual([]);
      expect(await r.withAllGrams(store.companyId, "test", blindGrams(KEY, "smyth"), 50)).toEqual([john.id]);
    });

    test("pages are newest first and continue after the last (createdAt, id); counts and filters agree; wallets are counted", async () => {
      const r = store.repositories.customers;
      const env = "live";
      const base = NOW + 100_000;
      const made = [0, 1, 2].map((i) => newCustomer(store.companyId, env, base + i, { externalId: `paged-${i}`, externalIdSearch: `paged-${i}` }));
      for (const c of made) await r.insert(c);
      const off = newCustomer(store.companyId, env, base + 3, { status: "deactivated", externalId: "paged-off", externalIdSearch: "paged-off" });
      await r.insert(off);
      await store.repositories.wallets.insert({ id: newId("wal", base), companyId: store.companyId, environment: env, customerId: made[1].id, address: "0xpaged", network: "ethereum", label: null, verified: false, verifiedAt: null, createdAt: iso(base), updatedAt: iso(base) });
      const f = { includeDeactivated: false, externalIdContains: "paged-" };
      const first = await r.page(store.companyId, env, f, null, 2);
      expect(first.map((c) => c.id)).toEqual([made[2].id, made[1].id]);
      expect(first[1]).toEqual({ ...made[1], legalHold: false, version: 1, walletCount: 1 });
      const last = first[first.length - 1];
      const next = await r.page(store.companyId, env, f, [last.createdAt, last.id], 2);
      expect(next.map((c) => c.id)).toEqual([made[0].id]);
      expect(next[0].walletCount).toBe(0);
      expect(await r.count(store.companyId, env, f)).toBe(3);
      const withOff = await r.page(store.companyId, env, { ...f, includeDeactivated: true }, null, 10);
      expect(withOff.map((c) => c.id)).toEqual([off.id, made[2].id, made[1].id, made[0].id]);
      expect(await r.count(store.companyId, env, { ...f, includeDeactivated: true })).toBe(4);
      // A short search text (no trigram) and a name match found by the index both filter the list.
      expect((await r.page(store.companyId, env, { includeDeactivated: false, externalIdContains: "-1" }, null, 10)).map((c) => c.id)).toContain(made[1].id);
      expect((await r.page(store.companyId, env, { includeDeactivated: false, externalIdContains: "zzzzzz", nameMatchIds: [made[0].id] }, null, 10)).map((c) => c.id)).toEqual([made[0].id]);
      // Unfiltered totals are kept by the store: every active customer of the environment, or every one.
      const active = await r.count(store.companyId, env, { includeDeactivated: false });
      expect(await r.count(store.companyId, env, { includeDeactivated: true })).toBe(active + 1);
      expect(await r.walletCount(store.companyId, env, made[1].id)).toBe(1);
      expect(await r.walletCount(store.companyId, "test", made[1].id)).toBe(0);
    });

    test("an erasure as the customer actor writes it keeps the record, its key and its wallets, and leaves no personal data or name tags", async () => {
      const r = store.repositories.customers;
      const c = newCustomer(store.companyId, "test", NOW + 200, { nameSealed: "sealed:Erik Erased", identitySealed: "sealed-persons", identityStatus: "verified", metadataSealed: "sealed-meta" });
      await r.insert(c);
      await r.replaceNameGrams(store.companyId, "test", c.id, blindGrams(KEY, "Erik Erased"));
      const at = iso(NOW + 300);
      await store.store.transaction(async () => {
        await r.update(c.id, 1, {
          status: "erased",
          externalId: null,
          externalIdSearch: null,
          nameSealed: null,
          metadataSealed: null,
          identitySealed: null,
          identityStatus: null,
          identityCountry: null,
          deactivationReasonSealed: null,
          deactivatedAt: at,
          deactivatedBy: "mem_1",
          erasedAt: at,
          erasedBy: "mem_1",
          erasureReasonSealed: "sealed-erasure-reason",
          updatedAt: at,
        });
        await r.replaceNameGrams(store.companyId, "test", c.id, []);
      });
      const got = (await r.get(store.companyId, "test", c.id))!;
      expect(got).toEqual({
        ...c,
        status: "erased",
        externalId: null,
        externalIdSearch: null,
        nameSealed: null,
        metadataSealed: null,
        identitySealed: null,
        identityStatus: null,
        deactivatedAt: at,
        deactivatedBy: "mem_1",
        erasedAt: at,
        erasedBy: "mem_1",
        erasureReasonSealed: "sealed-erasure-reason",
        updatedAt: at,
        legalHold: false,
        version: 2,
      });
      expect(got.publicKey).toBe(c.publicKey);
      expect(got.privateKeySealed).toBe(c.privateKeySealed);
      expect(await r.withAllGrams(store.companyId, "test", blindGrams(KEY, "erik"), 50)).toEqual([]);
      expect((await r.allSealedNames(store.companyId, "test")).map((x) => x.id)).not.toContain(c.id);
      expect(await r.sealedNames([c.id])).toEqual([{ id: c.id, nameSealed: null }]);
      expect(await r.byExternalId(store.companyId, "test", c.externalId!)).toBeUndefined();
      expect((await r.page(store.companyId, "test", { includeDeactivated: false }, null, 500)).map((x) => x.id)).not.toContain(c.id);
      expect((await r.page(store.companyId, "test", { includeDeactivated: true }, null, 500)).map((x) => x.id)).toContain(c.id);
    });

    test("the overview reads the customer, its wallets newest first with verified as a boolean, and none of the other environment's", async () => {
      const o = store.repositories.customerOverview;
      const c = newCustomer(store.companyId, "test", NOW + 400, { identityStatus: "unverified", identityCountry: "FR" });
      await store.repositories.customers.insert(c);
      const wallet = (i: number, verified: boolean) => ({ id: newId("wal", NOW + 400 + i), companyId: store.companyId, environment: "test" as const, customerId: c.id, address: `0xoverview${i}`, network: "ethereum", label: i === 1 ? "cold" : null, verified, verifiedAt: verified ? iso(NOW + 401) : null, createdAt: iso(NOW + 400 + i), updatedAt: iso(NOW + 400 + i) });
      const w1 = wallet(1, false);
      const w2 = wallet(2, true);
      await store.repositories.wallets.insert(w1);
      await store.repositories.wallets.insert(w2);
      expect(await o.customer(store.companyId, "test", c.id)).toEqual({
        id: c.id,
        externalId: c.externalId,
        nameSealed: c.nameSealed,
        identityStatus: "unverified",
        identityCountry: "FR",
        deactivatedAt: null,
        erasedAt: null,
        createdAt: c.createdAt,
      });
      expect(await o.customer(store.companyId, "live", c.id)).toBeUndefined();
      expect(await o.wallets(store.companyId, "test", c.id)).toEqual([
        { id: w2.id, network: "ethereum", address: w2.address, label: null, verified: true, verifiedAt: iso(NOW + 401), createdAt: w2.createdAt },
        { id: w1.id, network: "ethereum", address: w1.address, label: "cold", verified: false, verifiedAt: null, createdAt: w1.createdAt },
      ]);
      expect(await o.wallets(store.companyId, "live", c.id)).toEqual([]);
      expect(await o.transfers(store.companyId, "test", c.id, 50)).toEqual([]);
      expect(await o.cases(store.companyId, "test", [])).toEqual([]);
      expect(await o.cases(store.companyId, "test", ["txn_none"])).toEqual([]);
    });
  });
}
