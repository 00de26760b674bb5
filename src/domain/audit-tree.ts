// The tamper-evident audit log, pure: the canonical encoding of an entry (a leaf), RFC 6962 / RFC 9162 Merkle hashing
// (leaf and node prefixes, the compact right edge, inclusion and consistency proofs over stored subtree hashes), and
// checkpoints in the C2SP formats (tlog-checkpoint text inside an Ed25519 signed note). Storage and keys are the
// adapters' (the SQLite engine's audit trees, src/adapters/crypto/audit-key.ts).
import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";

// ---- leaves: the canonical encoding ----

/**
 * Version 1 of an audit entry's canonical encoding: every column of `audit_log` but `seq` (the row number; a leaf's
 * place is its leaf index), in this order. Each field is `0x00` (NULL) or `0x01`, its UTF-8 length as a 4-byte
 * big-endian number, then its UTF-8 bytes, exactly as stored. `detail` is the stored JSON text byte for byte, so every
 * key a writer puts there is covered; personal free text is never stored in clear, so it enters as the sealed text
 * kept in the column and a proof reveals nothing of it. A new column needs a new version (a test compares this list
 * with the table).
 */
export const ENTRY_FIELDS_V1 = ["id", "company_id", "environment", "actor_type", "member_id", "api_key_id", "session_id", "action", "entity_type", "entity_id", "detail", "created_at"] as const;
export const ENTRY_ENCODING_V1 = "caravan-audit-entry/v1\n";
const ENTRY_PREFIX_V1 = utf8ToBytes(ENTRY_ENCODING_V1);

export type EntryColumns = { readonly [K in (typeof ENTRY_FIELDS_V1)[number]]: string | null };

const utf8 = new TextEncoder();

/** The bytes a leaf hashes: the version line, then each field in order (written into one buffer). */
export function encodeEntry(row: EntryColumns): Uint8Array {
  let max = ENTRY_PREFIX_V1.length;
  for (const f of ENTRY_FIELDS_V1) {
    const v = row[f];
    max += v === null || v === undefined ? 1 : 5 + String(v).length * 3;
  }
  const out = new Uint8Array(max);
  const view = new DataView(out.buffer);
  out.set(ENTRY_PREFIX_V1, 0);
  let at = ENTRY_PREFIX_V1.length;
  for (const f of ENTRY_FIELDS_V1) {
    const v = row[f];
    if (v === null || v === undefined) {
      out[at++] = 0;
      continue;
    }
    out[at] = 1;
    const { written } = utf8.encodeInto(String(v), out.subarray(at + 5));
    view.setUint32(at + 1, written);
    at += 5 + written;
  }
  return out.subarray(0, at);
}

// ---- RFC 6962 hashing ----

export const EMPTY_ROOT = sha256(new Uint8Array(0));

/** SHA-256 of the parts, concatenated. @noble/hashes is the reference; an adapter may install the runtime's native one. */
export type Sha256 = (...parts: Uint8Array[]) => Uint8Array;
const nobleSha256: Sha256 = (...parts) => {
  const h = sha256.create();
  for (const p of parts) h.update(p);
  return h.digest();
};
let hashParts: Sha256 = nobleSha256;

/** Installs another SHA-256 (src/adapters/crypto/hash.ts: node:crypto, about ten times faster under Bun); same bytes. */
export function useSha256(fn: Sha256 | null): void {
  hashParts = fn ?? nobleSha256;
}

const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);

/** RFC 6962 §2.1: MTH of one entry is SHA-256(0x00 || entry). */
export function leafHash(data: Uint8Array): Uint8Array {
  return hashParts(LEAF, data);
}

/** RFC 6962 §2.1: an interior node is SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return hashParts(NODE, left, right);
}

/** A node that became complete: `level` 1 holds two leaves, `index` counts the nodes of that level from the left. */
export interface NewNode {
  level: number;
  index: number;
  hash: Uint8Array;
}

/**
 * The tree's right edge (a compact range from 0): the roots of its perfect subtrees, largest first, one per set bit of
 * the size. Appending a leaf merges at most log2(n) of them, and each merge is a node that stays complete forever.
 */
export class RightEdge {
  constructor(
    public size: number,
    readonly hashes: Uint8Array[] = [],
  ) {}

  /** Adds a leaf; answers the nodes it completed (level 1 and up), for storage. */
  append(leaf: Uint8Array, made?: NewNode[]): void {
    let h = leaf;
    let level = 0;
    while ((this.size >> level) & 1) {
      h = nodeHash(this.hashes.pop()!, h);
      level++;
      made?.push({ level, index: this.size >> level, hash: h });
    }
    this.hashes.push(h);
    this.size++;
  }

  /** The root at this size (the empty tree's is SHA-256 of nothing). */
  root(): Uint8Array {
    if (this.hashes.length === 0) return EMPTY_ROOT;
    let r = this.hashes[this.hashes.length - 1];
    for (let i = this.hashes.length - 2; i >= 0; i--) r = nodeHash(this.hashes[i], r);
    return r;
  }

  /** Which perfect subtrees (level, index) make up the right edge of a tree of `size` leaves, largest first. */
  static parts(size: number): { level: number; index: number }[] {
    const out: { level: number; index: number }[] = [];
    let start = 0;
    for (let level = 52; level >= 0; level--) {
      const width = 2 ** level;
      if (Math.floor(size / width) % 2 === 1) {
        out.push({ level, index: start / width });
        start += width;
      }
    }
    return out;
  }
}

/** Hash of a complete perfect subtree: level 0 is a leaf hash. Throws when the store lacks it. */
export type SubtreeHash = (level: number, index: number) => Uint8Array;

const largestPowerOfTwoBelow = (n: number): number => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

/** MTH of the leaves [a, b) from the stored perfect subtrees (RFC 6962 §2.1's split at the largest power of two). */
export function rangeHash(a: number, b: number, get: SubtreeHash): Uint8Array {
  const n = b - a;
  if (n === 0) return EMPTY_ROOT;
  if ((n & (n - 1)) === 0 && a % n === 0) return get(Math.log2(n), a / n);
  const k = largestPowerOfTwoBelow(n);
  return nodeHash(rangeHash(a, a + k, get), rangeHash(a + k, b, get));
}

/** RFC 6962 §2.1.1 PATH(m, D[n]): the audit path of leaf `m` in the tree of `size` leaves, leaf side first. */
export function inclusionProof(m: number, size: number, get: SubtreeHash): Uint8Array[] {
  if (m < 0 || m >= size) throw new RangeError(`leaf ${m} is not in a tree of ${size}`);
  const path = (a: number, b: number): Uint8Array[] => {
    const n = b - a;
    if (n === 1) return [];
    const k = largestPowerOfTwoBelow(n);
    return m - a < k ? [...path(a, a + k), rangeHash(a + k, b, get)] : [...path(a + k, b), rangeHash(a, a + k, get)];
  };
  return path(0, size);
}

/** RFC 6962 §2.1.2 PROOF(m, D[n]): that the tree of `from` leaves is a prefix of the tree of `to` leaves. */
export function consistencyProof(from: number, to: number, get: SubtreeHash): Uint8Array[] {
  if (from < 0 || from > to) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  if (from === 0 || from === to) return [];
  const sub = (m: number, a: number, b: number, start: boolean): Uint8Array[] => {
    const n = b - a;
    if (m === n) return start ? [] : [rangeHash(a, b, get)];
    const k = largestPowerOfTwoBelow(n);
    return m <= k ? [...sub(m, a, a + k, start), rangeHash(a + k, b, get)] : [...sub(m - k, a + k, b, false), rangeHash(a, a + k, get)];
  };
  return sub(from, 0, to, true);
}

// ---- checkpoints: C2SP tlog-checkpoint in a C2SP signed note ----

/** Signature type 0x01 of the signed-note format: Ed25519 over the note text. */
const ED25519 = 0x01;
export const TIME_EXTENSION = "caravan-time ";

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
  /** ISO time of signing, carried as one extension line (`caravan-time <iso>`); null when absent. */
  time: string | null;
}

/** The note text: origin, size, base64 root, then the time extension line; ends with a newline. */
export function checkpointText(c: Checkpoint): string {
  return `${c.origin}\n${c.size}\n${base64.encode(c.root)}\n${c.time ? `${TIME_EXTENSION}${c.time}\n` : ""}`;
}

export class NoteError extends Error {
  override name = "NoteError";
}

export function parseCheckpointText(text: string): Checkpoint {
  if (!text.endsWith("\n")) throw new NoteError("the checkpoint text does not end with a newline");
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3 || lines.some((l) => l === "")) throw new NoteError("a checkpoint has at least three non-empty lines");
  const [origin, sizeText, rootText, ...ext] = lines;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(sizeText)) throw new NoteError(`the tree size "${sizeText}" is not a decimal number`);
  let root: Uint8Array;
  try {
    root = base64.decode(rootText);
  } catch {
    throw new NoteError("the root hash is not base64");
  }
  if (root.length !== 32) throw new NoteError("the root hash is not 32 bytes");
  const time = ext.find((l) => l.startsWith(TIME_EXTENSION))?.slice(TIME_EXTENSION.length) ?? null;
  return { origin, size: Number(sizeText), root, time };
}

/** signed-note key ID: the first four bytes of SHA-256(name || 0x0A || 0x01 || public key). */
export function keyId(name: string, publicKey: Uint8Array): Uint8Array {
  return sha256(concatBytes(utf8ToBytes(name), Uint8Array.of(0x0a, ED25519), publicKey)).slice(0, 4);
}

/** The verifier key string of the Go note package and C2SP tooling: `<name>+<key ID hex>+<base64(0x01 || key)>`. */
export function verifierKey(name: string, publicKey: Uint8Array): string {
  return `${name}+${bytesToHex(keyId(name, publicKey))}+${base64.encode(concatBytes(Uint8Array.of(ED25519), publicKey))}`;
}

/** A public key given as 32 bytes of base64 or hex, or as a verifier key string (its name is not checked here). */
export function parsePublicKey(text: string): Uint8Array {
  const t = text.trim();
  try {
    if (/^[0-9a-fA-F]{64}$/.test(t)) return Uint8Array.from(t.match(/../g)!.map((h) => parseInt(h, 16)));
    if (/^[A-Za-z0-9+/]{43}=$/.test(t)) return base64.decode(t);
    // `<name>+<8 hex>+<base64(0x01 || key)>`: the name has no "+", the base64 may.
    const m = /^[^+\s]+\+[0-9a-fA-F]{8}\+([A-Za-z0-9+/]+=*)$/.exec(t);
    if (m) {
      const b = base64.decode(m[1]);
      if (b.length === 33 && b[0] === ED25519) return b.slice(1);
    }
  } catch {
    /* below */
  }
  throw new NoteError("a public key is 32 bytes of base64 or hex, or a verifier key <name>+<id>+<base64>");
}

export function publicKeyOf(seed: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(seed);
}

/** One signature line for `text` by the key `seed` under `name`. */
export function signatureLine(text: string, name: string, seed: Uint8Array): string {
  const sig = ed25519.sign(utf8ToBytes(text), seed);
  return `— ${name} ${base64.encode(concatBytes(keyId(name, publicKeyOf(seed)), sig))}\n`;
}

/** A signed note: the text, a blank line, one signature line per key (each key signs under the same name). */
export function signNote(text: string, name: string, seeds: Uint8Array[]): string {
  return `${text}\n${seeds.map((s) => signatureLine(text, name, s)).join("")}`;
}

export interface NoteSignature {
  name: string;
  keyId: Uint8Array;
  signature: Uint8Array;
}

export function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  const at = note.lastIndexOf("\n\n");
  if (at < 0) throw new NoteError("not a signed note (no blank line before the signatures)");
  const text = note.slice(0, at + 1);
  const sigLines = note.slice(at + 2);
  if (!sigLines.endsWith("\n")) throw new NoteError("a signed note ends with a newline");
  const signatures: NoteSignature[] = [];
  for (const line of sigLines.slice(0, -1).split("\n")) {
    const m = /^— (\S+) (\S+)$/.exec(line);
    if (!m) throw new NoteError(`not a signature line: ${line.slice(0, 80)}`);
    let raw: Uint8Array;
    try {
      raw = base64.decode(m[2]);
    } catch {
      throw new NoteError("a signature is not base64");
    }
    if (raw.length < 5) throw new NoteError("a signature is too short");
    signatures.push({ name: m[1], keyId: raw.slice(0, 4), signature: raw.slice(4) });
  }
  if (signatures.length === 0) throw new NoteError("a signed note has at least one signature");
  return { text, signatures };
}

/**
 * Which of the trusted keys signed the note under `name` (signed-note rules: signatures of unknown keys are ignored, a
 * known key's signature that fails rejects the note). Answers the public keys that verified; empty when none did.
 */
export function verifyNote(note: string, name: string, trusted: Uint8Array[]): { text: string; by: Uint8Array[] } {
  const { text, signatures } = parseNote(note);
  const by: Uint8Array[] = [];
  for (const s of signatures) {
    if (s.name !== name) continue;
    for (const key of trusted) {
      if (bytesToHex(keyId(name, key)) !== bytesToHex(s.keyId)) continue;
      let ok = false;
      try {
        ok = s.signature.length === 64 && ed25519.verify(s.signature, utf8ToBytes(text), key);
      } catch {
        ok = false;
      }
      if (!ok) throw new NoteError(`the signature of key ${bytesToHex(s.keyId)} does not verify`);
      by.push(key);
    }
  }
  return { text, by };
}
