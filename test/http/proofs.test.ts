// Wallet ownership proofs end to end: recorded with the CLI beside a running server, seen through the wallet API.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, ISO_MS } from "../support/api.ts";
import { bitcoinAddressOf, bitcoinMessageHash, evmAddressOf, personalMessageHash } from "../../src/domain/proofs/index.ts";
import { toChecksumAddress } from "../../src/domain/networks/evm.ts";
import { startService, type RunningService } from "../../src/services.ts";
import { newId } from "../../src/domain/ids.ts";
import type { Outcome } from "../../src/actors/customer.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "proofs.db");
const client = apiClient(db, () => S.url);
const { cli, call } = client;
let S: ChildServer;
let key: string;

const signEvm = (sk: Uint8Array, message: string) => {
  const s = secp256k1.sign(personalMessageHash(message), sk, { prehash: false, format: "recovered" });
  return `0x${bytesToHex(concatBytes(s.subarray(1), Uint8Array.of(27 + s[0])))}`;
};
const signBtc = (sk: Uint8Array, message: string) => {
  const s = secp256k1.sign(bitcoinMessageHash(message), sk, { prehash: false, format: "recovered" });
  return base64.encode(concatBytes(Uint8Array.of(39 + s[0]), s.subarray(1)));
};
const evmAddress = (sk: Uint8Array) => toChecksumAddress(evmAddressOf(secp256k1.getPublicKey(sk, false)).slice(2));

/** A CLI refusal: exit 1 and exactly one line on stderr. */
async function refused(args: string[], pattern: RegExp) {
  const r = await runCli(["wallets", ...args], { CARAVAN_DB: db });
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
}
const wallets = async (...args: string[]) => JSON.parse(await cli("wallets", ...args, "--json"));
const wallet = async (id: string) => (await call(`/api/v2/wallets/${id}`, { key })).body.data;
const verify = async (address: string, network?: string) => (await call("/api/v2/wallets/verify", { method: "POST", key, json: { address, network } })).body.data;
const rows = (sql: string, ...args: string[]) => {
  const d = new Database(db, { readonly: true });
  try {
    return d.query(sql).all(...args) as Record<string, unknown>[];
  } finally {
    d.close();
  }
};
function setColumn(sql: string, ...args: string[]) {
  const d = new Database(db);
  try {
    d.exec("PRAGMA busy_timeout = 5000");
    d.query(sql).run(...args);
  } finally {
    d.close();
  }
}

const skA = secp256k1.utils.randomSecretKey();
const skB = secp256k1.utils.randomSecretKey();
const skC = secp256k1.utils.randomSecretKey();
const addrA = evmAddress(skA);
const addrB = evmAddress(skB);
const addrC = bitcoinAddressOf("p2wpkh", secp256k1.getPublicKey(skC, true));
let A: string, B: string, C: string, D: string;
const OFFICER = "officer@acme.test";

beforeAll(async () => {
  S = await startServer({ CARAVAN_DB: db });
  key = (await client.newKey("--env", "test", "--role", "owner")).key;
  await cli("members", "create", "--email", OFFICER, "--role", "compliance_officer");
  await cli("members", "create", "--email", "analyst@acme.test", "--role", "analyst");
  await cli("members", "create", "--email", "gone@acme.test", "--role", "compliance_officer");
  await cli("members", "disable", "--email", "gone@acme.test");
  const cus = (await call("/api/v2/customers", { method: "POST", key, json: { externalId: "proofs-1", name: "Jane van Dyke" } })).body.data.id;
  const add = async (network: string, address: string) => (await call("/api/v2/wallets", { method: "POST", key, json: { customerId: cus, network, address } })).body.data.id as string;
  A = await add("ethereum", addrA);
  B = await add("polygon", addrB.toLowerCase());
  C = await add("bitcoin", addrC);
  D = await add("solana", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
});
afterAll(async () => {
  await S?.stop();
});

describe("signed-message proofs", () => {
  test("a challenge names the wallet, address, network, a nonce and an expiry 15 minutes out", async () => {
    const before = Date.now();
    const c = await wallets("challenge", "--id", A);
    expect(c).toMatchObject({ id: expect.stringMatching(/^chl_/), walletId: A, address: addrA, network: "ethereum", scheme: "eip191" });
    expect(c.message).toContain(`Wallet: ${A}\nAddress: ${addrA}\nNetwork: ethereum\nNonce: `);
    expect(c.message).toMatch(/\nNonce: [0-9a-f]{32}\nExpires: /);
    expect(c.message.endsWith(`Expires: ${c.expiresAt}`)).toBe(true);
    const ttl = Date.parse(c.expiresAt) - before;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 60_000);
    const human = await cli("wallets", "challenge", "--id", A);
    expect(human).toContain(`-----\n${human.split("-----\n")[1]}`);
    expect(human).toContain(`wallets prove --id ${A} --signature <signature>`);
  });

  test("EIP-191: the wallet's key proves it; verified and verifiedAt appear in the API at once", async () => {
    expect(await wallet(A)).toMatchObject({ verified: false, verifiedAt: null });
    const c = await wallets("challenge", "--id", A);
    const r = await wallets("prove", "--id", A, "--signature", signEvm(skA, c.message));
    expect(r.proof).toMatchObject({ type: "eip191", status: "valid", challengeId: c.id, signer: addrA.toLowerCase(), recordedBy: null, expiresAt: null });
    expect(r.wallet).toMatchObject({ id: A, verified: true, verifiedAt: r.proof.recordedAt });
    const w = await wallet(A);
    expect(w).toMatchObject({ verified: true, verifiedAt: r.proof.recordedAt });
    expect(w.verifiedAt).toMatch(ISO_MS);
    expect(await verify(addrA.toLowerCase())).toEqual({ isRegistered: true, isVerified: true, walletType: "hosted", customerId: w.customerId });
    expect(await verify(addrA, "polygon")).toMatchObject({ isVerified: false });
  });

  test("BIP-137: a P2WPKH signature proves a bitcoin wallet (human output)", async () => {
    const c = await wallets("challenge", "--id", C);
    expect(c.scheme).toBe("bip137");
    const out = await cli("wallets", "prove", "--id", C, "--signature", signBtc(skC, c.message), "--member", OFFICER);
    expect(out).toMatch(new RegExp(`^Wallet ${C}: ownership proven by a bip137 signature of ${addrC} \\(proof prf_[0-9a-z]+\\); verified`));
    expect(await wallet(C)).toMatchObject({ verified: true });
    expect((await verify(addrC.toUpperCase(), "bitcoin")).isVerified).toBe(true);
  });

  test("a replayed challenge is refused", async () => {
    const c = await wallets("challenge", "--id", B);
    const sig = signEvm(skB, c.message);
    await wallets("prove", "--id", B, "--signature", sig);
    await refused(["prove", "--id", B, "--signature", sig], new RegExp(`caravan: challenge ${c.id} was already used \\(proof prf_\\w+ at .*\\): a replayed challenge is refused`));
    await refused(["prove", "--id", B, "--signature", sig, "--challenge", c.id], /already used/);
  });

  test("a wrong signer is refused, naming who signed", async () => {
    const c = await wallets("challenge", "--id", B);
    await refused(["prove", "--id", B, "--signature", signEvm(skA, c.message)], new RegExp(`not made by ${addrB} over wallet ${B}'s challenge ${c.id} \\(it recovers to ${addrA.toLowerCase()}\\)`));
    await refused(["prove", "--id", B, "--signature", signEvm(skA, c.message), "--challenge", c.id], new RegExp(`made by ${addrA.toLowerCase()}, not by the wallet's address`));
  });

  test("a signature over another wallet's challenge is refused", async () => {
    const cB = await wallets("challenge", "--id", B);
    await wallets("challenge", "--id", A);
    // A's key signs B's challenge, then it is offered for A; and B's own signature is offered for A.
    await refused(["prove", "--id", A, "--signature", signEvm(skA, cB.message)], new RegExp(`answers challenge ${cB.id}, issued for wallet ${B}, not for wallet ${A}`));
    await refused(["prove", "--id", A, "--signature", signEvm(skB, cB.message)], new RegExp(`issued for wallet ${B}, not for wallet ${A}`));
    await refused(["prove", "--id", A, "--signature", signEvm(skA, cB.message), "--challenge", cB.id], new RegExp(`${cB.id} was issued for wallet ${B}, not ${A}`));
  });

  test("an expired challenge is refused", async () => {
    const c = await wallets("challenge", "--id", B);
    setColumn("UPDATE wallet_challenges SET expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), c.id);
    await refused(["prove", "--id", B, "--signature", signEvm(skB, c.message)], new RegExp(`challenge ${c.id} expired at .*; issue a new one with "wallets challenge --id ${B}"`));
  });

  test.each([
    ["a malformed signature", ["prove", "--id", "A", "--signature", "0x1234"], /65 bytes as hex/],
    ["a network without a signed-message scheme", ["challenge", "--id", "D"], /not available for solana wallets; record an officer attestation instead/],
    ["an unknown wallet", ["challenge", "--id", "wal_unknown"], /no wallet with id wal_unknown/],
    ["an analyst as --member", ["challenge", "--id", "A", "--member", "analyst@acme.test"], /role analyst, which may not verify wallets \(wallets:verify\)/],
  ])("refused: %s", async (_n, args, pattern) => {
    await refused(args.map((a) => ({ A, D })[a as "A" | "D"] ?? a), pattern);
  });
});

describe("officer attestations", () => {
  test("an attestation by a member who may verify flips verified; its revocation flips it back", async () => {
    expect(await wallet(D)).toMatchObject({ verified: false, verifiedAt: null });
    const r = await wallets("attest", "--id", D, "--note", "Hosted: company omnibus wallet, checked by Jane van Dyke", "--member", OFFICER);
    expect(r.proof).toMatchObject({ type: "attestation", status: "valid", recordedBy: expect.stringMatching(/^mem_/), note: "Hosted: company omnibus wallet, checked by Jane van Dyke" });
    expect(await wallet(D)).toMatchObject({ verified: true, verifiedAt: r.proof.recordedAt });
    expect((await verify("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")).isVerified).toBe(true);

    const out = await cli("wallets", "revoke-proof", "--id", r.proof.id, "--member", OFFICER);
    expect(out).toBe(`Proof ${r.proof.id} revoked; wallet ${D} is not verified`);
    expect(await wallet(D)).toMatchObject({ verified: false, verifiedAt: null });
    expect((await verify("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")).isVerified).toBe(false);
    await refused(["revoke-proof", "--id", r.proof.id], new RegExp(`proof ${r.proof.id} is already revoked`));
  });

  test("verifiedAt is the latest valid proof's time: revoking the newer proof falls back to the older", async () => {
    const before = await wallet(A);
    const newer = await wallets("attest", "--id", A, "--note", "test transfer of 0.001 ETH received", "--member", OFFICER);
    expect(newer.wallet.verifiedAt).toBe(newer.proof.recordedAt);
    expect((await wallet(A)).verifiedAt).toBe(newer.proof.recordedAt);
    const back = await wallets("revoke-proof", "--id", newer.proof.id);
    expect(back.wallet).toMatchObject({ verified: true, verifiedAt: before.verifiedAt });
    expect(await wallet(A)).toMatchObject({ verified: true, verifiedAt: before.verifiedAt });
  });

  test.each([
    ["without --member", [], /--member <email> is required/],
    ["by an analyst", ["--member", "analyst@acme.test"], /may not verify wallets/],
    ["by a disabled member", ["--member", "gone@acme.test"], /member gone@acme.test is disabled/],
    ["by an unknown member", ["--member", "who@acme.test"], /no member with email who@acme.test/],
    ["with an expiry in the past", ["--member", OFFICER, "--expires", "2020-01-01"], /--expires 2020-01-01 is not in the future/],
  ])("refused: an attestation %s", async (_n, extra, pattern) => {
    await refused(["attest", "--id", D, "--note", "n", ...extra], pattern);
  });

  test("a proof past its expiry stops counting at once when read (API and CLI); the sweep then records it expired and audits it", async () => {
    const expires = new Date(Date.now() + 6000).toISOString();
    const r = await wallets("attest", "--id", D, "--note", "temporary custody", "--member", OFFICER, "--expires", expires);
    expect(r.proof.expiresAt).toBe(expires);
    expect((await wallet(D)).verified).toBe(true);
    let w = await wallet(D);
    for (let i = 0; i < 120 && w.verified; i++) {
      await Bun.sleep(500);
      w = await wallet(D);
    }
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expires));
    expect(w).toMatchObject({ verified: false, verifiedAt: null });
    // The expiry sweep (every 5 s) marks the proof expired and audits it.
    let audited: unknown[] = [];
    for (let i = 0; i < 60 && audited.length === 0; i++) {
      audited = (await call(`/api/v2/audit-log?entityId=${D}&action=wallet.proof_expired`, { key })).body.data;
      if (audited.length === 0) await Bun.sleep(250);
    }
    const list = await wallets("proofs", "--id", D);
    expect(list.wallet).toMatchObject({ verified: false, verifiedAt: null });
    expect(list.proofs.map((p: { status: string }) => p.status)).toEqual(["expired", "revoked"]);
    const audit = (await call(`/api/v2/audit-log?entityId=${D}&action=wallet.proof_expired`, { key })).body.data;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: { type: "system" }, detail: { proofId: r.proof.id, verified: false } });
  });

  test("the note is sealed at rest and shown by wallets proofs", async () => {
    const raw = readFileSync(db);
    expect(raw.includes(Buffer.from("temporary custody"))).toBe(false);
    expect(raw.includes(Buffer.from("checked by Jane van Dyke"))).toBe(false);
    const sealed = rows("SELECT note_sealed FROM wallet_proofs WHERE wallet_id = ? AND type = 'attestation'", D);
    for (const r of sealed) expect(String(r.note_sealed)).toMatch(/^v1:/);
    const human = await cli("wallets", "proofs", "--id", D);
    expect(human.split("\n")[0]).toBe(`Wallet ${D} TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA (solana, test): not verified`);
    expect(human).toContain("note: temporary custody");
  });
});

describe("audit and deletion", () => {
  test("every change is audited under the wallet, without personal data", async () => {
    const entries = (await call(`/api/v2/audit-log?entityId=${A}&limit=200`, { key })).body.data as { action: string; detail: object }[];
    const actions = new Set(entries.map((e) => e.action));
    for (const a of ["wallet.challenge_issued", "wallet.proof_recorded", "wallet.proof_revoked"]) expect(actions).toContain(a);
    const text = JSON.stringify(entries);
    expect(text).not.toContain("test transfer");
    const recorded = entries.find((e) => e.action === "wallet.proof_recorded" && (e.detail as { type: string }).type === "eip191");
    expect(recorded?.detail).toEqual({ proofId: expect.stringMatching(/^prf_/), type: "eip191", expiresAt: null, verified: true });
    const attested = entries.find((e) => e.action === "wallet.proof_recorded" && (e.detail as { type: string }).type === "attestation") as unknown as { actor: object };
    expect(attested.actor).toMatchObject({ type: "member", memberId: expect.stringMatching(/^mem_/) });
  });

  test("the CLI's changes are audited by who acts (--member, else the system), an expiry the change found before it", async () => {
    const officerId = rows("SELECT id FROM members WHERE email = ?", OFFICER)[0].id;
    const system = { type: "system", memberId: null, apiKeyId: null };
    const entriesOf = async () => ((await call(`/api/v2/audit-log?entityId=${C}&limit=200`, { key })).body.data as { id: string; action: string; actor: object; detail: object }[]).reverse();
    const seen = new Set((await entriesOf()).map((e) => e.id));
    const proven = (await entriesOf()).find((e) => e.action === "wallet.proof_recorded");
    expect(proven?.actor).toEqual({ type: "member", memberId: officerId, apiKeyId: null });

    const c = await wallets("challenge", "--id", C);
    const signed = rows("SELECT id FROM wallet_proofs WHERE wallet_id = ? AND type = 'bip137'", C)[0].id as string;
    setColumn("UPDATE wallet_proofs SET expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), signed);
    const att = await wallets("attest", "--id", C, "--note", "checked by phone", "--member", OFFICER);
    const back = await wallets("revoke-proof", "--id", att.proof.id);
    expect(back.proof).toMatchObject({ id: att.proof.id, status: "revoked", revokedBy: null });
    expect(back.wallet).toMatchObject({ verified: false, verifiedAt: null });

    const fresh = (await entriesOf()).filter((e) => !seen.has(e.id)).map(({ action, actor, detail }) => ({ action, actor, detail }));
    expect(fresh).toEqual([
      { action: "wallet.challenge_issued", actor: system, detail: { challengeId: c.id, expiresAt: c.expiresAt } },
      { action: "wallet.proof_expired", actor: system, detail: { proofId: signed, verified: true } },
      { action: "wallet.proof_recorded", actor: { type: "member", memberId: officerId, apiKeyId: null }, detail: { proofId: att.proof.id, type: "attestation", expiresAt: null, verified: true } },
      { action: "wallet.proof_revoked", actor: system, detail: { proofId: att.proof.id, type: "attestation", verified: false } },
    ]);
  });

  test("deleting a wallet removes its proofs and challenges; the CLI then finds no wallet", async () => {
    expect(rows("SELECT id FROM wallet_proofs WHERE wallet_id = ?", B).length).toBeGreaterThan(0);
    expect((await call(`/api/v2/wallets/${B}`, { method: "DELETE", key })).status).toBe(200);
    expect(rows("SELECT id FROM wallet_proofs WHERE wallet_id = ?", B)).toEqual([]);
    expect(rows("SELECT id FROM wallet_challenges WHERE wallet_id = ?", B)).toEqual([]);
    await refused(["proofs", "--id", B], new RegExp(`no wallet with id ${B}`));
  });
});

describe("customer actor messages (the server's own path)", () => {
  let svc: RunningService;
  const ask = (customerId: string, msg: Record<string, unknown>, memberId: string | null = null) =>
    svc.runtime.ask<Outcome<any>>(`customer:${customerId}`, { ...msg, companyId, environment: "test", actor: memberId ? { type: "member", memberId } : { type: "system" } });
  let companyId: string;
  let cus: string;
  let wal: string;
  const sk = secp256k1.utils.randomSecretKey();

  beforeAll(async () => {
    svc = await startService({ dbPath: join(dir, "actor.db"), host: "127.0.0.1", port: 0, logLevel: "silent", env: {} });
    companyId = (await svc.tenancy.requireCompany("default")).id;
    cus = newId("cus", Date.now());
    wal = newId("wal", Date.now());
    await ask(cus, { type: "create", input: { externalId: null, name: null, metadata: null, hasMetadata: false } });
    await ask(cus, { type: "registerWallet", walletId: wal, address: evmAddress(sk), network: "base", label: null });
  });
  afterAll(async () => {
    await svc?.stop();
  });
  const walletRow = () => svc.storage.stmt("SELECT verified, verified_at FROM wallets WHERE id = ?").get(wal);

  test("challenge, prove, replay, attest, revoke, expire", async () => {
    const c = await ask(cus, { type: "issueWalletChallenge", walletId: wal });
    if (!c.ok) throw new Error(c.message);
    const signature = signEvm(sk, c.data.challenge.message);
    const proved = await ask(cus, { type: "proveWallet", walletId: wal, signature, challengeId: null, expiresAt: null });
    expect(proved).toMatchObject({ ok: true, status: 201, data: { wallet: { verified: true } } });
    expect(walletRow()).toEqual({ verified: 1, verified_at: proved.ok ? proved.data.proof.recordedAt : "" });
    expect(await ask(cus, { type: "proveWallet", walletId: wal, signature, challengeId: null, expiresAt: null })).toMatchObject({ ok: false, code: "VALIDATION_ERROR", message: expect.stringMatching(/already used/) });

    expect(await ask(cus, { type: "attestWallet", walletId: wal, note: "n", expiresAt: null })).toMatchObject({ ok: false, message: "An attestation is recorded by a member" });
    const member = await svc.tenancy.createMember(companyId, "actor-officer@acme.test", "compliance_officer");
    const att = await ask(cus, { type: "attestWallet", walletId: wal, note: "hosted", expiresAt: new Date(Date.now() + 60_000).toISOString() }, member.id);
    if (!att.ok) throw new Error(att.message);
    expect(walletRow()).toEqual({ verified: 1, verified_at: att.data.proof.recordedAt });

    const first = proved.ok ? proved.data.proof.id : "";
    expect(await ask(cus, { type: "revokeWalletProof", proofId: first }, member.id)).toMatchObject({ ok: true, data: { wallet: { verified: true } } });
    expect(await ask(cus, { type: "revokeWalletProof", proofId: first })).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(await ask(cus, { type: "expireWalletProofs", walletId: wal })).toMatchObject({ ok: true, data: { expired: [] } });
    // Past the attestation's expiry, the sweep's message unverifies the wallet.
    svc.storage.stmt("UPDATE wallet_proofs SET expires_at = ? WHERE id = ?").run(new Date(Date.now() - 1).toISOString(), att.data.proof.id);
    expect(await ask(cus, { type: "expireWalletProofs", walletId: wal })).toMatchObject({ ok: true, data: { expired: [att.data.proof.id], verified: false } });
    expect(walletRow()).toEqual({ verified: 0, verified_at: null });
    expect(await ask(cus, { type: "revokeWalletProof", proofId: "prf_nope" })).toMatchObject({ ok: false, code: "NOT_FOUND" });
  });
});
