// The customer actor's ownership decisions without I/O (src/domain/proofs/decide.ts): each refusal and each outcome of
// a challenge issued, an officer's attestation and a revocation.
import { test, expect, describe } from "bun:test";
import { CHALLENGE_TTL_MS, decideAttestation, decideChallenge, decideRevocation, type ProvenWallet, type WalletProof } from "../../src/domain/proofs/index.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const AT = "2026-03-01T10:00:00.000Z";

const evm: ProvenWallet = { id: "wal_1", companyId: "cmp_1", environment: "live", address: "0x52908400098527886E0F7030069857D2E4169EE7", network: "ethereum" };
const solana: ProvenWallet = { ...evm, id: "wal_2", network: "solana", address: "So1anaAddress111" };

describe("decideChallenge", () => {
  const refusals: { case: string; w: ProvenWallet; reason: RegExp }[] = [
    { case: "a network with no signed-message scheme", w: solana, reason: /^signed-message proofs are not available for solana wallets; record an officer attestation instead/ },
    { case: "a taproot bitcoin address", w: { ...evm, network: "bitcoin", address: "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297" }, reason: /^BIP-137 cannot prove a taproot/ },
  ];
  for (const r of refusals)
    test(`refused: ${r.case}`, () => {
      const d = decideChallenge(r.w, { issuer: "Acme", issuedBy: null, id: "chl_1", nonce: "n" }, NOW);
      expect(d.ok).toBe(false);
      if (!d.ok) expect(d.reason).toMatch(r.reason);
    });

  const outcomes: { case: string; w: ProvenWallet; scheme: string; issuedBy: string | null }[] = [
    { case: "an EVM wallet: eip191, issued by the member", w: evm, scheme: "eip191", issuedBy: "mem_1" },
    { case: "a bitcoin P2PKH wallet: bip137, issued from the CLI without a member", w: { ...evm, network: "bitcoin", address: "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2" }, scheme: "bip137", issuedBy: null },
  ];
  for (const o of outcomes)
    test(o.case, () => {
      const d = decideChallenge(o.w, { issuer: "Acme\nLtd", issuedBy: o.issuedBy, id: "chl_1", nonce: "abc123" }, NOW);
      if (!d.ok) throw new Error(d.reason);
      const expiresAt = new Date(NOW + CHALLENGE_TTL_MS).toISOString();
      expect(d.value.scheme).toBe(o.scheme as never);
      expect(d.value.challenge).toEqual({
        id: "chl_1",
        walletId: o.w.id,
        companyId: "cmp_1",
        environment: "live",
        address: o.w.address,
        message: [
          "Wallet ownership proof for Acme Ltd",
          "",
          "I control this address. Signing this message moves no funds.",
          "",
          `Wallet: ${o.w.id}`,
          `Address: ${o.w.address}`,
          `Network: ${o.w.network}`,
          "Nonce: abc123",
          `Expires: ${expiresAt}`,
        ].join("\n"),
        nonce: "abc123",
        issuedBy: o.issuedBy,
        createdAt: AT,
        expiresAt,
        usedAt: null,
        proofId: null,
      });
    });
});

describe("decideAttestation", () => {
  const refusals: { case: string; note: string; by: string | null | undefined; reason: string }[] = [
    { case: "no member (the CLI without --member)", note: "met them", by: null, reason: "An attestation is recorded by a member" },
    { case: "no member, undefined", note: "met them", by: undefined, reason: "An attestation is recorded by a member" },
    { case: "a blank note", note: "  \n ", by: "mem_officer", reason: "An attestation needs a note saying how ownership was established" },
  ];
  for (const r of refusals)
    test(`refused: ${r.case}`, () => {
      expect(decideAttestation(solana, { note: r.note, expiresAt: null, recordedBy: r.by }, "prf_1", NOW)).toEqual({ ok: false, reason: r.reason });
    });

  for (const expiresAt of [null, "2026-06-01T00:00:00.000Z"])
    test(`a valid attestation by the member, its note left to the caller to seal (expiry ${expiresAt ?? "none"})`, () => {
      expect(decideAttestation(solana, { note: "video call", expiresAt, recordedBy: "mem_officer" }, "prf_1", NOW)).toEqual({
        ok: true,
        value: {
          id: "prf_1",
          walletId: "wal_2",
          companyId: "cmp_1",
          environment: "live",
          type: "attestation",
          status: "valid",
          recordedBy: "mem_officer",
          recordedAt: AT,
          evidence: null,
          noteSealed: null,
          expiresAt,
          revokedAt: null,
          revokedBy: null,
          challengeId: null,
        },
      });
    });
});

describe("decideRevocation", () => {
  const proof = (o: Partial<WalletProof>): WalletProof => ({
    id: "prf_1",
    walletId: "wal_2",
    companyId: "cmp_1",
    environment: "live",
    type: "attestation",
    status: "valid",
    recordedBy: "mem_officer",
    recordedAt: "2026-02-01T00:00:00.000Z",
    evidence: null,
    noteSealed: "sealed",
    expiresAt: null,
    revokedAt: null,
    revokedBy: null,
    challengeId: null,
    ...o,
  });
  const cases: { case: string; p: WalletProof | undefined; want: unknown }[] = [
    { case: "none with that ID", p: undefined, want: { ok: false, reason: "no proof with id prf_1" } },
    { case: "already revoked", p: proof({ status: "revoked" }), want: { ok: false, reason: "proof prf_1 is already revoked; only a valid proof can be revoked" } },
    { case: "marked expired", p: proof({ status: "expired", expiresAt: "2026-02-02T00:00:00.000Z" }), want: { ok: false, reason: "proof prf_1 is already expired (at 2026-02-02T00:00:00.000Z); only a valid proof can be revoked" } },
    {
      case: "valid but past its expiry (the sweep has not marked it yet)",
      p: proof({ expiresAt: AT }),
      want: { ok: false, reason: `proof prf_1 is already expired (at ${AT}); only a valid proof can be revoked` },
    },
    { case: "valid, no expiry: revocable", p: proof({}), want: { ok: true, value: proof({}) } },
    { case: "valid, expiring later: revocable", p: proof({ expiresAt: "2026-03-01T10:00:00.001Z" }), want: { ok: true, value: proof({ expiresAt: "2026-03-01T10:00:00.001Z" }) } },
  ];
  for (const c of cases)
    test(c.case, () => {
      expect(decideRevocation(c.p, "prf_1", NOW)).toEqual(c.want as never);
    });
});
