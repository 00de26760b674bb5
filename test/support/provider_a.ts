// What the provider_a end-to-end test files share: the company's entity and signing secret, persons, and helpers bound to
// a file's API client and owner key (customers and attested wallets, creating outgoing transfers, reading and waiting).
import { expect } from "bun:test";
import type { Person } from "../../src/domain/ivms101/index.ts";
import type { apiClient } from "./api.ts";

type Client = ReturnType<typeof apiClient>;

/** The company's entity at provider_a, and a fresh Standard Webhooks signing secret. */
export const CARAVAN = "did:web:caravan.example";
export const newWebhookSecret = () => "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
/** ETH's asset ID in the catalogue. */
export const ETH = "eip155:1/slip44:60";

/** Helpers over one test file's client; `owner` and `ownerEmail` are read when called (they are set in beforeAll). */
export function providerAHelpers(c: Pick<Client, "call" | "cli">, who: () => { owner: string; ownerEmail: string }) {
  const { call, cli } = c;

  async function customer(name: string, status: "verified" | "unverified", persons: Person[]): Promise<string> {
    const r = await call("/api/v2/customers", { method: "POST", key: who().owner, json: { name } });
    const id = r.body.data.id;
    expect((await call(`/api/v2/customers/${id}/travel-rule-identity`, { method: "PUT", key: who().owner, json: { status, persons } })).status).toBe(200);
    return id;
  }

  /** A wallet on ethereum, attested by the owner (verified) unless told not to; its canonical address. */
  async function wallet(customerId: string, address: string, verify = true): Promise<string> {
    const w = await call("/api/v2/wallets", { method: "POST", key: who().owner, json: { customerId, network: "ethereum", address } });
    expect(w.status).toBe(201);
    if (verify) await cli("wallets", "attest", "--id", w.body.data.id, "--note", "x", "--member", who().ownerEmail);
    return w.body.data.address;
  }

  /** An outgoing 1 ETH transfer with provider_a preferred: 202, its ID. */
  async function createOutgoing(o: { beneficiaryAddress: string; originatorCustomerId: string; originatorPersons: Person[]; beneficiaryPersons: Person[]; extra?: Record<string, unknown> }) {
    const r = await call("/api/v2/transfers", {
      method: "POST",
      key: who().owner,
      headers: { "Idempotency-Key": crypto.randomUUID() },
      json: {
        asset: "ETH",
        amount: "1",
        network: "ethereum",
        originatorCustomerId: o.originatorCustomerId,
        beneficiaryAddress: o.beneficiaryAddress,
        originator: { originatorPersons: o.originatorPersons },
        beneficiary: { beneficiaryPersons: o.beneficiaryPersons },
        preferredProtocol: "provider_a",
        ...o.extra,
      },
    });
    expect(r.status).toBe(202);
    return r.body.data.id as string;
  }

  const get = async (id: string, key = who().owner) => (await call(`/api/v2/transfers/${id}`, { key })).body.data;

  /** Polls until the transfer's state is one of `states` (bounded; a croner sweep may be a minute away: `rounds` 700). */
  async function until(id: string, states: string[], rounds = 300) {
    for (let i = 0; i < rounds; i++) {
      const t = await get(id);
      if (states.includes(t.state)) return t;
      await Bun.sleep(100);
    }
    throw new Error(`transfer ${id} never reached ${states.join("/")}: ${JSON.stringify(await get(id))}`);
  }

  const patch = (id: string, json: Record<string, unknown>) => call(`/api/v2/transfers/${id}`, { method: "PATCH", key: who().owner, json });

  /** The incoming transfer the provider's transfer `txId` created (bounded wait). */
  async function incomingId(txId: string): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const r = await call(`/api/v2/transfers?direction=incoming&limit=100`, { key: who().owner });
      const t = r.body.data.find((x: { externalId: string }) => x.externalId === `provider_a-inbound:${txId}`);
      if (t) return t.id;
      await Bun.sleep(100);
    }
    throw new Error(`no incoming transfer for ${txId}`);
  }

  return { customer, wallet, createOutgoing, get, until, patch, incomingId };
}
