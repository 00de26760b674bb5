// The wallet proofs port (src/ports/proofs.ts), as every engine must keep it: challenges and proofs in and out as
// records (evidence parsed, the note sealed as given), a signed proof checked against the wallet's stored challenges
// and its challenge spent once, a wallet's `verified` following its proofs through recording, revocation and
// expiry, and the sweep's list of wallets whose proofs expired.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import { iso } from "../../../src/domain/ids.ts";
import { decideAttestation, decideChallenge, decideRevocation, evmAddressOf, personalMessageHash, type WalletProof } from "../../../src/domain/proofs/index.ts";
import { toChecksumAddress } from "../../../src/domain/networks/evm.ts";
import { noteAad } from "../../../src/ports/proofs.ts";
import type { Wallet } from "../../../src/ports/wallets.ts";
import { newCustomer } from "./customers.ts";
import { newWallet } from "./wallets.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

const signEvm = (sk: Uint8Array, message: string) => {
  const s = secp256k1.sign(personalMessageHash(message), sk, { prehash: false, format: "recovered" });
  return `0x${bytesToHex(concatBytes(s.subarray(1), Uint8Array.of(27 + s[0])))}`;
};
const evmAddress = (sk: Uint8Array) => toChecksumAddress(evmAddressOf(secp256k1.getPublicKey(sk, false)).slice(2));

export function proofContract(engine: Engine): void {
  describe("wallet proofs", () => {
    let store: OpenedStore;
    let customerId: string;
    const sk = secp256k1.utils.randomSecretKey();
    beforeAll(async () => {
      store = await engine.open(() => NOW);
      const c = newCustomer(store.companyId, "test", NOW);
      await store.repositories.customers.insert(c);
      customerId = c.id;
    });
    afterAll(() => store.close());

    /** A challenge decided as the customer actor decides it, in the issuer name the port reads. */
    async function challengeFor(w: Wallet, issuedBy: string | null, at: number, id: string) {
      return decideChallenge(w, { issuer: await store.repositories.proofs.issuer(w.companyId), issuedBy, id, nonce: `nonce-${id}` }, at);
    }
    /** An attestation decided as the customer actor decides it, its note sealed by the caller. */
    function attestation(w: Wallet, o: { expiresAt: string | null; id: string; sealed: (id: string) => string }, at: number): WalletProof {
      const d = decideAttestation(w, { note: "met the customer", expiresAt: o.expiresAt, recordedBy: "mem_officer" }, o.id, at);
      if (!d.ok) throw new Error(d.reason);
      return { ...d.value, noteSealed: o.sealed(d.value.id) };
    }

    async function wallet(at: number, o: Partial<Wallet> = {}): Promise<Wallet> {
      const w = newWallet(store.companyId, "test", customerId, at, o);
      await store.repositories.wallets.insert(w);
      return w;
    }

    test("a decided challenge is stored and read back as the same record; a signed proof spends it once and verifies the wallet", async () => {
      const p = store.repositories.proofs;
      const w = await wallet(NOW + 1, { address: evmAddress(sk), network: "base" });
      expect(await p.wallet(store.companyId, w.id)).toEqual(w);
      expect(await p.wallet("com_other", w.id)).toBeUndefined();
      const plan = await challengeFor(w, "mem_1", NOW + 2, "chl_contract1");
      if (!plan.ok) throw new Error(plan.reason);
      const { challenge } = plan.value;
      expect(plan.value.scheme).toBe("eip191");
      expect(challenge).toMatchObject({ walletId: w.id, companyId: store.companyId, environment: "test", address: w.address, issuedBy: "mem_1", createdAt: iso(NOW + 2), usedAt: null, proofId: null });
      expect(challenge.message).toContain(w.id);
      expect(challenge.message).toContain(w.address);
      // Issued in the company's name; a company the store does not know reads as Caravan.
      expect(await p.issuer(store.companyId)).toBe((await store.repositories.tenancy.requireCompany("default")).name);
      expect(await p.issuer("com_unknown")).toBe("Caravan");
      await p.insertChallenge(challenge);
      expect(await p.challenge(store.companyId, challenge.id)).toEqual(challenge);
      expect(await p.challenge(store.companyId, "chl_unknown")).toBeUndefined();
      expect(await p.challengesOf(w.id)).toEqual([challenge]);

      const signature = signEvm(sk, challenge.message);
      const proof = await p.planSignedProof(w, { signature, challengeId: null, expiresAt: null, recordedBy: null }, NOW + 3);
      if (!proof.ok) throw new Error(proof.reason);
      expect(proof.value).toMatchObject({ walletId: w.id, type: "eip191", status: "valid", challengeId: challenge.id, recordedAt: iso(NOW + 3), noteSealed: null });
      expect(proof.value.evidence).toEqual({ scheme: "eip191", challengeId: challenge.id, message: challenge.message, signature, signer: w.address.toLowerCase() });
      const v = await store.store.transaction(() => p.record(proof.value, NOW + 3));
      expect(v).toEqual({ verified: true, verifiedAt: iso(NOW + 3), expire: [] });
      expect(await p.get(store.companyId, proof.value.id)).toEqual(proof.value);
      expect(await p.get(store.companyId, "prf_unknown")).toBeUndefined();
      expect(await p.challenge(store.companyId, challenge.id)).toEqual({ ...challenge, usedAt: iso(NOW + 3), proofId: proof.value.id });
      expect(await store.repositories.wallets.get(store.companyId, "test", w.id)).toEqual({ ...w, verified: true, verifiedAt: iso(NOW + 3), updatedAt: iso(NOW + 3) });
      // The same signature again: its challenge is spent.
      const again = await p.planSignedProof(w, { signature, challengeId: null, expiresAt: null, recordedBy: null }, NOW + 4);
      expect(again.ok).toBe(false);
      if (!again.ok) expect(again.reason).toMatch(/already used/);
      // Recording a second proof of a challenge spent meanwhile is refused, and its transaction leaves nothing.
      await expect(store.store.transaction(() => p.record({ ...proof.value, id: "prf_second" }, NOW + 4))).rejects.toThrow();
      expect(await p.get(store.companyId, "prf_second")).toBeUndefined();
      expect((await p.challenge(store.companyId, challenge.id))!.proofId).toBe(proof.value.id);
    });

    test("an attestation keeps its sealed note; revoking the only valid proof unverifies the wallet, and a revoked proof cannot be revoked again", async () => {
      const p = store.repositories.proofs;
      const w = await wallet(NOW + 10, { network: "solana", address: "So1anaAddress111" });
      const att = attestation(w, { sealed: (id) => `sealed(${noteAad(id)})`, expiresAt: null, id: "prf_contract1" }, NOW + 11);
      expect(att).toMatchObject({ walletId: w.id, type: "attestation", status: "valid", recordedBy: "mem_officer", evidence: null, challengeId: null, noteSealed: `sealed(wallet_proof:${att.id}:note)` });
      await p.record(att, NOW + 11);
      expect(await p.ofWallet(w.id)).toEqual([att]);
      expect((await store.repositories.wallets.get(store.companyId, "test", w.id))!.verified).toBe(true);
      const plan = decideRevocation(await p.get(store.companyId, att.id), att.id, NOW + 12);
      expect(plan).toEqual({ ok: true, value: att });
      expect(await p.revoke(att.id, w.id, "mem_officer", NOW + 12)).toEqual({ verified: false, verifiedAt: null, expire: [] });
      expect(await p.get(store.companyId, att.id)).toEqual({ ...att, status: "revoked", revokedAt: iso(NOW + 12), revokedBy: "mem_officer" });
      expect(await store.repositories.wallets.get(store.companyId, "test", w.id)).toMatchObject({ verified: false, verifiedAt: null, updatedAt: iso(NOW + 12) });
      const twice = decideRevocation(await p.get(store.companyId, att.id), att.id, NOW + 13);
      expect(twice.ok).toBe(false);
      expect(decideRevocation(await p.get(store.companyId, "prf_unknown"), "prf_unknown", NOW).ok).toBe(false);
    });

    test("proofs are listed newest first; a proof past its expiry is due for the sweep, and the refresh expires it and unverifies the wallet", async () => {
      const p = store.repositories.proofs;
      const w = await wallet(NOW + 20, { network: "solana", address: "So1anaAddress222" });
      const older = attestation(w, { sealed: () => "sealed", expiresAt: iso(NOW + 1000), id: "prf_contract2" }, NOW + 21);
      const newer = attestation(w, { sealed: () => "sealed", expiresAt: iso(NOW + 2000), id: "prf_contract3" }, NOW + 22);
      await p.record(older, NOW + 21);
      await p.record(newer, NOW + 22);
      expect((await p.ofWallet(w.id)).map((x) => x.id)).toEqual([newer.id, older.id]);
      expect((await p.dueForExpiry(NOW + 500)).map((d) => d.walletId)).not.toContain(w.id);
      expect(await p.dueForExpiry(NOW + 1500)).toContainEqual({ walletId: w.id, customerId, companyId: store.companyId, environment: "test" });
      const half = await p.refresh(w.id, NOW + 1500);
      expect(half).toEqual({ verified: true, verifiedAt: iso(NOW + 22), expire: [older.id] });
      expect((await p.get(store.companyId, older.id))!.status).toBe("expired");
      const all = await p.refresh(w.id, NOW + 2500);
      expect(all).toEqual({ verified: false, verifiedAt: null, expire: [newer.id] });
      expect(await store.repositories.wallets.get(store.companyId, "test", w.id)).toMatchObject({ verified: false, verifiedAt: null, updatedAt: iso(NOW + 2500) });
      expect((await p.dueForExpiry(NOW + 2500)).map((d) => d.walletId)).not.toContain(w.id);
    });

    test("removing a wallet removes its challenges and proofs", async () => {
      const p = store.repositories.proofs;
      const w = await wallet(NOW + 30, { address: evmAddress(secp256k1.utils.randomSecretKey()), network: "ethereum" });
      const plan = await challengeFor(w, null, NOW + 31, "chl_contract2");
      if (!plan.ok) throw new Error(plan.reason);
      await p.insertChallenge(plan.value.challenge);
      const att = attestation(w, { sealed: () => "sealed", expiresAt: null, id: "prf_contract4" }, NOW + 32);
      await p.record(att, NOW + 32);
      await store.repositories.wallets.delete(w.id);
      expect(await p.wallet(store.companyId, w.id)).toBeUndefined();
      expect(await p.challengesOf(w.id)).toEqual([]);
      expect(await p.ofWallet(w.id)).toEqual([]);
      expect(await p.get(store.companyId, att.id)).toBeUndefined();
    });
  });
}
