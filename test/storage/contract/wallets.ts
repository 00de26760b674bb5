// The wallets port (src/ports/wallets.ts), as every engine must keep it: the records in and out (verified a
// boolean), found by ID and address in their environment only, changed and removed, keyset pages newest first with
// the list's filters and search, and counts that agree.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Environment } from "../../../src/domain/types.ts";
import type { Wallet } from "../../../src/ports/wallets.ts";
import { newCustomer } from "./customers.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

export function newWallet(companyId: string, env: Environment, customerId: string, at: number, o: Partial<Wallet> = {}): Wallet {
  const id = newId("wal", at);
  return { id, companyId, environment: env, customerId, address: `0x${id.slice(4)}`, network: "ethereum", label: null, verified: false, verifiedAt: null, createdAt: iso(at), updatedAt: iso(at), ...o };
}

export function walletContract(engine: Engine): void {
  describe("wallets", () => {
    let store: OpenedStore;
    let customerId: string;
    let otherId: string;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
      const c = newCustomer(store.companyId, "test", NOW);
      const other = newCustomer(store.companyId, "test", NOW + 1);
      await store.repositories.customers.insert(c);
      await store.repositories.customers.insert(other);
      customerId = c.id;
      otherId = other.id;
    });
    afterAll(() => store.close());

    test("an inserted wallet reads back as the same record by ID and by address; unknown or the other environment → undefined", async () => {
      const r = store.repositories.wallets;
      const given = newWallet(store.companyId, "test", customerId, NOW + 10, { label: "hot", verified: true, verifiedAt: iso(NOW + 11) });
      await r.insert(given);
      expect(await r.get(store.companyId, "test", given.id)).toEqual(given);
      expect((await r.get(store.companyId, "test", given.id))!.verified).toBe(true);
      expect(await r.byAddress(store.companyId, "test", given.address)).toEqual(given);
      expect(await r.byAddresses(store.companyId, "test", ["0xnone", given.address])).toEqual([given]);
      expect(await r.byAddresses(store.companyId, "test", [])).toEqual([]);
      expect(await r.get(store.companyId, "live", given.id)).toBeUndefined();
      expect(await r.get("com_other", "test", given.id)).toBeUndefined();
      expect(await r.byAddress(store.companyId, "live", given.address)).toBeUndefined();
      expect(await r.get(store.companyId, "test", "wal_unknown")).toBeUndefined();
    });

    test("a change writes only its fields; a removed wallet is gone", async () => {
      const r = store.repositories.wallets;
      const given = newWallet(store.companyId, "test", customerId, NOW + 20);
      await r.insert(given);
      await r.update(given.id, { label: "renamed", network: "base", updatedAt: iso(NOW + 21) });
      expect(await r.get(store.companyId, "test", given.id)).toEqual({ ...given, label: "renamed", network: "base", updatedAt: iso(NOW + 21) });
      await r.update(given.id, { label: null, updatedAt: iso(NOW + 22) });
      expect((await r.get(store.companyId, "test", given.id))!.label).toBeNull();
      await r.delete(given.id);
      expect(await r.get(store.companyId, "test", given.id)).toBeUndefined();
      expect(await r.byAddress(store.companyId, "test", given.address)).toBeUndefined();
    });

    test("pages are newest first and continue after the last (createdAt, id); filters, search and counts agree", async () => {
      const r = store.repositories.wallets;
      const base = NOW + 100_000;
      const mine = [0, 1, 2].map((i) => newWallet(store.companyId, "test", customerId, base + i, { network: "polygon", label: i === 1 ? "Savings Vault" : null }));
      const theirs = newWallet(store.companyId, "test", otherId, base + 3, { network: "polygon", verified: true, verifiedAt: iso(base) });
      for (const w of [...mine, theirs]) await r.insert(w);
      const f = { network: "polygon" };
      const first = await r.page(store.companyId, "test", f, null, 3);
      expect(first.map((w) => w.id)).toEqual([theirs.id, mine[2].id, mine[1].id]);
      const last = first[first.length - 1];
      expect((await r.page(store.companyId, "test", f, [last.createdAt, last.id], 3)).map((w) => w.id)).toEqual([mine[0].id]);
      expect(await r.count(store.companyId, "test", f)).toBe(4);
      expect((await r.page(store.companyId, "test", { ...f, customerId }, null, 10)).map((w) => w.id)).toEqual([mine[2].id, mine[1].id, mine[0].id]);
      expect((await r.page(store.companyId, "test", { ...f, verified: true }, null, 10)).map((w) => w.id)).toEqual([theirs.id]);
      expect(await r.count(store.companyId, "test", { ...f, verified: false })).toBe(3);
      // The search finds text in the label (case folded) and the address, with three characters or more and with fewer.
      expect((await r.page(store.companyId, "test", { search: "savings" }, null, 10)).map((w) => w.id)).toEqual([mine[1].id]);
      expect((await r.page(store.companyId, "test", { search: mine[0].address.slice(2, 14) }, null, 10)).map((w) => w.id)).toEqual([mine[0].id]);
      expect(await r.count(store.companyId, "test", { search: "savings" })).toBe(1);
      expect(await r.page(store.companyId, "live", f, null, 10)).toEqual([]);
      // The unfiltered total is kept by the store.
      const all = await r.page(store.companyId, "test", {}, null, 500);
      expect(await r.count(store.companyId, "test", {})).toBe(all.length);
    });
  });
}
