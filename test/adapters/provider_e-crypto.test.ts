// provider_e crypto proven byte-exact against the provider's official utility `@sygna/bridge-util`, both ways.
// Under bun, node:crypto has no secp256k1 ECDH: that one step is supplied from @noble/curves; the utility's own code
// runs for everything else (SHA-512 split, AES-256-CBC, HMAC-SHA1, layout, secp256k1 signatures via its `secp256k1`).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { createRequire } from "node:module";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { BridgeUtil } from "../../src/sandbox/provider_e/sygna.ts";
import { decryptObject, ecdhSecret, eciesDecrypt, eciesEncrypt, encryptObject, publicKeyOf, signObject, signText, verifyObject } from "../../src/adapters/providers/provider_e/crypto.ts";

setDefaultTimeout(60_000);
const require = createRequire(import.meta.url);
const nodeCrypto = require("crypto") as { createECDH: (curve: string) => unknown };
const util = require("@sygna/bridge-util") as BridgeUtil;

/** node:crypto's ECDH on secp256k1, from noble, with a chosen ephemeral key for the utility's encrypt. */
let nextEphemeral: string | null = null;
const original = nodeCrypto.createECDH;
nodeCrypto.createECDH = (curve: string) => {
  if (curve !== "secp256k1") return original(curve);
  let priv: Uint8Array | null = null;
  return {
    generateKeys() {
      priv = nextEphemeral ? hexToBytes(nextEphemeral) : secp256k1.utils.randomSecretKey();
      nextEphemeral = null;
    },
    setPrivateKey(k: Uint8Array) {
      priv = new Uint8Array(k);
    },
    getPublicKey() {
      return Buffer.from(secp256k1.getPublicKey(priv!, false));
    },
    computeSecret(pub: Uint8Array) {
      return Buffer.from(ecdhSecret(priv!, new Uint8Array(pub)));
    },
  };
};

const ALICE = "8f6b3c1a0a7e5f2d4c9b8a7f6e5d4c3b2a19081726354453627180f9e8d7c6b5";
const BOB = "1d5e2c8b9a0f7e6d5c4b3a29181716151413121110f0e0d0c0b0a09080706050";
const EPH = "3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d";

describe("provider_e signatures (secp256k1 over JSON with an empty signature)", () => {
  const permissionRequest = {
    private_info: "04abcdef",
    transaction: {
      originator_vasp_code: "CARAVANAA",
      originator_addrs: ["0x1111111111111111111111111111111111111111"],
      beneficiary_vasp_code: "BENEFVASP",
      beneficiary_addrs: ["0x2222222222222222222222222222222222222222"],
      transaction_currency: "sygna:0x80000000",
      amount: "1.5",
    },
    data_dt: "2026-01-02T03:04:05.678Z",
    expire_date: 1767326645678,
  };

  test("our signature equals the utility's byte for byte (RFC 6979, low S) for each signed shape", () => {
    const shapes: Record<string, unknown>[] = [
      permissionRequest,
      { callback_url: "https://caravan.example/api/system/trp/provider_e/test/p/permission?t=1" },
      { transfer_id: "ab".repeat(32), permission_status: "ACCEPTED", expire_date: 1767326645678 },
      { transfer_id: "ab".repeat(32), permission_status: "REJECTED", reject_code: "BVRC999", reject_message: "Declined" },
      { transfer_id: "ab".repeat(32), txid: "cd".repeat(32) },
      { name: "Zoë 名前 ✓", nested: { b: 1, a: [1, "2"] } },
    ];
    for (const s of shapes) {
      const theirs = util.crypto.signObject(structuredClone(s), ALICE);
      const ours = signObject(structuredClone(s), ALICE);
      expect(ours.signature).toBe(theirs.signature as string);
      expect(ours.signature).toMatch(/^[0-9a-f]{128}$/);
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
    }
  });

  test("the utility's named signers match ours (permission request, permission, txid, callback)", () => {
    expect(signObject(structuredClone(permissionRequest), BOB).signature).toBe(util.crypto.signPermissionRequest(structuredClone(permissionRequest), BOB).signature as string);
    const perm = { transfer_id: "ef".repeat(32), permission_status: "ACCEPTED" };
    expect(signObject({ ...perm }, BOB).signature).toBe(util.crypto.signPermission({ ...perm }, BOB).signature as string);
    const tx = { transfer_id: "ef".repeat(32), txid: "01".repeat(32) };
    expect(signObject({ ...tx }, BOB).signature).toBe(util.crypto.signTxId({ ...tx }, BOB).signature as string);
    const cb = { callback_url: "https://x.example/cb" };
    expect(signObject({ ...cb }, BOB).signature).toBe(util.crypto.signCallBack({ ...cb }, BOB).signature as string);
  });

  test("the utility verifies ours and we verify the utility's; a changed field, key order or key fails", () => {
    const ours = signObject(structuredClone(permissionRequest), ALICE);
    expect(util.crypto.verifyObject(ours, publicKeyOf(ALICE))).toBe(true);
    const theirs = util.crypto.signObject(structuredClone(permissionRequest), BOB);
    expect(verifyObject(theirs, publicKeyOf(BOB))).toBe(true);
    expect(verifyObject(theirs, publicKeyOf(ALICE))).toBe(false);
    expect(verifyObject({ ...theirs, data_dt: "2026-01-02T03:04:05.679Z" }, publicKeyOf(BOB))).toBe(false);
    // Key order matters: the same fields in another order are other bytes.
    const { private_info, ...rest } = theirs;
    expect(verifyObject({ ...rest, private_info }, publicKeyOf(BOB))).toBe(false);
    expect(verifyObject({ ...theirs, signature: "00".repeat(64) }, publicKeyOf(BOB))).toBe(false);
    expect(verifyObject({ ...theirs, signature: "zz" }, publicKeyOf(BOB))).toBe(false);
  });

  test("a high-S form of a valid signature verifies (the utility normalises S before verifying)", () => {
    const text = JSON.stringify({ a: 1, signature: "" });
    const sig = secp256k1.Signature.fromBytes(hexToBytes(signText(text, ALICE)));
    const high = new secp256k1.Signature(sig.r, secp256k1.Point.CURVE().n - sig.s);
    const obj = { a: 1, signature: bytesToHex(high.toBytes()) };
    expect(util.crypto.verifyObject(obj, publicKeyOf(ALICE))).toBe(true);
    expect(verifyObject(obj, publicKeyOf(ALICE))).toBe(true);
  });

  test("known vector: public key of a private key is uncompressed 04‖x‖y (130 hex)", () => {
    expect(publicKeyOf(ALICE)).toMatch(/^04[0-9a-f]{128}$/);
    expect(publicKeyOf(ALICE)).toBe(bytesToHex(secp256k1.getPublicKey(hexToBytes(ALICE), false)));
  });
});

describe("provider_e ECIES (SHA-512 split, AES-256-CBC zero IV, HMAC-SHA1 before decrypting)", () => {
  const message = { ivms101: { Originator: { originatorPersons: [{ naturalPerson: { name: [{ nameIdentifier: [{ primaryIdentifier: "Müller", secondaryIdentifier: "Zoë" }] }] } }] } } };

  test("known answer: with the same ephemeral key our ciphertext equals the utility's byte for byte", () => {
    for (const text of ["", "a", "x".repeat(16), JSON.stringify(message), "名前 ✓".repeat(50)]) {
      nextEphemeral = EPH;
      const theirs = util.crypto.encryptPrivateObj(text, publicKeyOf(BOB));
      const ours = eciesEncrypt(text, publicKeyOf(BOB), EPH);
      expect(ours).toBe(theirs);
      expect(ours.slice(0, 130)).toBe(publicKeyOf(EPH));
    }
  });

  test("the utility decrypts ours; we decrypt the utility's", () => {
    const ours = encryptObject(message, publicKeyOf(BOB));
    expect(util.crypto.decryptPrivateObj(ours, BOB)).toEqual(message);
    const theirs = util.crypto.encryptPrivateObj(message, publicKeyOf(ALICE));
    expect(decryptObject(theirs, ALICE)).toEqual(message);
  });

  test("a changed MAC, ciphertext or key fails before decrypting (null, never a guess)", () => {
    const ct = eciesEncrypt("secret text of some length", publicKeyOf(BOB));
    expect(eciesDecrypt(ct, BOB)).toBe("secret text of some length");
    const flip = (hex: string, at: number) => hex.slice(0, at) + ((parseInt(hex[at], 16) ^ 1).toString(16)) + hex.slice(at + 1);
    expect(eciesDecrypt(flip(ct, 140), BOB)).toBeNull(); // MAC
    expect(eciesDecrypt(flip(ct, ct.length - 1), BOB)).toBeNull(); // ciphertext
    expect(eciesDecrypt(ct, ALICE)).toBeNull(); // another key
    expect(eciesDecrypt("zz", BOB)).toBeNull();
    expect(util.crypto.decryptPrivateObj(flip(ct, 140), BOB)).toBe(false);
  });
});
