// GET /api/v2/me (a designed extension, docs/api.md): who a key is, for any valid key, never the key itself.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, ISO_MS } from "../support/api.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "me.db");
let S: ChildServer;
const { newKey, call, cli } = apiClient(db, () => S.url);

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  S = await startServer({ CARAVAN_DB: db });
});
afterAll(async () => {
  await S?.stop();
});

test("an analyst's key learns its company, environment, member, role, scopes and permissions; the key is not in the answer", async () => {
  const k = await newKey("--env", "test", "--role", "analyst", "--scopes", "cases:read");
  const r = await call("/api/v2/me", { key: k.key });
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual({
    company: { slug: "default" },
    environment: "test",
    member: { id: k.memberId, email: k.memberEmail, role: "analyst" },
    key: { id: k.id, scopes: ["cases:read"] },
    permissions: expect.any(Array),
  });
  expect(r.body.data.permissions).toContain("cases:view");
  expect(r.body.data.permissions).not.toContain("pii:view");
  expect(r.body.data.permissions).not.toContain("cases:resolve");
  expect(r.body.meta.apiVersion).toBe(2);
  expect(r.body.meta.timestamp).toMatch(ISO_MS);
  expect(r.text).not.toContain(k.key);
});

test("a key with no read scope at all may still ask who it is; a live owner sees live and every permission", async () => {
  const k = await newKey("--env", "live", "--role", "owner", "--scopes", "transfers:write");
  const r = await call("/api/v2/me", { key: k.key });
  expect(r.status).toBe(200);
  expect(r.body.data.environment).toBe("live");
  expect(r.body.data.key.scopes).toEqual(["transfers:write"]);
  expect(r.body.data.permissions).toContain("pii:view");
});

test("no key → 401 MISSING_KEY; an unknown key → 401 KEY_NOT_FOUND; a revoked key → 401 KEY_REVOKED", async () => {
  expectError(await call("/api/v2/me"), 401, "MISSING_KEY");
  expectError(await call("/api/v2/me", { key: `crv_test_${"0".repeat(64)}` }), 401, "KEY_NOT_FOUND");
  const k = await newKey("--env", "test", "--role", "owner");
  await cli("keys", "revoke", "--id", k.id);
  expectError(await call("/api/v2/me", { key: k.key }), 401, "KEY_REVOKED");
});

test("other methods → 405 with Allow: GET", async () => {
  const k = await newKey("--env", "test", "--role", "owner");
  const r = await call("/api/v2/me", { method: "POST", key: k.key, json: {} });
  expectError(r, 405, "METHOD_NOT_ALLOWED");
  expect(r.headers.get("allow")).toContain("GET");
});
