// The sandbox bridge's crypto is Sygna's own utility, `@sygna/bridge-util` (sign/verify over JSON with an empty
// signature, Sygna ECIES). The utility computes ECDH through `node:crypto`'s `createECDH("secp256k1")`, which Bun
// does not provide: only that step is supplied here from @noble/curves (installed once, and only when the runtime
// lacks the curve); everything else is the utility's own code. Nothing here is shared with Caravan's service code.
import { createRequire } from "node:module";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
// A static import, so the single binary bundles the utility (a runtime require of a package name is not bundled). It
// reaches node:crypto's ECDH only when it encrypts, after the curve is supplied below.
import bridgeUtil from "@sygna/bridge-util";

const require = createRequire(import.meta.url);

interface NodeEcdh {
  generateKeys(): unknown;
  setPrivateKey(k: Uint8Array): void;
  getPublicKey(): Uint8Array;
  computeSecret(pub: Uint8Array, enc?: null): Uint8Array;
}

/** node:crypto's ECDH on secp256k1 from noble: the x-coordinate of the shared point, as node's computeSecret gives it. */
function nobleEcdh(): NodeEcdh {
  let priv: Uint8Array | null = null;
  return {
    generateKeys() {
      priv = secp256k1.utils.randomSecretKey();
      return Buffer.from(secp256k1.getPublicKey(priv, false));
    },
    setPrivateKey(k: Uint8Array) {
      priv = new Uint8Array(k);
    },
    getPublicKey() {
      return Buffer.from(secp256k1.getPublicKey(priv!, false));
    },
    computeSecret(pub: Uint8Array) {
      return Buffer.from(secp256k1.getSharedSecret(priv!, new Uint8Array(pub), true).slice(1));
    },
  };
}

let installed = false;
/** Supplies secp256k1 ECDH to node:crypto when the runtime lacks it (Bun); a no-op where it works (Node). */
export function ensureSecp256k1Ecdh(): void {
  if (installed) return;
  installed = true;
  const nodeCrypto = require("crypto") as { createECDH: (curve: string) => unknown };
  try {
    (nodeCrypto.createECDH("secp256k1") as NodeEcdh).generateKeys();
    return;
  } catch {
    // the runtime has no secp256k1 ECDH: supply it below
  }
  const original = nodeCrypto.createECDH;
  nodeCrypto.createECDH = (curve: string) => (curve === "secp256k1" ? nobleEcdh() : original(curve));
}

/** The part of the utility's API the bridge and the tests use (it ships no types). */
export interface BridgeUtil {
  crypto: {
    signObject(o: object, k: string): Record<string, unknown>;
    verifyObject(o: object, k: string): boolean;
    signPermissionRequest(o: object, k: string): Record<string, unknown>;
    signPermission(o: object, k: string): Record<string, unknown>;
    signTxId(o: object, k: string): Record<string, unknown>;
    signCallBack(o: object, k: string): Record<string, unknown>;
    encryptPrivateObj(o: unknown, k: string): string;
    decryptPrivateObj(h: string, k: string): unknown;
  };
}

ensureSecp256k1Ecdh();
/** The utility itself, for tests that call it directly. */
export const util = bridgeUtil as unknown as BridgeUtil;

/** The utility's `signObject` on a copy (it writes the signature into the object it is given). */
export function sign<T extends Record<string, unknown>>(obj: T, privateKey: string): T & { signature: string } {
  return util.crypto.signObject(structuredClone(obj), privateKey) as T & { signature: string };
}

/** The utility's `verifyObject`; false for anything it cannot read. */
export function verify(obj: unknown, publicKey: string): boolean {
  if (typeof obj !== "object" || obj === null || typeof (obj as { signature?: unknown }).signature !== "string") return false;
  try {
    return util.crypto.verifyObject(obj, publicKey);
  } catch {
    return false;
  }
}

export const encrypt = (data: unknown, publicKey: string): string => util.crypto.encryptPrivateObj(data as object, publicKey);

/** The utility's `decryptPrivateObj`; null when it does not decrypt (the utility answers `false` or throws). */
export function decrypt(hex: string, privateKey: string): unknown {
  try {
    const v = util.crypto.decryptPrivateObj(hex, privateKey);
    return v === false ? null : v;
  } catch {
    return null;
  }
}

export const randomPrivateKey = (): string => bytesToHex(secp256k1.utils.randomSecretKey());
export const publicKeyOf = (privateKey: string): string => bytesToHex(secp256k1.getPublicKey(hexToBytes(privateKey), false));
