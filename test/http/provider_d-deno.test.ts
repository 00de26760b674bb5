// provider_d under Deno: Deno.serve cannot ask for client certificates, but Caravan's TRP listener runs on node:tls
// under Deno too; the client certificate reaches the provider_d path by the listener's loopback connection. Both
// directions over mutual TLS with the sandbox TRP peer.
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderDSuite, ORIGIN_ADDR, PEER_ADDR, type DSuite } from "../support/provider_d.ts";
import { JANE, RICHARD } from "../support/persons.ts";

setDefaultTimeout(90_000);

const dir = tempDir();
let d: DSuite;
beforeAll(async () => {
  expect(Bun.which("deno")).not.toBeNull(); // .ci/run installs deno from the npm registry
  d = await startProviderDSuite(dir, { runtime: "deno" });
});
afterAll(async () => {
  await d?.stop();
});

test("under Deno: an inquiry to our Travel Address over the TRP listener is approved; a stranger's certificate is 403; outgoing approved", async () => {
  const ta = (await d.call(`/api/v2/wallets/${d.walletId}/travel-address`, { key: d.owner })).body.data.travelAddress;
  const s = await d.peer.sendInquiry(ta, { asset: { slip0044: 60 }, amount: "0.3", IVMS101: { originator: { originatorPersons: [RICHARD] }, beneficiary: { beneficiaryPersons: [JANE] } } });
  expect(s.status, JSON.stringify(s.answer)).toBe(200);
  expect((s.answer as any).approved.address.toLowerCase()).toBe(ORIGIN_ADDR.toLowerCase());
  const stranger = d.peer.ca.issue("stranger.localhost");
  const { decodeTravelAddress } = await import("../../src/domain/provider_d/travel-address.ts");
  const url = decodeTravelAddress(ta);
  const r = await fetch(url.ok ? url.url : "", {
    method: "POST",
    headers: { "api-version": "3.2.1", "request-identifier": crypto.randomUUID(), "content-type": "application/json" },
    body: "{}",
    tls: { cert: stranger.certificate, key: stranger.privateKey, ca: d.peer.ca.certificate },
  } as RequestInit);
  expect(r.status).toBe(403);
  const id = await d.create(d.peer.travelAddress("acct-1"));
  const t = await d.until(id, (x) => x.state === "awaiting_counterparty");
  expect(t.beneficiary.address.toLowerCase()).toBe(PEER_ADDR.toLowerCase());
});
