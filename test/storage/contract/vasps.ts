// The VASP directory port (src/ports/vasps.ts), as every engine must keep it: a VASP seen under names and sources,
// found by any part of its ID or of any name it was ever seen under (in any case), answered once under its latest
// real name (its ID only while no name was seen), its source `transfer_history` once a transfer named it, sorted by
// lower-cased name then ID with a keyset and a limit, per company and environment.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const at = (s: number) => new Date(NOW + s * 1000).toISOString();

export function vaspContract(engine: Engine): void {
  describe("vasps", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    const record = (vaspId: string, name: string | null, source: string, s: number, env: "test" | "live" = "test", companyId = store.companyId) =>
      store.store.transaction(() => store.repositories.vasps.record(companyId, env, vaspId, name, source, at(s)));
    const search = (needle: string, after: [string, string] | null = null, limit = 50, env: "test" | "live" = "test", companyId = store.companyId) =>
      store.repositories.vasps.search(companyId, env, needle, after, limit);

    test("once under its latest name; found by an old name or its ID in any case; a name trimmed", async () => {
      await record("did:web:alpha.example", "Alpha Old", "discovery", 1);
      await record("did:web:alpha.example", "  Alpha Exchange  ", "discovery", 2);
      expect(await search("alpha old")).toEqual([{ id: "did:web:alpha.example", name: "Alpha Exchange", source: "discovery" }]);
      expect(await search("alpha.example")).toEqual([{ id: "did:web:alpha.example", name: "Alpha Exchange", source: "discovery" }]);
      expect(await search("exchange")).toEqual([{ id: "did:web:alpha.example", name: "Alpha Exchange", source: "discovery" }]);
      // Seen again under the old name: it is the latest again.
      await record("did:web:alpha.example", "Alpha Old", "discovery", 3);
      expect((await search("alpha"))[0]!.name).toBe("Alpha Old");
      // Seen under the latest name at an older time (a late writer): it stays the latest.
      await record("did:web:alpha.example", "Alpha Old", "discovery", 0);
      expect((await search("alpha"))[0]!.name).toBe("Alpha Old");
    });

    test("no name (or a blank one) is its ID, and a real name wins over it whenever it was seen", async () => {
      await record("vasp-bare-1", null, "discovery", 1);
      expect(await search("bare-1")).toEqual([{ id: "vasp-bare-1", name: "vasp-bare-1", source: "discovery" }]);
      await record("vasp-bare-1", "Bare One", "discovery", 2);
      await record("vasp-bare-1", "   ", "discovery", 5);
      await record("vasp-bare-1", null, "discovery", 6);
      expect(await search("bare-1")).toEqual([{ id: "vasp-bare-1", name: "Bare One", source: "discovery" }]);
    });

    test("a transfer's naming makes the source transfer_history for good; otherwise the latest source", async () => {
      await record("vasp-src", "Source Co", "discovery", 1);
      await record("vasp-src", "Source Co", "directory", 2);
      expect((await search("source co"))[0]!.source).toBe("directory");
      await record("vasp-src", "Source Co", "transfer_history", 3);
      await record("vasp-src", "Source Co", "discovery", 4);
      await record("vasp-src", "Source Company", "discovery", 5);
      expect(await search("source co")).toEqual([{ id: "vasp-src", name: "Source Company", source: "transfer_history" }]);
    });

    test("sorted by lower-cased name then ID; a keyset on [lower(name), id]; a limit", async () => {
      await record("kz-2", "Kappa Zeta", "discovery", 1);
      await record("kz-1", "kappa zeta", "discovery", 1);
      await record("kz-3", "KAPPA ALPHA", "discovery", 1);
      await record("kz-4", "Kappa Beta", "discovery", 1);
      const all = await search("kappa");
      expect(all.map((v) => v.id)).toEqual(["kz-3", "kz-4", "kz-1", "kz-2"]);
      expect((await search("kappa", null, 2)).map((v) => v.id)).toEqual(["kz-3", "kz-4"]);
      expect((await search("kappa", ["kappa beta", "kz-4"], 10)).map((v) => v.id)).toEqual(["kz-1", "kz-2"]);
      expect((await search("kappa", ["kappa zeta", "kz-1"], 10)).map((v) => v.id)).toEqual(["kz-2"]);
      expect(await search("kappa", ["kappa zeta", "kz-2"], 10)).toEqual([]);
      expect(await search("no-such-vasp-anywhere")).toEqual([]);
    });

    test("one company's and environment's directory only", async () => {
      await record("vasp-scoped", "Scoped Live", "discovery", 1, "live");
      expect(await search("scoped")).toEqual([]);
      expect(await search("scoped", null, 50, "live")).toEqual([{ id: "vasp-scoped", name: "Scoped Live", source: "discovery" }]);
      expect(await search("scoped", null, 50, "live", "cmp_other")).toEqual([]);
    });
  });
}
