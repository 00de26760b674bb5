// provider_d settings read as the TRP exchange reads them: LEI check digits (ISO 17442), certificate and key that
// belong together and are valid at the clock given, accepted CAs, counterparties identified by their certificate.
import { afterAll, describe, expect, test } from "bun:test";
import { counterpartyByFingerprint, counterpartyForUrl, isLei, normalizeFingerprint, readProviderDConfig } from "../../src/domain/provider_d/settings.ts";
import { makeTestCa } from "../../src/sandbox/provider_d/ca.ts";

const ca = makeTestCa("Settings Test CA");
const ours = ca.issue("caravan.test");
const peer = ca.issue("peer.test");
afterAll(() => ca.dispose());
const NOW = Date.now();
const base = { baseUrl: "https://caravan.example/", legalName: "Caravan B.V.", lei: "5493001KJTIIGC8Y1R12", tlsCertificate: ours.certificate, tlsPrivateKey: ours.privateKey, clientCaCertificates: ca.certificate };

describe("provider_d settings", () => {
  test("LEI: published LEIs pass; a changed check digit, lower case or a wrong length fail", () => {
    for (const l of ["5493001KJTIIGC8Y1R12", "506700T7Z685VUOZL877", "TVYD005I7Q5IJK0EMI53"]) expect(isLei(l)).toBe(true);
    for (const l of ["5493001KJTIIGC8Y1R13", "5493001kjtiigc8y1r12", "5493001KJTIIGC8Y1R1"]) expect(isLei(l)).toBe(false);
  });
  test("valid settings: base URL without its trailing slash, counterparties by the SHA-256 of their certificate", () => {
    const r = readProviderDConfig({ ...base, counterparties: JSON.stringify([{ name: "Peer", lei: "506700T7Z685VUOZL877", endpoint: "https://peer.example/trp/", certificate: peer.certificate }]) }, NOW);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.config.baseUrl).toBe("https://caravan.example");
    expect(r.config.counterparties).toEqual([{ name: "Peer", lei: "506700T7Z685VUOZL877", endpoint: "https://peer.example/trp", fingerprint: peer.fingerprint, inquiryUrl: null }]);
    expect(counterpartyByFingerprint(r.config, peer.fingerprint)?.name).toBe("Peer");
    expect(counterpartyByFingerprint(r.config, ours.fingerprint)).toBeUndefined();
    expect(counterpartyForUrl(r.config, "https://peer.example/trp/inquiry/abc?t=i")?.name).toBe("Peer");
    expect(counterpartyForUrl(r.config, "https://peer.example/other")).toBeUndefined();
    expect(counterpartyForUrl(r.config, "https://peer.example.evil/trp/x")).toBeUndefined();
  });
  test("inquiryUrl: an https URL beneath the counterparty's endpoint is kept; another origin, a path outside it, a query or http is refused naming the field", () => {
    const cp = (inquiryUrl: unknown) => JSON.stringify([{ name: "Peer", endpoint: "https://peer.example/trp", certificate: peer.certificate, inquiryUrl }]);
    const ok = readProviderDConfig({ ...base, counterparties: cp("https://peer.example/trp/transfers/") }, NOW);
    if (!ok.ok) throw new Error(JSON.stringify(ok.issues));
    expect(ok.config.counterparties[0]!.inquiryUrl).toBe("https://peer.example/trp/transfers");
    for (const bad of ["https://other.example/trp/transfers", "https://peer.example/elsewhere", "https://peer.example/trp/transfers?x=1", "http://peer.example/trp/transfers", 7]) {
      const r = readProviderDConfig({ ...base, counterparties: cp(bad) }, NOW);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.issues.map((i) => i.path)).toEqual(["credentials.counterparties"]);
    }
  });
  test("a fingerprint in colon form is the same counterparty", () => {
    const colon = peer.fingerprint.toUpperCase().match(/../g)!.join(":");
    expect(normalizeFingerprint(colon)).toBe(peer.fingerprint);
    const r = readProviderDConfig({ ...base, counterparties: JSON.stringify([{ name: "Peer", endpoint: "https://peer.example", fingerprint: colon }]) }, NOW);
    expect(r.ok && r.config.counterparties[0].fingerprint).toBe(peer.fingerprint);
  });
  test("a key of another certificate, a certificate not valid at the clock, two entries with one certificate: each named", () => {
    const wrongKey = readProviderDConfig({ ...base, tlsPrivateKey: peer.privateKey }, NOW);
    expect(wrongKey.ok ? [] : wrongKey.issues.map((i) => i.path)).toEqual(["credentials.tlsPrivateKey"]);
    const later = readProviderDConfig(base, NOW + 400 * 86_400_000);
    expect(later.ok ? [] : later.issues.map((i) => i.path)).toEqual(["credentials.tlsCertificate"]);
    const twice = JSON.stringify([1, 2].map((n) => ({ name: `P${n}`, endpoint: "https://p.example", certificate: peer.certificate })));
    const dup = readProviderDConfig({ ...base, counterparties: twice }, NOW);
    expect(dup.ok ? [] : dup.issues.map((i) => i.message)).toEqual(["two entries name the same certificate"]);
  });
  test("a client certificate issued through an intermediate CA it presents chains to the accepted root; without the intermediate it does not", async () => {
    const { checkClientCertificate } = await import("../../src/domain/provider_d/settings.ts");
    const { X509Certificate } = await import("node:crypto");
    const sub = ca.intermediate("Settings Intermediate CA");
    const leaf = sub.issue("chained.test");
    // The clock after issuing: the certificates are valid from the second openssl made them.
    const at = Date.now() + 1000;
    const r = readProviderDConfig({ ...base, counterparties: JSON.stringify([{ name: "Chained", endpoint: "https://chained.example", certificate: leaf.certificate }]) }, at);
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const cert = new X509Certificate(leaf.certificate);
    expect(checkClientCertificate(r.config, cert, at, [new X509Certificate(sub.chain)])).toMatchObject({ ok: true, fingerprint: leaf.fingerprint });
    expect(checkClientCertificate(r.config, cert, at, [])).toEqual({ ok: false, reason: "untrusted_issuer" });
    // A leaf (not a CA) presented as an intermediate does not extend the chain.
    const other = ca.issue("not-a-ca.test");
    expect(checkClientCertificate(r.config, cert, at, [new X509Certificate(other.certificate)])).toEqual({ ok: false, reason: "untrusted_issuer" });
  });

  test("issues never quote a value", () => {
    const r = readProviderDConfig({ ...base, lei: "SECRETLOOKINGVALUE00", tlsPrivateKey: "not a key at all 7f3e" }, NOW);
    expect(JSON.stringify(r)).not.toContain("SECRETLOOKINGVALUE00");
    expect(JSON.stringify(r)).not.toContain("7f3e");
  });
});
