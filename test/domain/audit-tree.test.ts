// The audit tree's pure parts against published vectors: RFC 6962 leaf/node hashing, roots, inclusion and consistency
// proofs (transparency-dev/merkle's test data, copied into test/fixtures/rfc6962-vectors.json), the right edge's
// O(log n) appends, the canonical entry encoding, and the C2SP signed note (checked with node:crypto's Ed25519).
import { describe, expect, test } from "bun:test";
import { createPublicKey, verify as nodeVerify, createHash } from "node:crypto";
import vectors from "../fixtures/rfc6962-vectors.json" with { type: "json" };
import {
  checkpointText,
  consistencyProof,
  EMPTY_ROOT,
  encodeEntry,
  ENTRY_FIELDS_V1,
  inclusionProof,
  keyId,
  leafHash,
  parseCheckpointText,
  parseNote,
  parsePublicKey,
  rangeHash,
  RightEdge,
  signNote,
  verifierKey,
  verifyNote,
  type NewNode,
} from "../../src/domain/audit-tree.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const fromHex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

/** Builds the vectors' tree with the right edge, keeping every node it reports, as the sealer stores them. */
function buildTree(n: number) {
  const nodes = new Map<string, Uint8Array>();
  const edge = new RightEdge(0);
  const roots: string[] = [];
  for (let i = 0; i < n; i++) {
    const h = leafHash(fromHex(vectors.leaves[i]));
    nodes.set(`0/${i}`, h);
    const made: NewNode[] = [];
    edge.append(h, made);
    for (const m of made) nodes.set(`${m.level}/${m.index}`, m.hash);
    roots.push(hex(edge.root()));
  }
  const get = (level: number, index: number) => {
    const h = nodes.get(`${level}/${index}`);
    if (!h) throw new Error(`missing ${level}/${index}`);
    return h;
  };
  return { nodes, edge, roots, get };
}

describe("RFC 6962 hashing against the published vectors", () => {
  test("leaf hashes, every complete node, and the root at each size 1..8", () => {
    const t = buildTree(8);
    vectors.nodes.forEach((level, l) => level.forEach((h, i) => expect(hex(t.get(l, i))).toBe(h)));
    expect(t.roots).toEqual(vectors.roots);
    expect(hex(EMPTY_ROOT)).toBe(vectors.emptyRoot);
    expect(hex(new RightEdge(0).root())).toBe(vectors.emptyRoot);
    for (let size = 1; size <= 8; size++) expect(hex(rangeHash(0, size, t.get))).toBe(vectors.roots[size - 1]);
  });

  test("inclusion proofs equal the published ones", () => {
    const t = buildTree(8);
    for (const v of vectors.inclusion) expect(inclusionProof(v.leafIndex, v.treeSize, t.get).map(hex)).toEqual(v.proof);
  });

  test("consistency proofs equal the published ones", () => {
    const t = buildTree(8);
    for (const v of vectors.consistency) expect(consistencyProof(v.from, v.to, t.get).map(hex)).toEqual(v.proof);
  });

  test("an append merges at most log2(n) nodes: the right edge holds one hash per set bit of the size", () => {
    const edge = new RightEdge(0);
    let merges = 0;
    for (let i = 0; i < 4096; i++) {
      const made: NewNode[] = [];
      edge.append(leafHash(Uint8Array.of(i & 255, i >> 8)), made);
      expect(made.length).toBeLessThanOrEqual(Math.ceil(Math.log2(i + 1)));
      merges += made.length;
      expect(edge.hashes.length).toBe((i + 1).toString(2).replace(/0/g, "").length);
    }
    // n - popcount(n) merges in all: one node per leaf on average.
    expect(merges).toBe(4096 - 1);
    expect(RightEdge.parts(13)).toEqual([
      { level: 3, index: 0 },
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ]);
  });
});

describe("the canonical entry encoding (version 1)", () => {
  const row = {
    id: "aud_01",
    company_id: "cmp_default",
    environment: "live",
    actor_type: "member",
    member_id: "mem_1",
    api_key_id: null,
    session_id: null,
    action: "transfer.created",
    entity_type: "Transfer",
    entity_id: "trf_1",
    detail: '{"a":1}',
    created_at: "2026-12-01T00:00:00.000Z",
  } as const;

  test("a version line, then each field as 0x00 (null) or 0x01, a 4-byte length and its UTF-8 bytes, in order", () => {
    const bytes = encodeEntry(row);
    const text = Buffer.from(bytes);
    expect(text.subarray(0, 23).toString()).toBe("caravan-audit-entry/v1\n");
    let at = 23;
    for (const f of ENTRY_FIELDS_V1) {
      const v = row[f];
      if (v === null) {
        expect(text[at]).toBe(0);
        at += 1;
      } else {
        expect(text[at]).toBe(1);
        const len = text.readUInt32BE(at + 1);
        expect(text.subarray(at + 5, at + 5 + len).toString()).toBe(v);
        at += 5 + len;
      }
    }
    expect(at).toBe(bytes.length);
  });

  test("every field changes the encoding, and NULL differs from an empty text", () => {
    const base = hex(encodeEntry(row));
    for (const f of ENTRY_FIELDS_V1) expect(hex(encodeEntry({ ...row, [f]: `${row[f] ?? ""}x` }))).not.toBe(base);
    expect(hex(encodeEntry({ ...row, api_key_id: "" }))).not.toBe(base);
    // Moving text between neighbouring fields is not the same entry.
    expect(hex(encodeEntry({ ...row, entity_type: "Transfe", entity_id: "rtrf_1" }))).not.toBe(base);
  });
});

describe("checkpoints as C2SP signed notes", () => {
  const seed = fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
  const pub = fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  const origin = "caravan/test/audit/cmp_default/live";

  test("the note text is origin, size, base64 root, the time line; the signature line carries key ID and Ed25519 signature", () => {
    const root = fromHex(vectors.roots[7]);
    const text = checkpointText({ origin, size: 8, root, time: "2026-12-01T00:00:00.000Z" });
    expect(text).toBe(`${origin}\n8\n${Buffer.from(root).toString("base64")}\ncaravan-time 2026-12-01T00:00:00.000Z\n`);
    const note = signNote(text, origin, [seed]);
    expect(note.startsWith(`${text}\n— ${origin} `)).toBe(true);
    const { signatures } = parseNote(note);
    expect(signatures).toHaveLength(1);
    // The key ID is SHA-256(name || 0x0A || 0x01 || key)[:4], computed here with node:crypto.
    const id = createHash("sha256").update(Buffer.concat([Buffer.from(origin), Buffer.from([0x0a, 0x01]), Buffer.from(pub)])).digest().subarray(0, 4);
    expect(hex(signatures[0].keyId)).toBe(id.toString("hex"));
    expect(hex(keyId(origin, pub))).toBe(id.toString("hex"));
    // node:crypto verifies the signature over the note text (RFC 8032 test key 1).
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(pub).toString("base64url") }, format: "jwk" });
    expect(nodeVerify(null, Buffer.from(text), key, Buffer.from(signatures[0].signature))).toBe(true);
    expect(verifyNote(note, origin, [pub]).by).toHaveLength(1);
    expect(verifierKey(origin, pub)).toBe(`${origin}+${id.toString("hex")}+${Buffer.concat([Buffer.from([1]), Buffer.from(pub)]).toString("base64")}`);
    const parsed = parseCheckpointText(text);
    expect(parsed.size).toBe(8);
    expect(hex(parsed.root)).toBe(vectors.roots[7]);
    expect(parsed.time).toBe("2026-12-01T00:00:00.000Z");
  });

  test("a public key is read as base64 (even with '+' in it), hex or a verifier key", () => {
    for (let i = 0; i < 50; i++) {
      // Exactly two "+" in the base64 (0xfb 0xe0 starts it with "++"), so it splits on "+" into three parts like a verifier key.
      let key: Uint8Array;
      let b: string;
      do {
        key = crypto.getRandomValues(new Uint8Array(32));
        key[0] = 0xfb;
        key[1] = 0xe0;
        b = Buffer.from(key).toString("base64");
      } while (b.split("+").length !== 3);
      expect(hex(parsePublicKey(b))).toBe(hex(key));
      expect(hex(parsePublicKey(hex(key)))).toBe(hex(key));
      expect(hex(parsePublicKey(verifierKey(origin, key)))).toBe(hex(key));
    }
    expect(() => parsePublicKey("nope")).toThrow(/public key/);
  });

  test("a changed size or root fails the signature; an unknown key is ignored (no trusted signature)", () => {
    const text = checkpointText({ origin, size: 8, root: fromHex(vectors.roots[7]), time: null });
    const note = signNote(text, origin, [seed]);
    expect(() => verifyNote(note.replace(`\n8\n`, `\n7\n`), origin, [pub])).toThrow(/does not verify/);
    const other = crypto.getRandomValues(new Uint8Array(32));
    expect(verifyNote(signNote(text, origin, [other]), origin, [pub]).by).toHaveLength(0);
  });

  test("the C2SP example note parses: text up to the last blank line, one signature of 4 + 64 bytes", () => {
    const { text, signatures } = parseNote(vectors.signedNoteExample.note);
    expect(text.endsWith("ed è subito sera.\n")).toBe(true);
    expect(text).toContain("\n\n");
    expect(signatures[0].name).toBe("quasimodo.example/salvatore");
    expect(signatures[0].signature.length).toBe(64);
  });
});
