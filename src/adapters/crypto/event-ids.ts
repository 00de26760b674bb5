// Event IDs of the live stream as each company and environment sees them: the persisted sequence number (`seq`,
// shared by every company) enciphered under a key of that company and environment, so that an ID says nothing of
// the other tenants' activity (neither the newest seq nor the gaps between one's own events), while a resume by
// `Last-Event-ID` deciphers it back to the exact seq. One AES-128 block (a permutation): the seq (8 bytes, big-endian)
// and 8 fixed check bytes; an ID of another tenant, another database's key or made up deciphers to other check bytes
// and is refused.
import * as nodeCrypto from "node:crypto";
import { ecb } from "@noble/ciphers/aes.js";
import { base64urlnopad } from "@scure/base";
import { hmacSha256 } from "./hash.ts";

const CHECK = new TextEncoder().encode("crvevt\u0000\u0001");
const ID = /^[A-Za-z0-9_-]{22}$/;

interface Codec {
  encrypt(block: Uint8Array): Uint8Array;
  decrypt(block: Uint8Array): Uint8Array;
}

const native = typeof (nodeCrypto as Partial<typeof nodeCrypto>).createCipheriv === "function";

function codec(key: Uint8Array): Codec {
  if (native) {
    try {
      // ECB without padding, reused block after block: each update is one block in, one block out.
      const enc = nodeCrypto.createCipheriv("aes-128-ecb", key, null).setAutoPadding(false);
      const dec = nodeCrypto.createDecipheriv("aes-128-ecb", key, null).setAutoPadding(false);
      return { encrypt: (b) => new Uint8Array(enc.update(b)), decrypt: (b) => new Uint8Array(dec.update(b)) };
    } catch {
      /* the runtime lacks the mode: the portable cipher below */
    }
  }
  const c = ecb(key, { disablePadding: true });
  return { encrypt: (b) => c.encrypt(b), decrypt: (b) => c.decrypt(b) };
}

export class EventIds {
  private readonly tenants = new Map<string, Codec>();

  /** `key`: the master key's subkey for event IDs (32 bytes); each company and environment gets its own from it. */
  constructor(private readonly key: Uint8Array) {}

  private of(companyId: string, environment: string): Codec {
    const name = `${companyId}|${environment}`;
    let c = this.tenants.get(name);
    if (!c) this.tenants.set(name, (c = codec(hmacSha256(this.key, new TextEncoder().encode(name)).slice(0, 16))));
    return c;
  }

  /** The ID the company's stream shows for the event with this seq (22 characters, base64url). */
  encode(companyId: string, environment: string, seq: number): string {
    const block = new Uint8Array(16);
    new DataView(block.buffer).setBigUint64(0, BigInt(seq));
    block.set(CHECK, 8);
    return base64urlnopad.encode(this.of(companyId, environment).encrypt(block));
  }

  /** The seq an ID of this company's stream stands for, or null when it is not one. */
  decode(companyId: string, environment: string, id: string): number | null {
    if (!ID.test(id)) return null;
    let block: Uint8Array;
    try {
      block = this.of(companyId, environment).decrypt(base64urlnopad.decode(id));
    } catch {
      return null;
    }
    for (let i = 0; i < 8; i++) if (block[8 + i] !== CHECK[i]) return null;
    const seq = new DataView(block.buffer, block.byteOffset).getBigUint64(0);
    return seq > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(seq);
  }
}
