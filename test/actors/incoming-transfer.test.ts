// The customer actor's `receiveIncoming` (Part 3, provider_b Incoming): screening after creation never holds; a verdict needing review or a rejection denies.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { customerActor, type IncomingOutcome, type IncomingTransfer, type Outcome } from "../../src/actors/customer.ts";
import { createRepositories } from "../../src/adapters/storage/repositories.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { Transfers } from "../../src/adapters/storage/repos/transfers.ts";
import { newId } from "../../src/domain/ids.ts";
import type { Verdict } from "../../src/domain/provider_b/decisions.ts";
import { BOB, JANE } from "../support/persons.ts";

let storage: Storage;
let runtime: ActorRuntime;
let verdict: Verdict = "approved";
const scope = { companyId: "cmp_incoming", environment: "test" as const, actor: { type: "system" as const } };
const ADDRESS = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const customerId = newId("cus", Date.now());
const walletId = newId("wal", Date.now());

async function ask<T>(msg: Record<string, unknown>): Promise<Outcome<T>> {
  return runtime.ask<Outcome<T>>(`customer:${customerId}`, { ...scope, ...msg });
}

function incoming(extra: Partial<IncomingTransfer> = {}): IncomingTransfer {
  return {
    id: newId("trf", Date.now()),
    externalId: `provider_b-inbound:${newId("pbr", Date.now())}`,
    protocol: "provider_b",
    walletId,
    asset: "ETH",
    assetId: "eip155:1/slip44:60",
    amount: "1",
    network: "ethereum",
    beneficiaryAddress: ADDRESS,
    originatorAddress: "0xabc",
    originatorPersons: [BOB],
    beneficiaryPersons: [JANE],
    originatorVasp: { id: "code:kimchi", name: "Kimchi" },
    beneficiaryVasp: { id: "CARAVAN-1", name: "Caravan" },
    thresholdInfo: {},
    ...extra,
  };
}

function eventsOf(id: string): string[] {
  return (storage.client.prepare("SELECT type FROM events WHERE entity_id = ? ORDER BY seq").all(id) as { type: string }[]).map((e) => e.type);
}

beforeAll(async () => {
  storage = await openStorage(":memory:");
  runtime = new ActorRuntime(storage, {});
  const transfers = new Transfers(storage);
  const pii = new Sealer(crypto.getRandomValues(new Uint8Array(32)));
  await runtime
    .register(
      customerActor({
        repositories: createRepositories(storage, { pii, secrets: pii, clock: Date.now }),
        pii,
        nameIndexKey: crypto.getRandomValues(new Uint8Array(32)),
        activeTransferIds: (c, e, id) => transfers.activeForCustomer(c, e, id),
        // The screening's verdict as the checkpoint would give it (rules and vendors are tested in screening-checkpoints).
        screenIncoming: async () => ({ verdict, checks: [], event: (t) => ({ transferId: t.id }), openCase: null }),
      }),
    )
    .start();
  expect((await ask({ type: "create", input: { externalId: null, name: "Jane Doe", metadata: null, hasMetadata: false } })).ok).toBe(true);
  expect((await ask({ type: "setIdentity", status: "verified", persons: [JANE] })).ok).toBe(true);
  expect((await ask({ type: "registerWallet", walletId, address: ADDRESS, network: "ethereum", label: null })).ok).toBe(true);
  const proof = await ask({ type: "attestWallet", walletId, note: "seen", expiresAt: null, actor: { type: "member", memberId: "mem_1" } });
  expect(proof.ok).toBe(true);
});

afterAll(async () => {
  await runtime.stop();
  storage.close();
});

test("approved: created awaiting_counterparty, approved; transfer.created only; the same reference again is the same transfer", async () => {
  verdict = "approved";
  const n = incoming();
  const r = await ask<IncomingOutcome>({ type: "receiveIncoming", transfer: n });
  expect(r.ok && r.data).toMatchObject({ result: "verified", reasonType: null, created: true, transfer: { state: "awaiting_counterparty", status: "approved", direction: "incoming", beneficiaryCustomerId: customerId } });
  expect(eventsOf(n.id)).toEqual(["transfer.created", "compliance.screening_complete"]);
  const again = await ask<IncomingOutcome>({ type: "receiveIncoming", transfer: { ...n, id: newId("trf", Date.now()) } });
  expect(again.ok && again.data).toMatchObject({ result: "verified", created: false, transfer: { id: n.id } });
  // The customer has a transfer in flight: an erasure waits (never interleaves with the creation).
  const erase = await ask({ type: "erase", reason: "asked" });
  expect(erase).toMatchObject({ ok: false, code: "IN_FLIGHT" });
});

test.each([
  ["pending", "LACK_OF_INFORMATION"],
  ["rejected", "UNKNOWN"],
] as const)("screening %s after creation: denied %s, the transfer rejected (never held); transfer.created then transfer.rejected", async (v, reasonType) => {
  verdict = v;
  const n = incoming();
  const r = await ask<IncomingOutcome>({ type: "receiveIncoming", transfer: n });
  expect(r.ok && r.data).toMatchObject({ result: "denied", reasonType, created: true, transfer: { state: "rejected", status: "rejected", rejectionReason: reasonType } });
  expect(eventsOf(n.id)).toEqual(["transfer.created", "transfer.rejected", "compliance.screening_complete"]);
  const history = (await new Transfers(storage).get(scope.companyId, scope.environment, n.id))!.history.map((h) => h.to);
  expect(history).toEqual(["exchanging", "rejected"]);
  const again = await ask<IncomingOutcome>({ type: "receiveIncoming", transfer: n });
  expect(again.ok && again.data).toMatchObject({ result: "denied", reasonType, created: false });
  verdict = "approved";
});

test("denied before creation: nothing written", async () => {
  const n = incoming({ beneficiaryPersons: [BOB] });
  const r = await ask<IncomingOutcome>({ type: "receiveIncoming", transfer: n });
  expect(r.ok && r.data).toEqual({ result: "denied", reasonType: "INPUT_NAME_MISMATCHED", transfer: null });
  expect(await new Transfers(storage).get(scope.companyId, scope.environment, n.id)).toBeUndefined();
  const moved = await ask<IncomingOutcome>({ type: "receiveIncoming", transfer: incoming({ beneficiaryAddress: "0x" + "1a".repeat(20) }) });
  expect(moved.ok && moved.data).toMatchObject({ result: "denied", reasonType: "NOT_FOUND_ADDRESS" });
});
