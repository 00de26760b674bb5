// "503 Temporarily unavailable (... company not ready ...); Retry-After sent when a retry may succeed": while the
// service cannot serve a company yet (starting: its actors not running; or stopping), every API route answers
// 503 COMPANY_NOT_READY with Retry-After. Real HTTP on loopback: the service is started in this process on a real
// SQLite file, and the same application is served a second time with its readiness reported false, as it is
// between the database being opened and the actors running.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { apiClient, expectError } from "../support/api.ts";
import { startService, type RunningService } from "../../src/services.ts";
import { createApp } from "../../src/http/app.ts";
import { listen, type RunningServer } from "../../src/adapters/server/index.ts";

// A real service on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "ready.db");
let svc: RunningService;
let starting: RunningServer;
let startingUrl: string;
const { newKey } = apiClient(db, () => svc.url);
let key: string;

beforeAll(async () => {
  svc = await startService({ dbPath: db, host: "127.0.0.1", port: 0, logLevel: "silent", env: {} });
  key = (await newKey("--env", "test", "--role", "owner")).key;
  const app = createApp({ ...svc, ready: () => false });
  starting = await listen((req) => app.fetch(req), { hostname: "127.0.0.1", port: 0 });
  startingUrl = `http://127.0.0.1:${starting.port}`;
});

afterAll(async () => {
  await starting?.stop();
  await svc?.stop();
});

async function get(base: string, path: string, init: RequestInit = {}) {
  const res = await fetch(base + path, { ...init, headers: { "x-api-key": key, ...(init.headers ?? {}) } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, text };
}

test("company not ready: a read answers 503 COMPANY_NOT_READY with Retry-After, and nothing else", async () => {
  const r = await get(startingUrl, "/api/v2/customers");
  expectError(r, 503, "COMPANY_NOT_READY");
  expect(r.headers.get("retry-after")).toBe("5");
  expect(r.body.data).toBeUndefined();
});

test("company not ready: a write answers the same and changes nothing", async () => {
  const r = await get(startingUrl, "/api/v2/customers", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ externalId: "not-ready-1" }) });
  expectError(r, 503, "COMPANY_NOT_READY");
  expect(r.headers.get("retry-after")).toBe("5");
  // Once the company is served, the customer the refused request named does not exist.
  const list = await get(svc.url, "/api/v2/customers?search=not-ready-1");
  expect(list.status).toBe(200);
  expect(list.body.data).toEqual([]);
});

test("company not ready is answered before the key is read: a request without a key gets the 503 too", async () => {
  const res = await fetch(startingUrl + "/api/v2/transfers");
  expect(res.status).toBe(503);
  expect((await res.json()).code).toBe("COMPANY_NOT_READY");
});

test("health says starting meanwhile; the ready service answers the same requests", async () => {
  const h = await fetch(startingUrl + "/healthz");
  expect(h.status).toBe(503);
  expect(await h.json()).toEqual({ status: "starting" });
  expect((await fetch(svc.url + "/healthz")).status).toBe(200);
  expect((await get(svc.url, "/api/v2/customers")).status).toBe(200);
});
