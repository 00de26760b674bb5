// Part 1 Customers: every rule of "Customer", "Travel Rule identity of a customer", the Customer state table,
// the Customers endpoints, and the customer codes of "Errors" and "Limits", over real HTTP.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { tempDir } from "../support/tmp.ts";
import { storedBytes } from "../support/db.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, expectOk, ISO_MS, type Answer } from "../support/api.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "customers.db");
const { cli, newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
const CUSTOMER_ID = /^cus_[0-9a-z]{26}$/;
/** Unique per run, so every test's externalIds and names are its own (the server and database are shared). */
/** Letters only (names are searched by their letters). */
const word = (n = 8) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => "abcdefghijklmnopqrstuvwxyz"[b % 26]).join("");
const RUN = word(6);
let seq = 0;
const uid = (prefix: string) => `${prefix}-${RUN}-${++seq}`;

const ETH = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const BTC = "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa";

interface Key {
  key: string;
  id: string;
  memberId: string;
}


const keysOf = (o: object) => Object.keys(o).sort();
const CREATE_FIELDS = ["createdAt", "environment", "externalId", "id", "name", "publicKey"];
const LIST_FIELDS = ["createdAt", "deactivatedAt", "environment", "erasedAt", "externalId", "id", "name", "publicKey", "updatedAt", "walletCount"];

let owner: Key;
let ownerLive: Key;
let officer: Key;
let analyst: Key;
let developer: Key;
/** Owner role, but the key holds only customers:read and customers:write (no customers:erase). */
let readWrite: Key;
let readOnly: Key;
let writeOnly: Key;

async function create(key: Key, body: Record<string, unknown> = {}): Promise<any> {
  const r = await call("/api/v2/customers", { method: "POST", key: key.key, json: body });
  expectOk(r, 201);
  return r.body.data;
}

const post = (key: Key, path: string, json?: unknown) => call(path, { method: "POST", key: key.key, json });
const deactivate = (key: Key, id: string, json?: unknown) => post(key, `/api/v2/customers/${id}/deactivate`, json);
const reactivate = (key: Key, id: string) => post(key, `/api/v2/customers/${id}/reactivate`);
const erase = (key: Key, id: string, json: unknown = { reason: "data-subject erasure request" }) => post(key, `/api/v2/customers/${id}/erase`, json);
const putIdentity = (key: Key, id: string, json: unknown) => call(`/api/v2/customers/${id}/travel-rule-identity`, { method: "PUT", key: key.key, json });
const list = (key: Key, query = "") => call(`/api/v2/customers${query ? `?${query}` : ""}`, { key: key.key });

/** The list item of `id` among all customers of the key's environment (deactivated and erased included). */
async function findItem(key: Key, id: string): Promise<any | undefined> {
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const r = await list(key, `includeDeactivated=true&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expectOk(r);
    const hit = r.body.data.find((c: any) => c.id === id);
    if (hit) return hit;
    cursor = r.body.meta.cursor;
    if (!cursor) return undefined;
  }
  throw new Error("too many pages");
}

async function registerWallet(key: Key, customerId: string, network: string, address: string) {
  return call("/api/v2/wallets", { method: "POST", key: key.key, json: { address, network, customerId } });
}

async function auditOf(entityId: string): Promise<Answer> {
  const r = await call(`/api/v2/audit-log?entityId=${encodeURIComponent(entityId)}&limit=200`, { key: owner.key });
  expectOk(r);
  return r;
}

/** Every byte the database holds: SQLite's main file, its WAL and anything beside it; on PostgreSQL a pg_dump. */
function databaseBytes(): Buffer {
  return storedBytes(db);
}

function databaseHolds(text: string): boolean {
  return databaseBytes().includes(Buffer.from(text, "utf8"));
}

// ---- IVMS101 persons used in identity requests ----

function natural(primary = "Smith", secondary = "Jane", extra: Record<string, unknown> = {}) {
  return {
    naturalPerson: {
      name: { nameIdentifier: [{ primaryIdentifier: primary, secondaryIdentifier: secondary, nameIdentifierType: "LEGL" }] },
      countryOfResidence: "GB",
      ...extra,
    },
  };
}

function legal(name = "Acme Holdings Ltd") {
  return {
    legalPerson: {
      name: { nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: "LEGL" }] },
      countryOfRegistration: "DE",
    },
  };
}

function issuePaths(r: Answer): string[] {
  expect(Array.isArray(r.body.details?.issues)).toBe(true);
  return r.body.details.issues.map((i: { path: string }) => i.path).sort();
}

function issueAt(r: Answer, path: string): { path: string; message: string } {
  const hit = r.body.details.issues.find((i: { path: string }) => i.path === path);
  expect(hit).toBeDefined();
  expect(typeof hit.message).toBe("string");
  return hit;
}

beforeAll(async () => {
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  owner = await newKey("--env", "test", "--role", "owner");
  ownerLive = await newKey("--env", "live", "--role", "owner");
  officer = await newKey("--env", "test", "--role", "compliance_officer");
  analyst = await newKey("--env", "test", "--role", "analyst");
  developer = await newKey("--env", "test", "--role", "developer");
  readWrite = await newKey("--env", "test", "--role", "owner", "--scopes", "customers:read,customers:write");
  readOnly = await newKey("--env", "test", "--role", "owner", "--scopes", "customers:read");
  writeOnly = await newKey("--env", "test", "--role", "owner", "--scopes", "customers:write");
  S = await startServer({ CARAVAN_DB: db });
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

describe("create", () => {
  test("201 with exactly id, externalId, name, publicKey, environment, createdAt", async () => {
    const externalId = uid("create");
    const r = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId, name: "Ada Lovelace", metadata: { tier: 1 } } });
    expectOk(r, 201);
    const d = r.body.data;
    expect(keysOf(d)).toEqual(CREATE_FIELDS);
    expect(d.id).toMatch(CUSTOMER_ID);
    expect(d.externalId).toBe(externalId);
    expect(d.name).toBe("Ada Lovelace");
    expect(d.environment).toBe("test");
    expect(d.createdAt).toMatch(ISO_MS);
  });

  test("publicKey is the compressed secp256k1 public key of a keypair generated at creation (66 hex, 02/03), one per customer", async () => {
    const a = await create(owner);
    const b = await create(owner);
    for (const d of [a, b]) {
      expect(d.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
      expect(() => secp256k1.Point.fromHex(d.publicKey)).not.toThrow();
    }
    expect(a.publicKey).not.toBe(b.publicKey);
  });

  test("externalId and name are optional (absent or null → null)", async () => {
    const empty = await create(owner, {});
    expect(empty.externalId).toBeNull();
    expect(empty.name).toBeNull();
    const nulls = await create(owner, { externalId: null, name: null });
    expect(nulls.externalId).toBeNull();
    expect(nulls.name).toBeNull();
    const onlyName = await create(owner, { name: "Grace Hopper" });
    expect(onlyName).toMatchObject({ externalId: null, name: "Grace Hopper" });
  });

  test("metadata accepts any JSON and is not listed in responses", async () => {
    for (const metadata of [{ a: { b: [1, "x", null] } }, [1, 2, 3], "text", 42, 0.5, true, false, {}, []]) {
      const r = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { metadata } });
      expectOk(r, 201);
      expect(keysOf(r.body.data)).toEqual(CREATE_FIELDS);
      const item = await findItem(owner, r.body.data.id);
      expect(keysOf(item)).toEqual(LIST_FIELDS);
    }
  });

  test("externalId and name of 255 characters are accepted, 256 refused with 400 VALIDATION_ERROR (characters, not UTF-16 units)", async () => {
    const prefix = `${RUN}-${word(3)}`; // 10 ASCII characters
    expect(Array.from(prefix).length).toBe(10);
    const ext255 = prefix + "😀".repeat(245);
    const name255 = "é😀".repeat(127) + "Z";
    expect(Array.from(ext255).length).toBe(255);
    expect(Array.from(name255).length).toBe(255);
    const ok = await create(owner, { externalId: ext255, name: name255 });
    expect(ok.externalId).toBe(ext255);
    expect(ok.name).toBe(name255);

    const ext256 = `${RUN}-${word(3)}` + "😀".repeat(246);
    expect(Array.from(ext256).length).toBe(256);
    expectError(await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId: ext256 } }), 400, "VALIDATION_ERROR");
    expectError(await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: name255 + "x" } }), 400, "VALIDATION_ERROR");
    expectError(await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "a".repeat(256) } }), 400, "VALIDATION_ERROR");
    expect((await call("/api/v2/customers", { method: "POST", key: owner.key, json: { name: "a".repeat(255) } })).status).toBe(201);
  });

  test("a body that is not a JSON object (array, string, number, null, boolean) → 400 VALIDATION_ERROR", async () => {
    for (const raw of ["[]", '[{"name":"x"}]', '"text"', "42", "null", "true"]) {
      expectError(await call("/api/v2/customers", { method: "POST", key: owner.key, raw }), 400, "VALIDATION_ERROR");
    }
  });

  test("externalId or name not text → 400 VALIDATION_ERROR", async () => {
    for (const body of [{ externalId: 12 }, { externalId: true }, { externalId: ["a"] }, { externalId: { v: "a" } }, { name: 7 }, { name: false }, { name: ["Jane"] }, { name: { first: "Jane" } }]) {
      expectError(await call("/api/v2/customers", { method: "POST", key: owner.key, json: body }), 400, "VALIDATION_ERROR");
    }
  });

  test("an unknown field → 400 VALIDATION_ERROR", async () => {
    const externalId = uid("unknown-field");
    expectError(await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId, email: "a@b.c" } }), 400, "VALIDATION_ERROR");
    // Nothing was created.
    const r = await list(owner, `includeDeactivated=true&search=${encodeURIComponent(externalId)}`);
    expect(r.body.meta.total).toBe(0);
  });

  test("an externalId already used in the environment by an active customer → 409 EXTERNAL_ID_IN_USE with details.customerId and details.deactivated false", async () => {
    const externalId = uid("dup");
    const first = await create(owner, { externalId, name: "First" });
    const r = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId, name: "Second" } });
    expectError(r, 409, "EXTERNAL_ID_IN_USE");
    expect(r.body.details).toEqual({ customerId: first.id, deactivated: false });
    const l = await list(owner, `includeDeactivated=true&search=${encodeURIComponent(externalId)}`);
    expect(l.body.data.map((c: any) => c.id)).toEqual([first.id]);
  });

  test("an externalId used by a deactivated customer → 409 EXTERNAL_ID_IN_USE with details.deactivated true", async () => {
    const externalId = uid("dup-deact");
    const first = await create(owner, { externalId });
    expectOk(await deactivate(owner, first.id));
    const r = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId } });
    expectError(r, 409, "EXTERNAL_ID_IN_USE");
    expect(r.body.details).toEqual({ customerId: first.id, deactivated: true });
  });

  test("the same externalId in the other environment is not a conflict (unique per environment)", async () => {
    const externalId = uid("both-envs");
    const t = await create(owner, { externalId });
    const l = await create(ownerLive, { externalId });
    expect(l.id).not.toBe(t.id);
    expect(t.environment).toBe("test");
    expect(l.environment).toBe("live");
    expect(l.externalId).toBe(externalId);
  });

  test("an erased customer's externalId is free again", async () => {
    const externalId = uid("reuse");
    const first = await create(owner, { externalId });
    expectOk(await erase(owner, first.id));
    const again = await create(owner, { externalId });
    expect(again.id).not.toBe(first.id);
    expect(again.externalId).toBe(externalId);
  });

  test("two concurrent creates with the same externalId → exactly one 201 and one 409 EXTERNAL_ID_IN_USE", async () => {
    for (let round = 0; round < 3; round++) {
      const externalId = uid("race");
      const [a, b] = await Promise.all([
        call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId, name: "A" } }),
        call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId, name: "B" } }),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      const won = a.status === 201 ? a : b;
      const lost = a.status === 201 ? b : a;
      expectError(lost, 409, "EXTERNAL_ID_IN_USE");
      expect(lost.body.details).toEqual({ customerId: won.body.data.id, deactivated: false });
      const l = await list(owner, `includeDeactivated=true&search=${encodeURIComponent(externalId)}`);
      expect(l.body.meta.total).toBe(1);
      expect(l.body.data[0].id).toBe(won.body.data.id);
    }
  });

  test("POST /api/v2/customers needs scope customers:write (403 INSUFFICIENT_SCOPE naming it); analyst (read-only role) is refused", async () => {
    const r = await call("/api/v2/customers", { method: "POST", key: readOnly.key, json: {} });
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("customers:write");
    expectError(await call("/api/v2/customers", { method: "POST", key: analyst.key, json: {} }), 403, "INSUFFICIENT_PERMISSION");
    // A developer (test only) may create customers.
    expect((await call("/api/v2/customers", { method: "POST", key: developer.key, json: {} })).status).toBe(201);
  });
});

describe("list", () => {
  test("list items have exactly id, externalId, name, publicKey, environment, walletCount, createdAt, updatedAt, deactivatedAt, erasedAt", async () => {
    const externalId = uid("fields");
    const c = await create(owner, { externalId, name: "Field Person" });
    const r = await list(owner, `search=${encodeURIComponent(externalId)}`);
    expectOk(r);
    expect(r.body.data).toHaveLength(1);
    const item = r.body.data[0];
    expect(keysOf(item)).toEqual(LIST_FIELDS);
    expect(item).toEqual({
      id: c.id,
      externalId,
      name: "Field Person",
      publicKey: c.publicKey,
      environment: "test",
      walletCount: 0,
      createdAt: c.createdAt,
      updatedAt: item.updatedAt,
      deactivatedAt: null,
      erasedAt: null,
    });
    expect(item.updatedAt).toMatch(ISO_MS);
  });

  test("list envelope: data array; meta has apiVersion, timestamp, cursor, hasMore, total, limit", async () => {
    const r = await list(owner);
    expectOk(r);
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(typeof r.body.meta.hasMore).toBe("boolean");
    expect(typeof r.body.meta.total).toBe("number");
    expect(r.body.meta.limit).toBe(50);
    expect(r.body.meta.cursor === null || typeof r.body.meta.cursor === "string").toBe(true);
  });

  test("newest first", async () => {
    const tag = uid("order");
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await create(owner, { externalId: `${tag}-${i}` })).id);
      await Bun.sleep(3);
    }
    const r = await list(owner, `search=${encodeURIComponent(tag)}`);
    expect(r.body.data.map((c: any) => c.id)).toEqual([...ids].reverse());
    const all = await list(owner, "includeDeactivated=true&limit=100");
    const times = all.body.data.map((c: any) => c.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  test("default lists active customers only; includeDeactivated=false is the same; includeDeactivated=true adds deactivated and erased", async () => {
    const tag = uid("states");
    const active = await create(owner, { externalId: `${tag}-active` });
    const deactivated = await create(owner, { externalId: `${tag}-deactivated` });
    const erased = await create(owner, { externalId: `${tag}-erased` });
    expectOk(await deactivate(owner, deactivated.id));
    expectOk(await erase(owner, erased.id));
    const byDefault = await list(owner, `search=${encodeURIComponent(tag)}`);
    expect(byDefault.body.data.map((c: any) => c.id)).toEqual([active.id]);
    expect(byDefault.body.meta.total).toBe(1);
    const explicitFalse = await list(owner, `includeDeactivated=false&search=${encodeURIComponent(tag)}`);
    expect(explicitFalse.body.data.map((c: any) => c.id)).toEqual([active.id]);
    // The erased customer's externalId is gone, so it is found by ID in the full list.
    const withDeactivated = await list(owner, `includeDeactivated=true&search=${encodeURIComponent(tag)}`);
    expect(withDeactivated.body.data.map((c: any) => c.id).sort()).toEqual([active.id, deactivated.id].sort());
    const e = await findItem(owner, erased.id);
    expect(e).toBeDefined();
    expect(e.erasedAt).toMatch(ISO_MS);
    const all = await list(owner, "includeDeactivated=true&limit=100");
    const act = await list(owner, "limit=100");
    expect(all.body.meta.total).toBeGreaterThan(act.body.meta.total);
    expect(act.body.data.every((c: any) => c.deactivatedAt === null && c.erasedAt === null)).toBe(true);
  });

  test("status is not a parameter: status=active → 400 INVALID_QUERY", async () => {
    const r = await list(owner, "status=active");
    expectError(r, 400, "INVALID_QUERY");
    expect(issuePaths(r)).toEqual(["status"]);
  });

  test("an unknown parameter → 400 INVALID_QUERY with details.issues naming it", async () => {
    const r = await list(owner, "colour=red&limit=10");
    expectError(r, 400, "INVALID_QUERY");
    expect(issuePaths(r)).toEqual(["colour"]);
    const two = await list(owner, "colour=red&size=3");
    expectError(two, 400, "INVALID_QUERY");
    expect(issuePaths(two)).toEqual(["colour", "size"]);
  });

  test("includeDeactivated other than true or false (e.g. maybe) → 400 INVALID_QUERY", async () => {
    for (const v of ["maybe", "1", "TRUE", "yes", ""]) {
      const r = await list(owner, `includeDeactivated=${v}`);
      expectError(r, 400, "INVALID_QUERY");
      expect(issuePaths(r)).toEqual(["includeDeactivated"]);
    }
  });

  test("limit is 1 to 100: 0 and 101 → 400 INVALID_QUERY; 1 and 100 allowed; default 50", async () => {
    for (const v of ["0", "101", "-1", "abc", "2.5"]) {
      const r = await list(owner, `limit=${v}`);
      expectError(r, 400, "INVALID_QUERY");
      expect(issuePaths(r)).toEqual(["limit"]);
    }
    const one = await list(owner, "limit=1&includeDeactivated=true");
    expectOk(one);
    expect(one.body.meta.limit).toBe(1);
    expect(one.body.data).toHaveLength(1);
    const hundred = await list(owner, "limit=100");
    expectOk(hundred);
    expect(hundred.body.meta.limit).toBe(100);
  });

  test("pages: default 50; meta.cursor leads page by page to the end with no duplicates; total counts the whole list", async () => {
    const tag = uid("paging");
    const made: string[] = [];
    for (let i = 0; i < 55; i += 5) {
      const batch = await Promise.all(Array.from({ length: Math.min(5, 55 - i) }, (_, j) => create(owner, { externalId: `${tag}-${i + j}` })));
      made.push(...batch.map((c) => c.id));
    }
    expect(made).toHaveLength(55);
    const q = `search=${encodeURIComponent(tag)}`;

    const first = await list(owner, q);
    expectOk(first);
    expect(first.body.data).toHaveLength(50);
    expect(first.body.meta).toMatchObject({ limit: 50, hasMore: true, total: 55 });
    expect(typeof first.body.meta.cursor).toBe("string");

    const whole = await list(owner, `${q}&limit=100`);
    expect(whole.body.data).toHaveLength(55);
    expect(whole.body.meta).toMatchObject({ limit: 100, hasMore: false, total: 55, cursor: null });
    expect(whole.body.data.map((c: any) => c.id).sort()).toEqual([...made].sort());
    expect(first.body.data.map((c: any) => c.id)).toEqual(whole.body.data.slice(0, 50).map((c: any) => c.id));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await list(owner, `${q}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expectOk(r);
      expect(r.body.meta.limit).toBe(7);
      expect(r.body.meta.total).toBe(55);
      seen.push(...r.body.data.map((c: any) => c.id));
      cursor = r.body.meta.cursor;
      expect(r.body.meta.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(8);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(whole.body.data.map((c: any) => c.id));
  });

  test("an item ID used as a cursor → 400 INVALID_CURSOR", async () => {
    const c = await create(owner);
    expectError(await list(owner, `cursor=${c.id}`), 400, "INVALID_CURSOR");
    const first = await list(owner, "limit=1&includeDeactivated=true");
    const good: string = first.body.meta.cursor;
    expect(typeof good).toBe("string");
    const edited = (good[0] === "A" ? "B" : "A") + good.slice(1);
    expectError(await list(owner, `limit=1&includeDeactivated=true&cursor=${encodeURIComponent(edited)}`), 400, "INVALID_CURSOR");
  });

  test("search matches part of externalId, for every role", async () => {
    const tag = uid("srch");
    const c = await create(owner, { externalId: `${tag}-ABC-xyz`, name: "Irrelevant Name" });
    for (const k of [owner, officer, analyst, developer]) {
      const r = await list(k, `search=${encodeURIComponent(`${tag}-ABC`)}`);
      expectOk(r);
      expect(r.body.data.map((x: any) => x.id)).toEqual([c.id]);
      expect(r.body.meta.total).toBe(1);
    }
    const middle = await list(analyst, `search=${encodeURIComponent(tag.slice(2))}`);
    expect(middle.body.data.map((x: any) => x.id)).toEqual([c.id]);
    const none = await list(owner, `search=${encodeURIComponent(`${tag}-nothing`)}`);
    expect(none.body.data).toEqual([]);
    expect(none.body.meta.total).toBe(0);
  });

  test("search matches part of an externalId written with non-ASCII capitals", async () => {
    const tag = uid("nonascii");
    const c = await create(owner, { externalId: `ÉTÉ-ÜBER-${tag}` });
    const r = await list(owner, `search=${encodeURIComponent(`ÉTÉ-ÜBER-${tag}`)}`);
    expectOk(r);
    expect(r.body.data.map((x: any) => x.id)).toEqual([c.id]);
  });

  test("search matches a part of two characters of an externalId, also one written with non-ASCII capitals", async () => {
    const tag = uid("short");
    const c = await create(owner, { externalId: `ŒÜ${tag}` });
    // c is the newest customer, so it heads every list it belongs to.
    const ascii = await list(owner, `search=${encodeURIComponent(tag.slice(0, 2))}&limit=1`);
    expectOk(ascii);
    expect(ascii.body.data.map((x: any) => x.id)).toEqual([c.id]);
    const r = await list(owner, `search=${encodeURIComponent("ŒÜ")}&limit=1`);
    expectOk(r);
    expect(r.body.data.map((x: any) => x.id)).toEqual([c.id]);
  });

  test("search matches names only for roles with pii:view: an analyst or developer searching a name part gets nothing, an owner or compliance officer finds it", async () => {
    const surname = `Zan${word(7)}`;
    const c = await create(owner, { externalId: uid("namesearch"), name: `Philippa ${surname}` });
    const part = surname.slice(0, 6);
    for (const k of [owner, officer]) {
      const r = await list(k, `search=${encodeURIComponent(part)}`);
      expectOk(r);
      expect(r.body.data.map((x: any) => x.id)).toEqual([c.id]);
      expect(r.body.meta.total).toBe(1);
    }
    for (const k of [analyst, developer]) {
      const r = await list(k, `search=${encodeURIComponent(part)}`);
      expectOk(r);
      expect(r.body.data).toEqual([]);
      expect(r.body.meta.total).toBe(0);
    }
  });

  test("search matches any part of a name for roles with pii:view, also a part of two characters", async () => {
    const surname = `Q${word(9)}`;
    const c = await create(owner, { externalId: uid("shortpart"), name: `Ol ${surname}` });
    // "Ol" is a whole word of the name and a part of it.
    const r = await list(owner, `search=${encodeURIComponent(`Ol ${surname.slice(0, 1)}`)}`);
    expect(r.body.data.map((x: any) => x.id)).toEqual([c.id]);
    const two = await list(owner, `search=${encodeURIComponent(surname.slice(3, 5))}&limit=100`);
    expectOk(two);
    expect(two.body.data.map((x: any) => x.id)).toContain(c.id);
  });

  test("walletCount counts the wallets registered to the customer", async () => {
    const tag = uid("wallets");
    const withWallets = await create(owner, { externalId: `${tag}-two` });
    const without = await create(owner, { externalId: `${tag}-none` });
    const before = await list(owner, `search=${encodeURIComponent(tag)}`);
    expect(before.body.data.map((c: any) => c.walletCount)).toEqual([0, 0]);
    expectOk(await registerWallet(owner, withWallets.id, "ethereum", ETH), 201);
    const after1 = await list(owner, `search=${encodeURIComponent(`${tag}-two`)}`);
    expect(after1.body.data[0].walletCount).toBe(1);
    expectOk(await registerWallet(owner, withWallets.id, "bitcoin", BTC), 201);
    const after = await list(owner, `search=${encodeURIComponent(tag)}`);
    const byId = Object.fromEntries(after.body.data.map((c: any) => [c.id, c.walletCount]));
    expect(byId).toEqual({ [withWallets.id]: 2, [without.id]: 0 });
  });

  test("GET /api/v2/customers needs scope customers:read (403 INSUFFICIENT_SCOPE naming it)", async () => {
    const r = await list(writeOnly);
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("customers:read");
    expectOk(await list(readOnly));
  });
});

describe("masking", () => {
  test("without pii:view (analyst, developer) names are masked to initials with asterisks and meta.piiMasked is true on the list", async () => {
    const externalId = uid("mask");
    const c = await create(owner, { externalId, name: "Jane van Dyke" });
    for (const k of [analyst, developer]) {
      const r = await list(k, `search=${encodeURIComponent(externalId)}`);
      expectOk(r);
      expect(r.body.meta.piiMasked).toBe(true);
      expect(r.body.data.map((x: any) => [x.id, x.name])).toEqual([[c.id, "J*** v** D***"]]);
      expect(r.text).not.toContain("Jane");
      expect(r.text).not.toContain("Dyke");
    }
  });

  test("without pii:view the create answer has the masked name and meta.piiMasked true", async () => {
    const r = await call("/api/v2/customers", { method: "POST", key: developer.key, json: { externalId: uid("devmask"), name: "Jane van Dyke" } });
    expectOk(r, 201);
    expect(keysOf(r.body.data)).toEqual(CREATE_FIELDS);
    expect(r.body.data.name).toBe("J*** v** D***");
    expect(r.body.meta.piiMasked).toBe(true);
    expect(r.text).not.toContain("Jane");
    // Stored unmasked: an owner reads the real name.
    const item = await findItem(owner, r.body.data.id);
    expect(item.name).toBe("Jane van Dyke");
  });

  test("owner and compliance officer (pii:view) see the name and no piiMasked, on list and on create", async () => {
    const externalId = uid("plain");
    const r = await call("/api/v2/customers", { method: "POST", key: owner.key, json: { externalId, name: "Jane van Dyke" } });
    expectOk(r, 201);
    expect(r.body.data.name).toBe("Jane van Dyke");
    expect("piiMasked" in r.body.meta).toBe(false);
    const byOfficer = await call("/api/v2/customers", { method: "POST", key: officer.key, json: { name: "Jane van Dyke" } });
    expectOk(byOfficer, 201);
    expect(byOfficer.body.data.name).toBe("Jane van Dyke");
    expect("piiMasked" in byOfficer.body.meta).toBe(false);
    for (const k of [owner, officer]) {
      const l = await list(k, `search=${encodeURIComponent(externalId)}`);
      expectOk(l);
      expect(l.body.data[0].name).toBe("Jane van Dyke");
      expect("piiMasked" in l.body.meta).toBe(false);
    }
  });
});

describe("environments", () => {
  test("a live key never sees test customers, and a test key never sees live ones", async () => {
    const tag = uid("env");
    const t = await create(owner, { externalId: `${tag}-t` });
    const l = await create(ownerLive, { externalId: `${tag}-l` });
    expect(l.environment).toBe("live");
    const liveView = await list(ownerLive, `includeDeactivated=true&search=${encodeURIComponent(tag)}`);
    expect(liveView.body.data.map((c: any) => c.id)).toEqual([l.id]);
    const testView = await list(owner, `includeDeactivated=true&search=${encodeURIComponent(tag)}`);
    expect(testView.body.data.map((c: any) => c.id)).toEqual([t.id]);
    const allLive = await list(ownerLive, "includeDeactivated=true&limit=100");
    expect(allLive.body.data.length).toBeGreaterThan(0);
    expect(allLive.body.data.every((c: any) => c.environment === "live")).toBe(true);
    expect(await findItem(ownerLive, t.id)).toBeUndefined();
    expect(await findItem(owner, l.id)).toBeUndefined();
  });

  test("deactivate, reactivate, erase and identity on a customer of the other environment → 404 CUSTOMER_NOT_FOUND with details.resource and details.id; nothing changes", async () => {
    const t = await create(owner, { externalId: uid("other-env") });
    const attempts = [
      () => deactivate(ownerLive, t.id),
      () => reactivate(ownerLive, t.id),
      () => erase(ownerLive, t.id),
      () => putIdentity(ownerLive, t.id, { status: "verified", persons: [natural()] }),
    ];
    for (const attempt of attempts) {
      const r = await attempt();
      expectError(r, 404, "CUSTOMER_NOT_FOUND");
      expect(r.body.details).toEqual({ resource: "Customer", id: t.id });
    }
    const item = await findItem(owner, t.id);
    expect(item).toMatchObject({ deactivatedAt: null, erasedAt: null, externalId: t.externalId });
  });

  test("a malformed or unknown customer ID → 404 CUSTOMER_NOT_FOUND", async () => {
    for (const id of ["nope", "cus_123", "wal_01hzzzzzzzzzzzzzzzzzzzzzzz", "cus_00000000000000000000000000"]) {
      for (const r of [
        await deactivate(owner, id),
        await reactivate(owner, id),
        await erase(owner, id),
        await putIdentity(owner, id, { status: "verified", persons: [natural()] }),
      ]) {
        expectError(r, 404, "CUSTOMER_NOT_FOUND");
        expect(r.body.details).toEqual({ resource: "Customer", id });
      }
    }
  });
});

describe("deactivate", () => {
  test("answers id, deactivatedAt, deactivatedBy, deactivationReason; a body is optional", async () => {
    const c = await create(owner, { externalId: uid("deact") });
    const r = await deactivate(owner, c.id, { reason: "closed account" });
    expectOk(r);
    expect(keysOf(r.body.data)).toEqual(["deactivatedAt", "deactivatedBy", "deactivationReason", "id"]);
    expect(r.body.data.id).toBe(c.id);
    expect(r.body.data.deactivatedAt).toMatch(ISO_MS);
    expect(r.body.data.deactivatedBy).toBe(owner.memberId);
    expect(r.body.data.deactivationReason).toBe("closed account");

    const noBody = await create(owner);
    const n = await deactivate(owner, noBody.id);
    expectOk(n);
    expect(keysOf(n.body.data)).toEqual(["deactivatedAt", "deactivatedBy", "deactivationReason", "id"]);
    expect(n.body.data.deactivationReason).toBeNull();
    expect(n.body.data.deactivatedBy).toBe(owner.memberId);

    const emptyBody = await create(owner);
    const e = await deactivate(owner, emptyBody.id, {});
    expectOk(e);
    expect(e.body.data.deactivationReason).toBeNull();
  });

  test("the reason is kept to its first 1,000 characters", async () => {
    const c = await create(owner);
    const reason = "🙂".repeat(1001);
    const r = await deactivate(owner, c.id, { reason });
    expectOk(r);
    expect(r.body.data.deactivationReason).toBe("🙂".repeat(1000));
    const exact = await create(owner);
    const thousand = "r".repeat(1000);
    expect((await deactivate(owner, exact.id, { reason: thousand })).body.data.deactivationReason).toBe(thousand);
  });

  test("a deactivated customer leaves the default list and shows deactivatedAt with includeDeactivated", async () => {
    const externalId = uid("leaves");
    const c = await create(owner, { externalId });
    expect((await list(owner, `search=${encodeURIComponent(externalId)}`)).body.data).toHaveLength(1);
    const d = await deactivate(owner, c.id);
    expect((await list(owner, `search=${encodeURIComponent(externalId)}`)).body.data).toEqual([]);
    const all = await list(owner, `includeDeactivated=true&search=${encodeURIComponent(externalId)}`);
    expect(all.body.data).toHaveLength(1);
    expect(all.body.data[0].deactivatedAt).toBe(d.body.data.deactivatedAt);
    expect(all.body.data[0].erasedAt).toBeNull();
  });

  test("deactivating again answers as is with id and deactivatedAt only (the same deactivatedAt)", async () => {
    const c = await create(owner);
    const first = await deactivate(owner, c.id, { reason: "first" });
    await Bun.sleep(5);
    const again = await deactivate(owner, c.id, { reason: "second" });
    expectOk(again);
    expect(again.body.data).toEqual({ id: c.id, deactivatedAt: first.body.data.deactivatedAt });
  });

  test("a deactivated customer cannot take new wallets → 400 CUSTOMER_DEACTIVATED", async () => {
    const c = await create(owner);
    expectOk(await deactivate(owner, c.id));
    expectError(await registerWallet(owner, c.id, "ethereum", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"), 400, "CUSTOMER_DEACTIVATED");
    const item = await findItem(owner, c.id);
    expect(item.walletCount).toBe(0);
  });

  test("POST .../deactivate needs scope customers:write; an analyst is refused", async () => {
    const c = await create(owner);
    const r = await deactivate(readOnly, c.id);
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("customers:write");
    expectError(await deactivate(analyst, c.id), 403, "INSUFFICIENT_PERMISSION");
    expect((await findItem(owner, c.id)).deactivatedAt).toBeNull();
    // A developer may.
    expectOk(await deactivate(developer, c.id));
  });
});

describe("reactivate", () => {
  test("a deactivated customer becomes active: { id, deactivatedAt: null }, back in the default list", async () => {
    const externalId = uid("react");
    const c = await create(owner, { externalId });
    expectOk(await deactivate(owner, c.id));
    const r = await reactivate(owner, c.id);
    expectOk(r);
    expect(r.body.data).toEqual({ id: c.id, deactivatedAt: null });
    const l = await list(owner, `search=${encodeURIComponent(externalId)}`);
    expect(l.body.data.map((x: any) => [x.id, x.deactivatedAt])).toEqual([[c.id, null]]);
    // Active again: it takes wallets.
    expectOk(await registerWallet(owner, c.id, "ethereum", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"), 201);
  });

  test("reactivating an active customer gives the same answer", async () => {
    const c = await create(owner);
    const r = await reactivate(owner, c.id);
    expectOk(r);
    expect(r.body.data).toEqual({ id: c.id, deactivatedAt: null });
  });

  test("reactivating an erased customer → 409 CUSTOMER_ERASED; it stays erased", async () => {
    const c = await create(owner);
    expectOk(await erase(owner, c.id));
    expectError(await reactivate(owner, c.id), 409, "CUSTOMER_ERASED");
    const item = await findItem(owner, c.id);
    expect(item.erasedAt).toMatch(ISO_MS);
    expect(item.deactivatedAt).toMatch(ISO_MS);
  });

  test("POST .../reactivate needs scope customers:write", async () => {
    const c = await create(owner);
    expectOk(await deactivate(owner, c.id));
    const r = await reactivate(readOnly, c.id);
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("customers:write");
    expectError(await reactivate(analyst, c.id), 403, "INSUFFICIENT_PERMISSION");
    expect((await findItem(owner, c.id)).deactivatedAt).toMatch(ISO_MS);
  });
});

describe("erase", () => {
  test("erase needs scope customers:erase: a key with only customers:read and customers:write → 403 INSUFFICIENT_SCOPE naming it", async () => {
    const c = await create(owner);
    const r = await erase(readWrite, c.id);
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("customers:erase");
    expect((await findItem(owner, c.id)).erasedAt).toBeNull();
  });

  test("roles without erasure (analyst, developer) are refused with 403", async () => {
    const c = await create(owner);
    for (const k of [analyst, developer]) {
      const r = await erase(k, c.id);
      expect(r.status).toBe(403);
      expect(["INSUFFICIENT_PERMISSION", "INSUFFICIENT_SCOPE"]).toContain(r.body.code);
    }
    expect((await findItem(owner, c.id)).erasedAt).toBeNull();
  });

  test("a compliance officer key erases: response id, erasedAt, erasedBy, deactivatedAt", async () => {
    const c = await create(owner, { name: "Officer Erased" });
    const r = await erase(officer, c.id, { reason: "GDPR Art. 17 request #1" });
    expectOk(r);
    expect(keysOf(r.body.data)).toEqual(["deactivatedAt", "erasedAt", "erasedBy", "id"]);
    expect(r.body.data.id).toBe(c.id);
    expect(r.body.data.erasedAt).toMatch(ISO_MS);
    expect(r.body.data.erasedBy).toBe(officer.memberId);
    // The customer is deactivated by the erasure.
    expect(r.body.data.deactivatedAt).toMatch(ISO_MS);
  });

  test("erasing a deactivated customer keeps its deactivatedAt", async () => {
    const c = await create(owner);
    const d = await deactivate(owner, c.id);
    await Bun.sleep(5);
    const r = await erase(owner, c.id);
    expectOk(r);
    expect(r.body.data.deactivatedAt).toBe(d.body.data.deactivatedAt);
    expect(r.body.data.erasedAt >= d.body.data.deactivatedAt).toBe(true);
  });

  test("without a reason (no body, {}, empty string, null) → 400 REASON_REQUIRED; the customer is not erased", async () => {
    const c = await create(owner, { externalId: uid("noreason") });
    for (const body of [undefined, {}, { reason: "" }, { reason: null }]) {
      expectError(await post(owner, `/api/v2/customers/${c.id}/erase`, body), 400, "REASON_REQUIRED");
    }
    const item = await findItem(owner, c.id);
    expect(item).toMatchObject({ erasedAt: null, deactivatedAt: null, externalId: c.externalId });
  });

  test("personal data is nulled in place: the customer still exists with name and externalId null, erasedAt set, deactivated, out of the default list", async () => {
    const externalId = uid("nulled");
    const c = await create(owner, { externalId, name: "Nulled Person" });
    const r = await erase(owner, c.id);
    expectOk(r);
    const item = await findItem(owner, c.id);
    expect(item).toEqual({
      id: c.id,
      externalId: null,
      name: null,
      publicKey: c.publicKey,
      environment: "test",
      walletCount: 0,
      createdAt: c.createdAt,
      updatedAt: item.updatedAt,
      deactivatedAt: r.body.data.deactivatedAt,
      erasedAt: r.body.data.erasedAt,
    });
    expect((await list(owner, `search=${encodeURIComponent(externalId)}`)).body.data).toEqual([]);
    expect((await list(owner, `includeDeactivated=true&search=${encodeURIComponent(externalId)}`)).body.data).toEqual([]);
    // Name search (pii:view) no longer finds it either.
    expect((await list(owner, "includeDeactivated=true&search=Nulled%20Person&limit=100")).body.data.map((x: any) => x.id)).not.toContain(c.id);
  });

  test("the name is never in plaintext in the database (SQLite's file and WAL, or a dump of PostgreSQL's): not after create, not after erasure", async () => {
    const name = `Wilhelmina Xyloquist ${word(10)}`;
    const c = await create(owner, { externalId: uid("bytes"), name });
    // The check reads what the server wrote: the new customer's ID is there.
    expect(databaseHolds(c.id)).toBe(true);
    expect(databaseHolds(name)).toBe(false);
    expect(databaseHolds(name.split(" ")[2])).toBe(false);
    expectOk(await erase(owner, c.id));
    expect(databaseHolds(name)).toBe(false);
    expect(databaseHolds(name.split(" ")[2])).toBe(false);
  });

  test("erasing again → 200 with id, erasedAt, alreadyErased: true", async () => {
    const c = await create(owner);
    const first = await erase(owner, c.id);
    expectOk(first);
    const again = await erase(owner, c.id, { reason: "asked twice" });
    expectOk(again);
    expect(again.body.data).toEqual({ id: c.id, erasedAt: first.body.data.erasedAt, alreadyErased: true });
  });

  test("a legal hold → 409 LEGAL_HOLD with no details; released, the erasure works", async () => {
    const externalId = uid("hold");
    const c = await create(owner, { externalId, name: "Held Person" });
    await cli("customers", "hold", "--id", c.id);
    const r = await erase(officer, c.id);
    expectError(r, 409, "LEGAL_HOLD");
    expect("details" in r.body).toBe(false);
    expect(keysOf(r.body)).toEqual(["code", "error", "meta"]);
    const held = await list(owner, `search=${encodeURIComponent(externalId)}`);
    expect(held.body.data.map((x: any) => [x.id, x.name, x.erasedAt])).toEqual([[c.id, "Held Person", null]]);

    await cli("customers", "hold", "--id", c.id, "--release");
    const ok = await erase(officer, c.id);
    expectOk(ok);
    expect(ok.body.data.id).toBe(c.id);
    expect(ok.body.data.erasedAt).toMatch(ISO_MS);
  });

  test("customers hold answers the customer's hold; every set and release is audited under the customer, by the system", async () => {
    const c = await create(owner);
    expect(JSON.parse(await cli("customers", "hold", "--id", c.id, "--json"))).toEqual({ id: c.id, environment: "test", legalHold: true });
    expect(await cli("customers", "hold", "--id", c.id)).toBe(`Customer ${c.id}: legal hold set`);
    expect(JSON.parse(await cli("customers", "hold", "--id", c.id, "--release", "--json"))).toEqual({ id: c.id, environment: "test", legalHold: false });
    const entries = (await auditOf(c.id)).body.data.filter((e: any) => e.action.startsWith("customer.legal_hold"));
    expect(entries.map((e: any) => e.action)).toEqual(["customer.legal_hold_released", "customer.legal_hold_set", "customer.legal_hold_set"]);
    for (const e of entries) {
      expect(e).toMatchObject({ entityType: "Customer", entityId: c.id, environment: "test" });
      expect([e.actor, e.detail]).toEqual([{ type: "system", memberId: null, apiKeyId: null }, {}]);
    }
    const missing = `cus_${"0".repeat(26)}`;
    await expect(cli("customers", "hold", "--id", missing)).rejects.toThrow(`no customer with id ${missing}`);
  });
});

describe("travel-rule identity", () => {
  const address = { addressType: "HOME", streetName: "Baker Street", buildingNumber: "221B", townName: "London", country: "GB" };

  test("a valid natural person → 200 { id, status }", async () => {
    const c = await create(owner);
    const r = await putIdentity(owner, c.id, { status: "verified", persons: [natural("Smith", "Jane", { geographicAddress: [address] })] });
    expectOk(r);
    expect(r.body.data).toEqual({ id: c.id, status: "verified" });
  });

  test("a legal person followed by two natural persons → 200", async () => {
    const c = await create(owner);
    const r = await putIdentity(owner, c.id, { status: "verified", persons: [legal(), natural("Doe", "John"), natural("Roe", "Mary")] });
    expectOk(r);
    expect(r.body.data).toEqual({ id: c.id, status: "verified" });
  });

  test("every status value (verified, unverified, blocked) is accepted", async () => {
    const c = await create(owner);
    for (const status of ["verified", "unverified", "blocked"]) {
      const r = await putIdentity(owner, c.id, { status, persons: [natural()] });
      expectOk(r);
      expect(r.body.data).toEqual({ id: c.id, status });
    }
  });

  test("persons holds 1 to 20: 20 persons are accepted", async () => {
    const c = await create(owner);
    const persons = [legal(), ...Array.from({ length: 19 }, (_, i) => natural(`Rep${i}`, "Person"))];
    const r = await putIdentity(owner, c.id, { status: "unverified", persons });
    expectOk(r);
    expect(r.body.data).toEqual({ id: c.id, status: "unverified" });
  });

  test("a developer may set an identity (customers:write); readers are refused", async () => {
    const c = await create(owner);
    expectOk(await putIdentity(developer, c.id, { status: "verified", persons: [natural()] }));
    const r = await putIdentity(readOnly, c.id, { status: "verified", persons: [natural()] });
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("customers:write");
    expectError(await putIdentity(analyst, c.id, { status: "verified", persons: [natural()] }), 403, "INSUFFICIENT_PERMISSION");
  });

  describe("an invalid identity → 400 VALIDATION_ERROR with details.issues naming each problem", () => {
    let id: string;
    beforeAll(async () => {
      id = (await create(owner)).id;
    });

    test("missing status", async () => {
      const r = await putIdentity(owner, id, { persons: [natural()] });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["status"]);
      expect(issueAt(r, "status").message).toContain("required");
    });

    test("a status other than verified, unverified, blocked", async () => {
      for (const status of ["approved", "VERIFIED", "", 1, null]) {
        const r = await putIdentity(owner, id, { status, persons: [natural()] });
        expectError(r, 400, "VALIDATION_ERROR");
        expect(issuePaths(r)).toEqual(["status"]);
      }
    });

    test("missing persons", async () => {
      const r = await putIdentity(owner, id, { status: "verified" });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["persons"]);
      expect(issueAt(r, "persons").message).toContain("required");
    });

    test("0 persons", async () => {
      const r = await putIdentity(owner, id, { status: "verified", persons: [] });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["persons"]);
      expect(issueAt(r, "persons").message).toContain("1");
    });

    test("21 persons", async () => {
      const persons = [legal(), ...Array.from({ length: 20 }, (_, i) => natural(`Rep${i}`, "Person"))];
      expect(persons).toHaveLength(21);
      const r = await putIdentity(owner, id, { status: "verified", persons });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["persons"]);
      expect(issueAt(r, "persons").message).toContain("20");
    });

    test("an unknown top-level field (no other field is accepted)", async () => {
      const r = await putIdentity(owner, id, { status: "verified", persons: [natural()], travelRuleIdentity: true });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["travelRuleIdentity"]);
    });

    test("a bad country code", async () => {
      const r = await putIdentity(owner, id, {
        status: "verified",
        persons: [natural("Smith", "Jane", { countryOfResidence: "ZZ", geographicAddress: [{ ...address, country: "UK" }] })],
      });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["persons[0].naturalPerson.countryOfResidence", "persons[0].naturalPerson.geographicAddress[0].country"].sort());
      const legalBad = await putIdentity(owner, id, { status: "verified", persons: [{ legalPerson: { ...legal().legalPerson, countryOfRegistration: "de" } }] });
      expectError(legalBad, 400, "VALIDATION_ERROR");
      expect(issuePaths(legalBad)).toEqual(["persons[0].legalPerson.countryOfRegistration"]);
    });

    test("a natural person without a LEGL name", async () => {
      const person = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Smith", secondaryIdentifier: "Jane", nameIdentifierType: "ALIA" }] } } };
      const r = await putIdentity(owner, id, { status: "verified", persons: [person] });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["persons[0].naturalPerson.name.nameIdentifier"]);
      expect(issueAt(r, "persons[0].naturalPerson.name.nameIdentifier").message).toContain("LEGL");
    });

    test("a legal person without a LEGL name", async () => {
      const person = { legalPerson: { name: { nameIdentifier: [{ legalPersonName: "Acme", legalPersonNameIdentifierType: "TRAD" }] } } };
      const r = await putIdentity(owner, id, { status: "verified", persons: [person, natural()] });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["persons[0].legalPerson.name.nameIdentifier"]);
      expect(issueAt(r, "persons[0].legalPerson.name.nameIdentifier").message).toContain("LEGL");
    });

    test("two natural persons without a legal person first (one natural person, or a legal person followed by its representatives)", async () => {
      const r = await putIdentity(owner, id, { status: "verified", persons: [natural(), natural("Doe", "John")] });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(["persons[1]"]);
      const legalLast = await putIdentity(owner, id, { status: "verified", persons: [natural(), legal()] });
      expectError(legalLast, 400, "VALIDATION_ERROR");
      expect(issuePaths(legalLast)).toEqual(["persons[1]"]);
    });

    test("several problems at once are each named", async () => {
      const person = {
        naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Smith", nameIdentifierType: "ALIA" }] }, countryOfResidence: "UK" },
      };
      const r = await putIdentity(owner, id, { status: "approved", persons: [person], extra: 1 });
      expectError(r, 400, "VALIDATION_ERROR");
      expect(issuePaths(r)).toEqual(
        ["extra", "status", "persons[0].naturalPerson.name.nameIdentifier", "persons[0].naturalPerson.countryOfResidence"].sort(),
      );
    });

    test("a body that is not a JSON object", async () => {
      for (const raw of ["[]", '"verified"', "3", "null"]) {
        const r = await call(`/api/v2/customers/${id}/travel-rule-identity`, { method: "PUT", key: owner.key, raw });
        expectError(r, 400, "VALIDATION_ERROR");
        expect(Array.isArray(r.body.details?.issues)).toBe(true);
      }
    });
  });

  test("a deactivated or erased customer → 404 CUSTOMER_NOT_FOUND", async () => {
    const d = await create(owner);
    expectOk(await deactivate(owner, d.id));
    const rd = await putIdentity(owner, d.id, { status: "verified", persons: [natural()] });
    expectError(rd, 404, "CUSTOMER_NOT_FOUND");
    expect(rd.body.details).toEqual({ resource: "Customer", id: d.id });
    const e = await create(owner);
    expectOk(await erase(owner, e.id));
    const re = await putIdentity(owner, e.id, { status: "verified", persons: [natural()] });
    expectError(re, 404, "CUSTOMER_NOT_FOUND");
    expect(re.body.details).toEqual({ resource: "Customer", id: e.id });
    // Reactivated, it is active again and takes an identity.
    expectOk(await reactivate(owner, d.id));
    expectOk(await putIdentity(owner, d.id, { status: "verified", persons: [natural()] }));
  });

  test("a customer whose metadata is not a JSON object → 409 METADATA_NOT_OBJECT", async () => {
    for (const metadata of [[1, 2], "text", 7, true]) {
      const c = await create(owner, { metadata });
      expectError(await putIdentity(owner, c.id, { status: "verified", persons: [natural()] }), 409, "METADATA_NOT_OBJECT");
    }
    const obj = await create(owner, { metadata: { crm: "x-1", travelRuleIdentity: { status: "verified" } } });
    expectOk(await putIdentity(owner, obj.id, { status: "verified", persons: [natural()] }));
    const none = await create(owner);
    expectOk(await putIdentity(owner, none.id, { status: "verified", persons: [natural()] }));
  });

  test("the identity is stored encrypted and never returned: not by the PUT, the list, the audit log or a GET of its path", async () => {
    const marker = `Quax${word(10)}`;
    const externalId = uid("ident-hidden");
    const c = await create(owner, { externalId, name: "Hidden Identity" });
    const put = await putIdentity(owner, c.id, { status: "verified", persons: [natural(marker, "Jane", { geographicAddress: [{ ...address, townName: `${marker}ton` }] })] });
    expectOk(put);
    expect(put.body.data).toEqual({ id: c.id, status: "verified" });
    expect(put.text).not.toContain(marker);
    for (const k of [owner, officer, analyst]) {
      const l = await list(k, `includeDeactivated=true&search=${encodeURIComponent(externalId)}`);
      expect(l.body.data).toHaveLength(1);
      expect(keysOf(l.body.data[0])).toEqual(LIST_FIELDS);
      expect(l.text).not.toContain(marker);
    }
    expect((await auditOf(c.id)).text).not.toContain(marker);
    const get = await call(`/api/v2/customers/${c.id}/travel-rule-identity`, { key: owner.key });
    expect(get.status).toBe(405);
    expect(get.text).not.toContain(marker);
    expect(databaseHolds(c.id)).toBe(true);
    expect(databaseHolds(marker)).toBe(false);
  });

  test("the audit log records customer.identity_set with the status only (no name)", async () => {
    const c = await create(owner, { name: "Audited Identity Person" });
    expectOk(await putIdentity(owner, c.id, { status: "blocked", persons: [natural("Auditson", "Ingrid")] }));
    const a = await auditOf(c.id);
    const entries = a.body.data.filter((e: any) => e.action === "customer.identity_set");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ entityType: "Customer", entityId: c.id, environment: "test", detail: { status: "blocked" } });
    expect(entries[0].detail).toEqual({ status: "blocked" });
    expect(entries[0].actor.memberId).toBe(owner.memberId);
    expect(a.text).not.toContain("Auditson");
    expect(a.text).not.toContain("Ingrid");
    expect(a.text).not.toContain("Audited Identity Person");
  });
});

describe("audit", () => {
  test("create, deactivate, reactivate and erase each write an audit entry for the customer, without the name", async () => {
    const name = `Audit ${word(8)}`;
    const c = await create(owner, { externalId: uid("audit"), name });
    const actions = async () => (await auditOf(c.id)).body.data.map((e: any) => e.action);
    expect(await actions()).toEqual(["customer.created"]);
    expectOk(await deactivate(owner, c.id, { reason: "audit reason" }));
    expect(await actions()).toEqual(["customer.deactivated", "customer.created"]);
    expectOk(await reactivate(owner, c.id));
    expect(await actions()).toEqual(["customer.reactivated", "customer.deactivated", "customer.created"]);
    expectOk(await erase(officer, c.id));
    const a = await auditOf(c.id);
    expect(a.body.data.map((e: any) => e.action)).toEqual(["customer.erased", "customer.reactivated", "customer.deactivated", "customer.created"]);
    for (const e of a.body.data) {
      expect(e).toMatchObject({ entityType: "Customer", entityId: c.id, environment: "test" });
      expect(e.createdAt).toMatch(ISO_MS);
    }
    expect(a.body.data[0].actor.memberId).toBe(officer.memberId);
    expect(a.body.data[3].actor.memberId).toBe(owner.memberId);
    expect(a.text).not.toContain(name);
  });
});
