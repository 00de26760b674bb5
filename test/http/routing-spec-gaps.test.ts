// preferredProtocol and discovery, end to end with two capable providers over real HTTP: the sandbox provider_e bridge
// and the sandbox provider_b network both know the beneficiary addresses (each under its own VASP ID). The preferred
// provider is tried first, "but another enabled provider may still carry the transfer ... when the beneficiary VASP
// was last reached through another provider"; and VASPs resolved by wallet discovery appear in VASP search.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, type Suite } from "../support/provider_e.ts";
import { startProviderBPeer, type ProviderBPeer } from "../../src/sandbox/provider_b/index.ts";
import { publicKeyBase64, randomSeedBase64 } from "../../src/adapters/providers/provider_b/crypto.ts";
import { RICHARD } from "../support/persons.ts";
import { preferLastReached, type RoutingState } from "../../src/actors/routing.ts";
import type { Protocol } from "../../src/domain/transfers.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
let P: Suite;
let peer: ProviderBPeer;
const seed = randomSeedBase64();
/** Known to provider_e as NORDICVASP and to provider_b as VASP-BENE. */
const SHARED_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
/** Known to provider_e as FJORDVASP and to provider_b as VASP-BENE. */
const OTHER_ADDR = "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB";
const OPEN = ["queued", "processing"];

const settled = (id: string) => P.until(id, (t) => !OPEN.includes(t.state) && (t.state !== "exchanging" || t.cascade.provider !== null));

beforeAll(async () => {
  peer = await startProviderBPeer({
    vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { richard: [RICHARD] }, wallets: [{ address: SHARED_ADDR, customer: "richard" }, { address: OTHER_ADDR, customer: "richard" }] }],
  });
  P = await startProviderESuite(dir, {
    bridge: {
      vasps: [
        { code: "NORDICVASP", name: "Nordic Bank", addresses: [SHARED_ADDR] },
        { code: "FJORDVASP", name: "Fjord Bank", addresses: [OTHER_ADDR] },
      ],
    },
  });
  const credentials = { apiUrl: peer.url, vaspEntityId: "CARAVAN-1", privateKey: seed, legalName: "Caravan Test VASP", country: "NL" };
  for (const key of [P.owner, P.live]) expect((await P.call("/api/v2/providers/provider_b", { method: "PUT", key, json: { credentials } })).status).toBe(201);
  expect((await P.call("/api/v2/providers/provider_b", { method: "PATCH", key: P.live, json: { enabled: true } })).status).toBe(200);
  peer.registerCaravan({ entityId: "CARAVAN-1", publicKeyBase64: publicKeyBase64(seed), callbackBaseUrl: P.S.url, legalName: "Caravan Test VASP", country: "NL" });
});

afterAll(async () => {
  await P?.stop();
  await peer?.stop();
});

const search = async (q: string) => (await P.call(`/api/v2/vasps/search?q=${encodeURIComponent(q)}`, { key: P.owner })).body.data as { id: string; name: string; source: string }[];

describe("preferredProtocol", () => {
  test("with no earlier contact the preferred provider carries the transfer (both providers found a VASP)", async () => {
    const id = await P.create(SHARED_ADDR); // preferredProtocol provider_e
    const t = await settled(id);
    expect(t.cascade.provider).toBe("provider_e");
    expect(t.beneficiary.vaspId).toBe("NORDICVASP");
  });

  test("VASP search lists the VASP provider_b's discovery resolved but no transfer named: source discovery", async () => {
    expect(await search("VASP-BENE")).toEqual([{ id: "VASP-BENE", name: "Bene Exchange", source: "discovery" }]);
    expect((await search("NORDICVASP")).map((v) => v.source)).toEqual(["transfer_history"]);
  });

  test("when the beneficiary VASP was last reached through another provider, that provider carries it: provider_b preferred, provider_e carries; provider_b is not sent anything", async () => {
    const sentToB = peer.transfers.size;
    const id = await P.create(SHARED_ADDR, { preferredProtocol: "provider_b" });
    const t = await settled(id);
    expect(t.cascade.provider).toBe("provider_e");
    expect(t.beneficiary.vaspId).toBe("NORDICVASP");
    expect(t.cascade.attempts.map((a: { provider: string }) => a.provider)).toEqual(["provider_e"]);
    expect(peer.transfers.size).toBe(sentToB);
  });

  test("with no earlier contact through either provider, the preferred one carries it: provider_b preferred and carrying", async () => {
    const id = await P.create(OTHER_ADDR, { preferredProtocol: "provider_b" });
    const t = await settled(id);
    expect(t.cascade.provider).toBe("provider_b");
    expect(t.beneficiary.vaspId).toBe("VASP-BENE");
  });

  test("and the other way round: provider_e preferred, but the VASP was last reached through provider_b, so provider_b carries it", async () => {
    const before = P.bridge.transfers.size;
    const id = await P.create(OTHER_ADDR); // preferredProtocol provider_e
    const t = await settled(id);
    expect(t.cascade.provider).toBe("provider_b");
    expect(t.beneficiary.vaspId).toBe("VASP-BENE");
    expect(P.bridge.transfers.size).toBe(before);
    expect(await search("VASP-BENE")).toEqual([{ id: "VASP-BENE", name: "Bene Exchange", source: "transfer_history" }]);
  });
});

describe("preferredProtocol: the rule as a table (preferLastReached)", () => {
  const found = (vaspId: string) => ({ kind: "found" as const, vaspId, vaspName: null });
  const state = (o: Partial<RoutingState> = {}): RoutingState => ({
    startedAt: 0,
    order: ["provider_e", "provider_a", "provider_b"],
    preferred: "provider_e",
    discoveries: { provider_e: found("E1"), provider_a: found("A1"), provider_b: found("B1") },
    done: [],
    ...o,
  });
  const reached = (table: Record<string, { protocol: string; at: string }>) => async (vaspId: string) => table[vaspId] ?? null;
  const cases: { name: string; s: RoutingState; table: Record<string, { protocol: string; at: string }>; moved: Protocol | null; order?: Protocol[] }[] = [
    { name: "no earlier contact: order unchanged", s: state(), table: {}, moved: null },
    { name: "the VASP provider_b found was last reached through provider_b: provider_b first", s: state(), table: { B1: { protocol: "provider_b", at: "2026-11-01T00:00:00.000Z" } }, moved: "provider_b", order: ["provider_b", "provider_e", "provider_a"] },
    { name: "two others reached theirs: the most recent goes first", s: state(), table: { A1: { protocol: "provider_a", at: "2026-11-02T00:00:00.000Z" }, B1: { protocol: "provider_b", at: "2026-11-01T00:00:00.000Z" } }, moved: "provider_a" },
    { name: "the preferred provider reached its VASP more recently: order unchanged", s: state(), table: { E1: { protocol: "provider_e", at: "2026-11-03T00:00:00.000Z" }, B1: { protocol: "provider_b", at: "2026-11-01T00:00:00.000Z" } }, moved: null },
    { name: "a VASP ID last reached through a third provider does not count", s: state(), table: { B1: { protocol: "provider_a", at: "2026-11-01T00:00:00.000Z" } }, moved: null },
    { name: "a provider whose discovery has not found the VASP is not moved", s: state({ discoveries: { provider_e: found("E1") } }), table: { B1: { protocol: "provider_b", at: "2026-11-01T00:00:00.000Z" } }, moved: null },
    { name: "without preferredProtocol nothing moves", s: state({ preferred: null, order: ["provider_a", "provider_b", "provider_e"] }), table: { B1: { protocol: "provider_b", at: "2026-11-01T00:00:00.000Z" } }, moved: null },
    { name: "moved once already: not again", s: state({ lastReachedBy: "provider_a" }), table: { B1: { protocol: "provider_b", at: "2026-11-01T00:00:00.000Z" } }, moved: null },
  ];
  for (const c of cases)
    test(c.name, async () => {
      const before = [...c.s.order];
      expect(await preferLastReached(c.s, reached(c.table))).toBe(c.moved);
      expect(c.s.order).toEqual(c.order ?? (c.moved ? [c.moved, ...before.filter((p) => p !== c.moved)] : before));
    });
});
