// provider_d behind a trusted proxy: the proxy terminated TLS and passes the verified client certificate in
// X-Client-Cert (URL-encoded PEM, nginx) or X-Forwarded-Client-Cert (Envoy); Caravan believes it only from an address
// in CARAVAN_TRUSTED_PROXIES, and never for a connection of its own TRP listener (whose certificate is the TLS one).
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { randomUUID } from "node:crypto";
import { tempDir } from "../support/tmp.ts";
import { startProviderDSuite, type DSuite } from "../support/provider_d.ts";
import { decodeTravelAddress } from "../../src/domain/provider_d/travel-address.ts";
import { JANE, RICHARD } from "../support/persons.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
let d: DSuite;
let path: string;
beforeAll(async () => {
  d = await startProviderDSuite(dir, { serverEnv: { CARAVAN_TRUSTED_PROXIES: "127.0.0.1" } });
  const r = await d.call(`/api/v2/wallets/${d.walletId}/travel-address`, { key: d.owner });
  const u = decodeTravelAddress(r.body.data.travelAddress);
  path = u.ok ? new URL(u.url).pathname + new URL(u.url).search : "";
});
afterAll(async () => {
  await d?.stop();
});

const body = JSON.stringify({ asset: { slip0044: 60 }, amount: "0.5", callback: "https://127.0.0.1:9/cb", IVMS101: { originator: { originatorPersons: [RICHARD] }, beneficiary: { beneficiaryPersons: [JANE] } } });
const headers = () => ({ "api-version": "3.1.0", "request-identifier": randomUUID(), "content-type": "application/json" });

describe("trusted proxy", () => {
  test("X-Client-Cert (URL-encoded PEM) from a trusted proxy: the counterparty's inquiry is answered", async () => {
    const r = await fetch(`${d.S.url}${path}`, { method: "POST", headers: { ...headers(), "x-client-cert": encodeURIComponent(d.peer.identity.certificate) }, body });
    expect(r.status).toBe(200);
    expect(r.headers.get("api-version")).toBe("3.2.1");
    expect(Object.keys(await r.json())).toEqual(["approved"]);
  });

  test("Envoy's X-Forwarded-Client-Cert: the same", async () => {
    const xfcc = `By=spiffe://caravan;Hash=x;Cert="${encodeURIComponent(d.peer.identity.certificate)}";Subject="CN=trp-peer"`;
    const r = await fetch(`${d.S.url}${path}`, { method: "POST", headers: { ...headers(), "x-forwarded-client-cert": xfcc }, body });
    expect(r.status).toBe(200);
  });

  test("no certificate passed: 401; a certificate no counterparty owns: 403", async () => {
    expect((await fetch(`${d.S.url}${path}`, { method: "POST", headers: headers(), body })).status).toBe(401);
    const stranger = d.peer.ca.issue("stranger.localhost");
    expect((await fetch(`${d.S.url}${path}`, { method: "POST", headers: { ...headers(), "x-client-cert": encodeURIComponent(stranger.certificate) }, body })).status).toBe(403);
  });

  test("through Caravan's own listener the header is never believed: the TLS certificate counts", async () => {
    const stranger = d.peer.ca.issue("stranger2.localhost");
    const r = await fetch(`${d.trpUrl}${path}`, {
      method: "POST",
      headers: { ...headers(), "x-client-cert": encodeURIComponent(d.peer.identity.certificate) },
      body,
      tls: { cert: stranger.certificate, key: stranger.privateKey, ca: d.peer.ca.certificate },
    } as RequestInit);
    expect(r.status).toBe(403);
  });
});
