// The audit log's checkpoints and proofs over real HTTP: the latest checkpoint, an inclusion proof of an entry and a
// consistency proof between two checkpoints, each checked here by an independent verifier (RFC 9162 §2.1.3.2 and
// §2.1.4.2 written out below, SHA-256 and Ed25519 from node:crypto, the note parsed by hand), never by the code that
// made them. Also: who may read them, their refusals, `audit.checkpoint` to the webhook subscriber that named it (and
// not to `["*"]`), and dense leaf indexes in commit order while the server and CLI processes write at once.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { createHash, createPublicKey, verify as edVerify } from "node:crypto";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { sqlRows } from "../support/db.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, expectOk } from "../support/api.ts";

// A server and CLI processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "audit.db");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let owner: { key: string };
let analyst: { key: string };
let developer: { key: string };
let noScope: { key: string };

// ---- the webhook receiver (127.0.0.2, the private target this server allows) ----
const hits: { path: string; body: string }[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.2",
  port: 0,
  async fetch(req) {
    hits.push({ path: new URL(req.url).pathname, body: await req.text() });
    return new Response("ok");
  },
});

async function waitFor<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

// ---- the independent verifier ----
const sha = (...parts: Uint8Array[]) => new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());
const node = (l: Uint8Array, r: Uint8Array) => sha(Uint8Array.of(1), l, r);
const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** RFC 9162 §2.1.3.2, as written there. */
function verifyInclusion(index: number, size: number, leaf: Uint8Array, path: Uint8Array[], root: Uint8Array): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = node(p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) (fn >>= 1), (sn >>= 1);
    } else r = node(r, p);
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && same(r, root);
}

/** RFC 9162 §2.1.4.2, as written there. */
function verifyConsistency(first: number, second: number, firstHash: Uint8Array, secondHash: Uint8Array, proof: Uint8Array[]): boolean {
  if (first === second) return proof.length === 0 && same(firstHash, secondHash);
  if (proof.length === 0 || first > second) return false;
  const path = (first & (first - 1)) === 0 ? [firstHash, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) (fn >>= 1), (sn >>= 1);
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = node(c, fr);
      sr = node(c, sr);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) (fn >>= 1), (sn >>= 1);
    } else sr = node(sr, c);
    fn >>= 1;
    sn >>= 1;
  }
  return same(fr, firstHash) && same(sr, secondHash) && sn === 0;
}

/** A C2SP checkpoint note read by hand: origin, size and root from the text; the Ed25519 signature checked with node:crypto. */
function readCheckpoint(note: string, publicKey: Uint8Array): { origin: string; size: number; root: Uint8Array } {
  const cut = note.lastIndexOf("\n\n");
  const text = note.slice(0, cut + 1);
  const [origin, size, root] = text.split("\n");
  const sigLine = note.slice(cut + 2).split("\n")[0];
  expect(sigLine.startsWith(`— ${origin} `)).toBe(true);
  const sig = b64(sigLine.slice(`— ${origin} `.length));
  const keyId = sha(Buffer.from(origin), Uint8Array.of(0x0a, 0x01), publicKey).slice(0, 4);
  expect(Buffer.from(sig.slice(0, 4)).toString("hex")).toBe(Buffer.from(keyId).toString("hex"));
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" });
  expect(edVerify(null, Buffer.from(text), key, Buffer.from(sig.slice(4)))).toBe(true);
  return { origin, size: Number(size), root: b64(root) };
}

/** The canonical encoding (version 1) read by hand: the version line, then (0x00 | 0x01 len:u32be bytes) per field. */
function decodeLeaf(leaf: Uint8Array): (string | null)[] {
  const buf = Buffer.from(leaf);
  const head = "caravan-audit-entry/v1\n";
  expect(buf.subarray(0, head.length).toString()).toBe(head);
  const out: (string | null)[] = [];
  for (let at = head.length; at < buf.length; ) {
    if (buf[at] === 0) (out.push(null), (at += 1));
    else {
      const n = buf.readUInt32BE(at + 1);
      out.push(buf.subarray(at + 5, at + 5 + n).toString());
      at += 5 + n;
    }
  }
  return out;
}

async function newCustomer(n: number): Promise<void> {
  const r = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId: `audit-${n}`, name: `Customer ${n}` } });
  if (r.status !== 201) throw new Error(`customer: ${r.status} ${r.text}`);
}

let publicKey: Uint8Array;

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  owner = await newKey("--env", "test", "--role", "owner");
  analyst = await newKey("--env", "test", "--role", "analyst");
  developer = await newKey("--env", "test", "--role", "developer");
  noScope = await newKey("--env", "test", "--role", "owner", "--scopes", "customers:read");
  S = await startServer({ CARAVAN_DB: db, CARAVAN_AUDIT_CHECKPOINT_SECONDS: "1", CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2" });
  for (const [name, events] of [["named", ["audit.checkpoint"]], ["all", ["*"]]] as const) {
    const w = await call("/api/v2/webhooks", { method: "POST", key: owner.key, json: { name, url: `http://127.0.0.2:${receiver.port}/${name}`, events } });
    expectOk(w, 201);
  }
  for (let i = 0; i < 5; i++) await newCustomer(i);
  const keys = await call("/api/v2/audit-log/signing-keys", { key: analyst.key });
  expectOk(keys);
  expect(keys.body.data).toHaveLength(1);
  publicKey = b64(keys.body.data[0].publicKey);
}, 120_000);

afterAll(async () => {
  await S?.stop();
  void receiver.stop(true);
});

describe("checkpoints and proofs over the API", () => {
  test("the latest checkpoint: a C2SP note signed by the published key, of the key's environment's log", async () => {
    const total = (await call("/api/v2/audit-log?limit=1", { key: analyst.key })).body.meta.total as number;
    const r = await waitFor(async () => {
      const a = await call("/api/v2/audit-log/checkpoints/latest", { key: analyst.key });
      return a.status === 200 && a.body.data.treeSize >= total && a;
    }, "a checkpoint covering the entries");
    expectOk(r);
    const cp = r.body.data;
    expect(cp.origin).toMatch(/\/audit\/cmp_default\/test$/);
    expect(cp.publicKey).toBe(Buffer.from(publicKey).toString("base64"));
    const read = readCheckpoint(cp.note, publicKey);
    expect(read).toEqual({ origin: cp.origin, size: cp.treeSize, root: b64(cp.rootHash) });
    expect(cp.verifierKey.split("+")[0]).toBe(cp.origin);
  });

  test("an inclusion proof of an entry verifies against the signed checkpoint (independent verifier)", async () => {
    const entries = (await call("/api/v2/audit-log?action=customer.created&limit=5", { key: analyst.key })).body.data;
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      const r = await call(`/api/v2/audit-log/${e.id}/inclusion-proof`, { key: analyst.key });
      expectOk(r);
      const p = r.body.data;
      const cp = readCheckpoint(p.checkpoint.note, publicKey);
      expect(p.treeSize).toBe(cp.size);
      // The leaf is this entry's encoding, and its hash is SHA-256(0x00 || leaf).
      const leaf = b64(p.leaf);
      expect(same(sha(Uint8Array.of(0), leaf), b64(p.leafHash))).toBe(true);
      const fields = decodeLeaf(leaf);
      expect(fields[0]).toBe(e.id);
      expect(fields).toContain(e.action);
      expect(fields).toContain(e.createdAt);
      expect(fields).toContain(JSON.stringify(e.detail));
      expect(verifyInclusion(p.leafIndex, cp.size, b64(p.leafHash), p.hashes.map(b64), cp.root)).toBe(true);
      // The verifier is not a yes-machine: another index, a flipped hash, or another root fail.
      expect(verifyInclusion(p.leafIndex ^ 1, cp.size, b64(p.leafHash), p.hashes.map(b64), cp.root)).toBe(false);
      if (p.hashes.length > 0) {
        const bad = p.hashes.map(b64);
        bad[0][0] ^= 1;
        expect(verifyInclusion(p.leafIndex, cp.size, b64(p.leafHash), bad, cp.root)).toBe(false);
      }
    }
  });

  test("a consistency proof between two checkpoints verifies (independent verifier)", async () => {
    const first = (await call("/api/v2/audit-log/checkpoints/latest", { key: analyst.key })).body.data;
    for (let i = 10; i < 13; i++) await newCustomer(i);
    const second = await waitFor(async () => {
      const a = await call("/api/v2/audit-log/checkpoints/latest", { key: analyst.key });
      return a.status === 200 && a.body.data.treeSize > first.treeSize && a.body.data;
    }, "a later checkpoint");
    const r = await call(`/api/v2/audit-log/consistency-proof?from=${first.treeSize}&to=${second.treeSize}`, { key: analyst.key });
    expectOk(r);
    const p = r.body.data;
    const a = readCheckpoint(p.from.note, publicKey);
    const b = readCheckpoint(p.to.note, publicKey);
    expect([a.size, b.size]).toEqual([first.treeSize, second.treeSize]);
    expect(verifyConsistency(a.size, b.size, a.root, b.root, p.hashes.map(b64))).toBe(true);
    expect(verifyConsistency(a.size, b.size, b.root, a.root, p.hashes.map(b64))).toBe(false);
    // Without `to`: up to the latest checkpoint.
    const latest = await call(`/api/v2/audit-log/consistency-proof?from=${first.treeSize}`, { key: analyst.key });
    expectOk(latest);
    expect(latest.body.data.toSize).toBeGreaterThanOrEqual(second.treeSize);
  });

  test("refusals: unknown entry, a size with no checkpoint, from after to, a bad number; scope and permission", async () => {
    const cp = (await call("/api/v2/audit-log/checkpoints/latest", { key: analyst.key })).body.data;
    expectError(await call("/api/v2/audit-log/aud_00000000000000000000000000/inclusion-proof", { key: analyst.key }), 404, "AUDIT_ENTRY_NOT_FOUND");
    const some = (await call("/api/v2/audit-log?limit=1", { key: analyst.key })).body.data[0];
    expectError(await call(`/api/v2/audit-log/${some.id}/inclusion-proof?treeSize=${cp.treeSize + 1000}`, { key: analyst.key }), 404, "AUDIT_CHECKPOINT_NOT_FOUND");
    expectError(await call(`/api/v2/audit-log/consistency-proof?from=${cp.treeSize + 1}&to=${cp.treeSize}`, { key: analyst.key }), 400, "INVALID_QUERY");
    expectError(await call(`/api/v2/audit-log/consistency-proof?from=-1`, { key: analyst.key }), 400, "INVALID_QUERY");
    expectError(await call(`/api/v2/audit-log/consistency-proof`, { key: analyst.key }), 400, "INVALID_QUERY");
    expectError(await call("/api/v2/audit-log/checkpoints/latest", { key: developer.key }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call("/api/v2/audit-log/checkpoints/latest", { key: noScope.key }), 403, "INSUFFICIENT_SCOPE");
    expectError(await call("/api/v2/audit-log/signing-keys", { key: noScope.key }), 403, "INSUFFICIENT_SCOPE");
    // The live environment has its own log: a live key sees its checkpoint, not the test one.
    const live = await newKey("--env", "live", "--role", "owner");
    const liveCp = await waitFor(async () => {
      const a = await call("/api/v2/audit-log/checkpoints/latest", { key: live.key });
      return a.status === 200 && a.body.data;
    }, "the live log's checkpoint");
    expect(liveCp.origin).toMatch(/\/audit\/cmp_default\/live$/);
  });

  test("the OpenAPI document lists the four routes with the audit scope and permission", async () => {
    const doc = (await call("/api/v2/openapi.json")).body;
    for (const p of ["/api/v2/audit-log/checkpoints/latest", "/api/v2/audit-log/signing-keys", "/api/v2/audit-log/consistency-proof", "/api/v2/audit-log/{id}/inclusion-proof"]) {
      expect(doc.paths[p]?.get?.["x-scope"]).toBe("audit:read");
      expect(doc.paths[p]?.get?.["x-permission"]).toBe("audit:view");
    }
  });
});

describe("checkpoints leave the machine", () => {
  test("audit.checkpoint goes to the subscription that names it, with the signed note; not to [*]", async () => {
    const hit = await waitFor(() => hits.find((h) => h.path === "/named"), "an audit.checkpoint delivery");
    const body = JSON.parse(hit.body);
    expect(body.event).toBe("audit.checkpoint");
    const read = readCheckpoint(body.data.note, publicKey);
    expect(body.data.treeSize).toBe(read.size);
    expect(body.data.origin).toBe(read.origin);
    expect(hits.filter((h) => h.path === "/all").every((h) => JSON.parse(h.body).event !== "audit.checkpoint")).toBe(true);
  });
});

describe("several writers", () => {
  test("entries written at once by the server and two CLI processes get dense leaf indexes in commit order", async () => {
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 6; i++) work.push(newCustomer(100 + i));
    for (let i = 0; i < 2; i++) work.push(runCli(["members", "create", "--email", `writer${i}@example.com`, "--role", "analyst"], { CARAVAN_DB: db }));
    work.push(runCli(["audit", "checkpoint"], { CARAVAN_DB: db }));
    await Promise.all(work);
    // Sealed by the server's sealer and the CLI's checkpoint, whichever came first.
    await waitFor(
      () => (sqlRows(db, "SELECT count(*) AS n FROM audit_log WHERE seq > (SELECT coalesce(max(entry_seq), 0) FROM audit_leaves)")[0] as { n: number }).n === 0,
      "every entry sealed",
    );
    const trees = sqlRows(db, "SELECT log_id, company_id, environment, size FROM audit_trees") as { log_id: string; company_id: string; environment: string; size: number }[];
    expect(trees.length).toBeGreaterThan(0);
    for (const t of trees) {
      const leaves = sqlRows(db, "SELECT leaf_index, entry_seq FROM audit_leaves WHERE log_id = ? ORDER BY leaf_index", t.log_id) as { leaf_index: number; entry_seq: number }[];
      const entries = sqlRows(db, "SELECT seq FROM audit_log WHERE company_id = ? AND environment = ? ORDER BY seq", t.company_id, t.environment) as { seq: number }[];
      expect(leaves.map((l) => l.leaf_index)).toEqual(entries.map((_, i) => i));
      expect(leaves.map((l) => l.entry_seq)).toEqual(entries.map((e) => e.seq));
      expect(t.size).toBe(leaves.length);
    }
    const v = await runCli(["audit", "verify", "--public-key", Buffer.from(publicKey).toString("base64")], { CARAVAN_DB: db });
    expect(v.stderr).toBe("");
    expect(v.code).toBe(0);
  });
});
