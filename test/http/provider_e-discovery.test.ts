// The beneficiary VASP search with a directory of 100 VASPs (Part 3, provider_e search; Limits): eight candidates at
// a time, a round bounded by its 20 s budget (then asked again later, never a guess), and more than 500 candidates
// without a list failing the search (DISCOVERY_ALLOWLIST_REQUIRED).
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, type Suite } from "../support/provider_e.ts";
import type { SandboxVaspInput } from "../../src/sandbox/provider_e/index.ts";

setDefaultTimeout(60_000);

const OWNED = "0x" + "4e".repeat(20);
const code = (p: string, i: number) => `${p}${String(i).padStart(4, "0")}`;
const dirA = tempDir();
const dirB = tempDir();
const dirC = tempDir();
let a: Suite;
let b: Suite;
let c: Suite | undefined;

beforeAll(async () => {
  // 99 VASPs that answer slowly and own nothing, one that owns the address.
  const vasps: SandboxVaspInput[] = Array.from({ length: 99 }, (_, i) => ({ code: code("SLOWVASP", i), behaviour: "slow" as const, delayMs: 150 }));
  vasps.push({ code: "OWNERVASP", name: "Owner Exchange", addresses: [OWNED], behaviour: "slow", delayMs: 150 });
  // And 100 VASPs that never answer; both servers start side by side (the setup's time stays one server's).
  [a, b] = await Promise.all([
    startProviderESuite(dirA, { allow: "*", bridge: { vasps } }),
    startProviderESuite(dirB, { allow: "*", bridge: { vasps: Array.from({ length: 100 }, (_, i) => ({ code: code("MUTEVASP", i), behaviour: "silent" as const })) } }),
  ]);
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await c?.stop();
});

test("100 candidates: asked eight at a time, every one asked, the one owner found and the transfer sent to it", async () => {
  const id = await a.create(OWNED);
  const t = await a.until(id, (x) => x.state === "awaiting_counterparty" || x.state === "failed");
  expect(t.state).toBe("awaiting_counterparty");
  expect(t.beneficiary.vaspId).toBe("OWNERVASP");
  expect(a.bridge.stats.maxInFlight).toBe(8);
  // 100 in the search, and the owner asked once more before the permission request.
  expect(a.bridge.stats.asked).toBe(101);
});

// A directory is kept for a minute once read, so the larger directory has a server of its own.
test("more than 500 candidates without a list → the search fails (DISCOVERY_ALLOWLIST_REQUIRED): failed, nothing asked", async () => {
  c = await startProviderESuite(dirC, { allow: "*", bridge: { vasps: [...Array.from({ length: 501 }, (_, i) => ({ code: code("MOREVASP", i) })), { code: "OWNERVASP", addresses: [OWNED] }] } });
  const id = await c.create(OWNED);
  const t = await c.until(id, (x) => x.state === "failed");
  expect(JSON.stringify(t.cascade.attempts)).toContain("DISCOVERY_ALLOWLIST_REQUIRED");
  expect(c.bridge.stats.asked).toBe(0);
}, 120_000);

test("100 candidates that never answer: at most eight in flight, the round ends at its 20 s budget, nothing is sent", async () => {
  const id = await b.create(OWNED);
  for (let i = 0; i < 200 && b.bridge.stats.asked < 8; i++) await Bun.sleep(50);
  expect(b.bridge.stats.asked).toBe(8);
  // Without the budget a round would wait for all 100 (15 s each, eight at a time); the round's outcome (no decision,
  // asked again later) commits with most candidates never asked.
  const t = await b.until(id, (x) => x.state === "processing", 400);
  expect(b.bridge.stats.asked).toBeLessThan(100);
  expect(b.bridge.stats.maxInFlight).toBe(8);
  expect(t.cascade.externalId).toBeNull();
  expect(b.bridge.requests.some((r) => r.path === "/bridge/transaction/permission-request")).toBe(false);
});
