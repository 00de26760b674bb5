// Part 2 "Webhook subscription", its state table, the "Webhooks" endpoints, "Events" (headers, bodies, signature, delivery
// rules), the webhook codes of "Errors" and "Limits", over real HTTP with a real receiver on loopback (127.0.0.2, the only
// private target the test servers allow). Events come from real transfers (below the threshold: created, then completed).
// The host name that resolves to a private address is `localhost` (/etc/hosts): offline, no public DNS trick resolves.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { sqlRows, storedBytes } from "../support/db.ts";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, expectOk, ISO_MS, type Answer } from "../support/api.ts";
import { verifyWebhookSignature } from "../../src/adapters/webhooks/verify.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const db = join(dir, "webhooks.db");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
/** Automatic disabling after 2 failed deliveries in a row, at once (the default is 50 over 24 h), so the rule is seen working. */
/** The retries 0.3 s and 2 s apart instead of 1 s and 5 s (CARAVAN_WEBHOOK_RETRY_MS): the same rule, a shorter wait. */
const RETRY_MS = [300, 2_000] as const;
const SERVER_ENV = { CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2", CARAVAN_WEBHOOK_AUTO_DISABLE: "2/0", CARAVAN_WEBHOOK_RETRY_MS: RETRY_MS.join(",") };

const WEBHOOK_ID = /^whk_[0-9a-z]{26}$/;
const DELIVERY_ID = /^dlv_[0-9a-z]{26}$/;
const keysOf = (o: object) => Object.keys(o).sort();
const WEBHOOK_FIELDS = [
  "consecutiveFailures", "createdAt", "deliveryCount", "description", "environment", "events", "id", "lastDeliveryAt", "lastSuccessAt", "name", "status", "updatedAt",
  "url", "urlMasked",
];
const DELIVERY_FIELDS = ["attempts", "createdAt", "eventType", "httpStatus", "id", "lastError", "maxAttempts", "nextRetryAt", "responseTimeMs", "sentAt", "status", "subject"];
const STATS_FIELDS = ["avgResponseTimeMs", "failed", "pending", "sent", "successRate", "total"];
const TRANSFER_EVENT_FIELDS = [
  "amount", "asset", "beneficiaryStatus", "beneficiaryVaspId", "beneficiaryVaspName", "complianceStatus", "createdAt", "direction", "externalId", "id", "network",
  "originatingVaspId", "originatingVaspName", "originatorStatus", "state", "updatedAt",
];
const SIGNATURE = /^t=(\d+),alg=hmac-sha256,sig=([0-9a-f]{64})$/;

interface Key {
  key: string;
  id: string;
  memberId: string;
}
let owner: Key;
let ownerLive: Key;
let analyst: Key;
let officer: Key;
let developer: Key;
/** Owner role, key scoped to webhooks:read only: may not change webhooks, so URLs are masked. */
let readOnly: Key;
/** Owner role, key without any webhooks scope. */
let noScope: Key;
let customer: string;
let customerLive: string;

// ---- the receiver ----

interface Hit {
  path: string;
  headers: Headers;
  body: string;
  at: number;
  answeredAt?: number;
}
const hits: Hit[] = [];
type Behaviour = (hit: Hit, n: number) => Response | Promise<Response>;
const behaviours = new Map<string, Behaviour>();
const receiver = Bun.serve({
  hostname: "127.0.0.2",
  port: 0,
  idleTimeout: 60,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    const hit: Hit = { path, headers: req.headers, body: await req.text(), at: Date.now() };
    hits.push(hit);
    const n = hits.filter((h) => h.path === path).length;
    const res = await (behaviours.get(path)?.(hit, n) ?? new Response("ok"));
    hit.answeredAt = Date.now();
    return res;
  },
});
const hookUrl = (name: string) => `http://127.0.0.2:${receiver.port}/${name}`;
const hitsOf = (name: string) => hits.filter((h) => h.path === `/${name}`);
const statusReply = (status: number) => () => new Response("no", { status });

async function waitFor<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, ms = 45_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

// ---- helpers ----

const independentSig = (secret: string, t: string, body: string) => bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`${t}.${body}`)));

/** The hit is a delivery signed with `secret` by the spec's rules, checked twice: an independent HMAC and the exported helper. */
function expectSigned(h: Hit, secret: string) {
  const m = SIGNATURE.exec(h.headers.get("x-webhook-signature") ?? "");
  expect(m).not.toBeNull();
  expect(m![2]).toBe(independentSig(secret, m![1], h.body));
  expect(verifyWebhookSignature({ header: h.headers.get("x-webhook-signature"), body: h.body, secret, now: Number(m![1]) }).ok).toBe(true);
  expect(h.headers.get("content-type")).toBe("application/json");
  expect(h.headers.get("x-webhook-delivery-id")).toMatch(DELIVERY_ID);
  const body = JSON.parse(h.body);
  expect(keysOf(body)).toEqual(["data", "event", "timestamp"]);
  expect(h.headers.get("x-webhook-event")).toBe(body.event);
  expect(body.timestamp).toMatch(ISO_MS);
  return { t: Number(m![1]), body };
}

const api = "/api/v2/webhooks";
async function createHook(json: Record<string, unknown>, key: Key = owner): Promise<{ webhook: any; secret: string }> {
  const r = await call(api, { method: "POST", key: key.key, json: { name: "hook", ...json } });
  expectOk(r, 201);
  return r.body.data;
}
const getHook = (id: string, key: Key = owner) => call(`${api}/${id}`, { key: key.key });
const patchHook = (id: string, json: unknown, key: Key = owner) => call(`${api}/${id}`, { method: "PATCH", key: key.key, json });
const ping = (id: string, key: Key = owner) => call(`${api}/${id}/test`, { method: "POST", key: key.key });
const deliveries = (id: string, query = "", key: Key = owner) => call(`${api}/${id}/deliveries${query ? `?${query}` : ""}`, { key: key.key });
const retry = (id: string, deliveryId: string, key: Key = owner) => call(`${api}/${id}/deliveries/${deliveryId}/retry`, { method: "POST", key: key.key });
/** A subscription that never receives anything in these tests (no case events exist yet). */
const quiet = { events: ["case.resolved"] };

async function newCustomer(key: Key): Promise<string> {
  const r = await call("/api/v2/customers", { method: "POST", key: key.key, json: { name: "Originator" } });
  expectOk(r, 201);
  return r.body.data.id;
}

/** A transfer below the threshold: completed at once, emitting transfer.created then transfer.completed. */
async function transfer(key: Key = owner, cus = customer, c: typeof call = call): Promise<string> {
  const r = await c("/api/v2/transfers", {
    method: "POST",
    key: key.key,
    headers: { "Idempotency-Key": `wh-${crypto.randomUUID()}` },
    json: {
      asset: "ETH",
      amount: "0.001",
      network: "ethereum",
      originatorCustomerId: cus,
      beneficiaryAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
    },
  });
  if (r.status !== 201) throw new Error(`transfer: ${r.status} ${r.text}`);
  return r.body.data.id;
}

const eventOf = (h: Hit) => JSON.parse(h.body) as { event: string; timestamp: string; data: Record<string, any> };


beforeAll(async () => {
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  owner = await newKey("--env", "test", "--role", "owner");
  ownerLive = await newKey("--env", "live", "--role", "owner");
  analyst = await newKey("--env", "test", "--role", "analyst");
  officer = await newKey("--env", "test", "--role", "compliance_officer");
  developer = await newKey("--env", "test", "--role", "developer");
  readOnly = await newKey("--env", "test", "--role", "owner", "--scopes", "webhooks:read");
  noScope = await newKey("--env", "test", "--role", "owner", "--scopes", "customers:read");
  S = await startServer({ CARAVAN_DB: db, ...SERVER_ENV });
  customer = await newCustomer(owner);
  customerLive = await newCustomer(ownerLive);
}, 120_000);

afterAll(async () => {
  await S?.stop();
  void receiver.stop(true);
});

describe("subscriptions", () => {
  test("create: 201 {webhook, secret}; secret 64 hex shown once; active; health fields start empty", async () => {
    const r = await call(api, { method: "POST", key: owner.key, json: { name: "Ops", url: hookUrl("create"), events: ["transfer.created", "case.updated"], description: "ledger" } });
    expectOk(r, 201);
    expect(keysOf(r.body.data)).toEqual(["secret", "webhook"]);
    const { webhook: w, secret } = r.body.data;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(keysOf(w)).toEqual(WEBHOOK_FIELDS);
    expect(w).toMatchObject({
      name: "Ops", url: hookUrl("create"), urlMasked: false, events: ["transfer.created", "case.updated"], status: "active", description: "ledger",
      environment: "test", consecutiveFailures: 0, lastDeliveryAt: null, lastSuccessAt: null, deliveryCount: 0,
    });
    expect(w.id).toMatch(WEBHOOK_ID);
    expect(w.createdAt).toMatch(ISO_MS);
    expect(w.updatedAt).toBe(w.createdAt);
    // Never again: not in GET, not in the list.
    expect((await getHook(w.id)).text).not.toContain(secret);
    expect((await call(api, { key: owner.key })).text).not.toContain(secret);
    await patchHook(w.id, { status: "paused" });
  });

  test("the secret is encrypted at rest: no byte of the database holds it", async () => {
    const { webhook, secret } = await createHook({ url: hookUrl("at-rest"), ...quiet });
    expect(storedBytes(db).includes(Buffer.from(secret))).toBe(false);
    expect((sqlRows(db, "SELECT secret_sealed FROM webhooks WHERE id = ?", webhook.id)[0] as { secret_sealed: string }).secret_sealed).toStartWith("v1:");
  });

  test("422 VALIDATION_ERROR with details.issues: required fields, limits (name 100, description 500), events, unknown fields, wrong types", async () => {
    const url = hookUrl("invalid");
    const cases: [unknown, string[]][] = [
      [{}, ["name", "url", "events"]],
      [{ name: "x".repeat(101), url, events: ["*"] }, ["name"]],
      [{ name: "n", url, events: ["*"], description: "d".repeat(501) }, ["description"]],
      [{ name: "n", url, events: [] }, ["events"]],
      [{ name: "n", url, events: ["test.ping"] }, ["events.0"]],
      [{ name: "n", url, events: ["*", "transfer.created"] }, ["events.0"]],
      [{ name: "n", url, events: ["transfer.nope"] }, ["events.0"]],
      [{ name: "n", url, events: ["*"], secret: "mine" }, ["secret"]],
      [{ name: 5, url: 5, events: ["*"] }, ["name", "url"]],
      [[], [""]],
    ];
    for (const [json, paths] of cases) {
      const r = await call(api, { method: "POST", key: owner.key, json });
      expectError(r, 422, "VALIDATION_ERROR");
      expect(r.body.details.issues.map((i: { path: string }) => i.path)).toEqual(paths);
    }
    expectOk(await call(api, { method: "POST", key: owner.key, json: { name: "x".repeat(100), url, ...quiet, description: "d".repeat(500) } }), 201);
    expectError(await call(api, { method: "POST", key: owner.key, raw: "{nope" }), 400, "INVALID_JSON");
  });

  test("422 INVALID_URL for the URL's form: not a URL, another scheme, credentials, over 2,048 characters, plain http to a public host", async () => {
    const long = "https://93.184.216.34/" + "a".repeat(2049 - 22);
    for (const url of ["not a url", "ftp://93.184.216.34/x", "https://u:p@93.184.216.34/x", long, "http://93.184.216.34/hook"]) {
      const r = await call(api, { method: "POST", key: owner.key, json: { name: "n", url, ...quiet } });
      expectError(r, 422, "INVALID_URL");
      expect(r.body.details.field).toBe("url");
    }
    const ok = "https://93.184.216.34/" + "a".repeat(2048 - 22);
    expect(ok.length).toBe(2048);
    expectOk(await call(api, { method: "POST", key: owner.key, json: { name: "n", url: ok, ...quiet } }), 201);
  });

  test("GET /:id answers the subscription itself (no data envelope) with stats and recentDeliveries, never the secret; 404 elsewhere", async () => {
    const { webhook, secret } = await createHook({ url: hookUrl("get"), ...quiet });
    const r = await getHook(webhook.id);
    expect(r.status).toBe(200);
    expect(keysOf(r.body)).toEqual([...WEBHOOK_FIELDS, "recentDeliveries", "stats"].sort());
    expect(r.body.stats).toEqual({ total: 0, sent: 0, failed: 0, pending: 0, successRate: null, avgResponseTimeMs: null });
    expect(r.body.recentDeliveries).toEqual([]);
    expect(r.text).not.toContain(secret);
    expectError(await getHook("whk_00000000000000000000000000"), 404, "WEBHOOK_NOT_FOUND");
    expectError(await getHook("not-an-id"), 404, "WEBHOOK_NOT_FOUND");
    // A subscription of the other environment is not found (Part 2).
    for (const r2 of [await getHook(webhook.id, ownerLive), await patchHook(webhook.id, { name: "x" }, ownerLive), await ping(webhook.id, ownerLive), await deliveries(webhook.id, "", ownerLive)])
      expectError(r2, 404, "WEBHOOK_NOT_FOUND");
  });

  test("list: newest first, status filter, search (ID, name, URL, status, description, whole event type), cursor pages, meta", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const a = (await createHook({ name: `alpha-${tag}`, url: hookUrl(`list-${tag}-a`), events: ["case.resolved"], description: `first ${tag}` })).webhook;
    const b = (await createHook({ name: `beta-${tag}`, url: hookUrl(`list-${tag}-b`), events: ["case.created"] })).webhook;
    const c = (await createHook({ name: `gamma-${tag}`, url: hookUrl(`list-${tag}-c`), events: ["*"] })).webhook;
    expectOk(await patchHook(c.id, { status: "paused" }));
    const ids = (r: Answer) => r.body.data.map((w: any) => w.id);
    const all = await call(`${api}?search=${tag}`, { key: owner.key });
    expectOk(all);
    expect(ids(all)).toEqual([c.id, b.id, a.id]);
    expect(all.body.meta).toMatchObject({ total: 3, hasMore: false, cursor: null, limit: 50 });
    for (const w of all.body.data) expect(keysOf(w)).toEqual(WEBHOOK_FIELDS);
    const search = async (s: string) => ids(await call(`${api}?search=${encodeURIComponent(s)}&limit=200`, { key: owner.key })).filter((id: string) => [a.id, b.id, c.id].includes(id));
    expect(await search(`ALPHA-${tag}`)).toEqual([a.id]);
    expect(await search(`list-${tag}-b`)).toEqual([b.id]);
    expect(await search(b.id.slice(-10))).toEqual([b.id]);
    expect(await search(`first ${tag}`)).toEqual([a.id]);
    expect(await search("case.created")).toEqual([c.id, b.id]);
    expect(await search("case.creat")).toEqual([]);
    const paused = await call(`${api}?status=paused&search=${tag}`, { key: owner.key });
    expect(ids(paused)).toEqual([c.id]);
    // Pages of one, by the opaque cursor.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: Answer = await call(`${api}?search=${tag}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: owner.key });
      expectOk(r);
      expect(r.body.meta.total).toBe(3);
      seen.push(...ids(r));
      cursor = r.body.meta.cursor;
    } while (cursor);
    expect(seen).toEqual([c.id, b.id, a.id]);
    expectError(await call(`${api}?cursor=${a.id}`, { key: owner.key }), 400, "INVALID_CURSOR");
    for (const q of ["limit=0", "limit=201", "status=deleted", "search=" + "x".repeat(101), "sort=asc", "search="]) expectError(await call(`${api}?${q}`, { key: owner.key }), 400, "INVALID_QUERY");
    expectOk(await call(`${api}?limit=200&search=${"x".repeat(100)}`, { key: owner.key }));
  });

  test("PATCH: any field; answer {webhook}; a new URL is checked as on create; regenerateSecret answers the new secret once", async () => {
    const { webhook: w, secret } = await createHook({ url: hookUrl("patch-old"), events: ["case.created"] });
    const r = await patchHook(w.id, { name: "renamed", url: hookUrl("patch"), events: ["transfer.held", "transfer.failed"], description: "d" });
    expectOk(r);
    expect(keysOf(r.body.data)).toEqual(["webhook"]);
    expect(r.body.data.webhook).toMatchObject({ name: "renamed", url: hookUrl("patch"), events: ["transfer.held", "transfer.failed"], description: "d", status: "active" });
    expect(r.body.data.webhook.updatedAt >= w.updatedAt).toBe(true);
    for (const status of ["paused", "disabled", "active"]) expect((await patchHook(w.id, { status })).body.data.webhook.status).toBe(status);
    expectError(await patchHook(w.id, { url: "https://10.0.0.1/x" }), 422, "INVALID_URL");
    expectError(await patchHook(w.id, { url: "https://localhost/x" }), 422, "INVALID_URL");
    for (const json of [{}, { status: "archived" }, { regenerateSecret: "yes" }, { id: "whk_x" }, { events: ["test.ping"] }, { name: "" }]) expectError(await patchHook(w.id, json), 422, "VALIDATION_ERROR");
    expectError(await patchHook("whk_00000000000000000000000000", { name: "x" }), 404, "WEBHOOK_NOT_FOUND");

    const g = await patchHook(w.id, { regenerateSecret: true });
    expectOk(g);
    expect(keysOf(g.body.data)).toEqual(["secret", "webhook"]);
    const fresh = g.body.data.secret;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(secret);
    expect((await getHook(w.id)).text).not.toContain(fresh);
    // The next delivery is signed with the new secret only.
    expect((await ping(w.id)).body.data.success).toBe(true);
    const h = hitsOf("patch").at(-1)!;
    expectSigned(h, fresh);
    expect(verifyWebhookSignature({ header: h.headers.get("x-webhook-signature"), body: h.body, secret }).ok).toBe(false);
    await patchHook(w.id, { status: "paused" });
  });

  test("URL masked as origin + /*** with urlMasked for keys that may not change webhooks (role without webhooks:update, or no webhooks:write); search cannot probe the path", async () => {
    const { webhook } = await createHook({ name: "masked", url: hookUrl("masked/path?token=s3cr3t"), ...quiet });
    const origin = `http://127.0.0.2:${receiver.port}`;
    for (const k of [analyst, officer, readOnly]) {
      const g = await getHook(webhook.id, k);
      expect(g.status).toBe(200);
      expect(g.body.url).toBe(`${origin}/***`);
      expect(g.body.urlMasked).toBe(true);
      expect(g.text).not.toContain("s3cr3t");
      const l = await call(`${api}?search=${webhook.id}`, { key: k.key });
      expect(l.body.data[0]).toMatchObject({ id: webhook.id, url: `${origin}/***`, urlMasked: true });
      expect((await call(`${api}?search=s3cr3t`, { key: k.key })).body.data.map((w: any) => w.id)).not.toContain(webhook.id);
    }
    for (const k of [owner, developer]) {
      expect((await getHook(webhook.id, k)).body).toMatchObject({ url: hookUrl("masked/path?token=s3cr3t"), urlMasked: false });
      expect((await call(`${api}?search=s3cr3t`, { key: k.key })).body.data.map((w: any) => w.id)).toContain(webhook.id);
    }
  });

  test("scopes and role permissions: webhooks:read/view to read; webhooks:write with create, update, test for changes", async () => {
    const { webhook } = await createHook({ url: hookUrl("perm"), ...quiet });
    const body = { name: "n", url: hookUrl("perm"), ...quiet };
    // No webhooks scope on the key.
    for (const r of [await call(api, { key: noScope.key }), await getHook(webhook.id, noScope), await deliveries(webhook.id, "", noScope), await call(api, { method: "POST", key: noScope.key, json: body })])
      expectError(r, 403, "INSUFFICIENT_SCOPE");
    // webhooks:read only: reads, no changes.
    expectError(await call(api, { method: "POST", key: readOnly.key, json: body }), 403, "INSUFFICIENT_SCOPE");
    expectError(await ping(webhook.id, readOnly), 403, "INSUFFICIENT_SCOPE");
    // Analyst: views only. Compliance officer: no webhook changes or tests.
    for (const k of [analyst, officer]) {
      expectOk(await call(api, { key: k.key }));
      expectError(await call(api, { method: "POST", key: k.key, json: body }), 403, "INSUFFICIENT_PERMISSION");
      expectError(await patchHook(webhook.id, { name: "x" }, k), 403, "INSUFFICIENT_PERMISSION");
      expectError(await ping(webhook.id, k), 403, "INSUFFICIENT_PERMISSION");
      expectError(await retry(webhook.id, "dlv_00000000000000000000000000", k), 403, "INSUFFICIENT_PERMISSION");
    }
    // Developer (test environment): create, update, test.
    const d = await createHook({ url: hookUrl("perm-dev"), ...quiet }, developer);
    expectOk(await patchHook(d.webhook.id, { name: "dev" }, developer));
    expect((await ping(d.webhook.id, developer)).body.data.success).toBe(true);
    expectError(await call(api), 401, "MISSING_KEY");
  });
});

describe("delivery", () => {
  test("test ping: {success, deliveryId} now, signed test.ping with the four headers; the delivery is listed without payload or signature", async () => {
    const { webhook, secret } = await createHook({ url: hookUrl("ping"), ...quiet });
    const r = await ping(webhook.id);
    expectOk(r);
    expect(keysOf(r.body.data)).toEqual(["deliveryId", "success"]);
    expect(r.body.data.success).toBe(true);
    const h = hitsOf("ping");
    expect(h.length).toBe(1);
    const { body } = expectSigned(h[0], secret);
    expect(h[0].headers.get("x-webhook-event")).toBe("test.ping");
    expect(h[0].headers.get("x-webhook-delivery-id")).toBe(r.body.data.deliveryId);
    expect(body.event).toBe("test.ping");
    expect(body.data).toEqual({ webhookId: webhook.id });
    const l = await deliveries(webhook.id);
    expectOk(l);
    expect(l.body.data.length).toBe(1);
    expect(keysOf(l.body.data[0])).toEqual(DELIVERY_FIELDS);
    expect(l.body.data[0]).toMatchObject({ id: r.body.data.deliveryId, eventType: "test.ping", status: "sent", attempts: 1, httpStatus: 200, lastError: null, nextRetryAt: null, subject: null });
    expect(l.text).not.toContain("x-webhook-signature");
    expect(l.text).not.toContain(webhook.id); // the payload (which names it) is not listed
    const g = await getHook(webhook.id);
    expect(g.body).toMatchObject({ deliveryCount: 1, consecutiveFailures: 0 });
    expect(g.body.lastSuccessAt).toMatch(ISO_MS);
    expect(g.body.stats).toMatchObject({ total: 1, sent: 1, failed: 0, pending: 0, successRate: 100 });
    expect(typeof g.body.stats.avgResponseTimeMs).toBe("number");
  });

  test("test ping to a failing receiver: {success: false, deliveryId, error}; the delivery is failed; the subscription counts the failure", async () => {
    behaviours.set("/ping-fail", statusReply(500));
    const { webhook } = await createHook({ url: hookUrl("ping-fail"), ...quiet });
    const r = await ping(webhook.id);
    expectOk(r);
    expect(r.body.data).toEqual({ success: false, deliveryId: r.body.data.deliveryId, error: "the receiver answered HTTP 500" });
    const l = await deliveries(webhook.id);
    expect(l.body.data[0]).toMatchObject({ status: "failed", attempts: 1, maxAttempts: 1, httpStatus: 500, lastError: "the receiver answered HTTP 500" });
    const g = await getHook(webhook.id);
    expect(g.body).toMatchObject({ consecutiveFailures: 1, lastSuccessAt: null });
    expect(g.body.stats).toMatchObject({ total: 1, sent: 0, failed: 1, successRate: 0 });
    await patchHook(webhook.id, { status: "paused" });
  });

  test("transfer events to [*]: transfer.created then transfer.completed, {event, timestamp, data} with exactly the Part 2 fields, signed; deliveries listed and filtered", async () => {
    const { webhook, secret } = await createHook({ url: hookUrl("all"), events: ["*"] });
    const id = await transfer();
    const mine = () => hitsOf("all").filter((h) => eventOf(h).data.id === id);
    await waitFor(() => mine().length >= 2, "two events");
    const [created, completed] = mine();
    for (const h of [created, completed]) {
      const { body } = expectSigned(h, secret);
      expect(keysOf(body.data)).toEqual(TRANSFER_EVENT_FIELDS);
      expect(body.data).toMatchObject({ id, state: "completed", asset: "ETH", amount: "0.001", network: "ethereum", direction: "outgoing" });
    }
    expect([eventOf(created).event, eventOf(completed).event]).toEqual(["transfer.created", "transfer.completed"]);
    // The event rows' own time and data.
    const rows = sqlRows(db, "SELECT type, created_at FROM events WHERE entity_id = ? ORDER BY seq", id) as { type: string; created_at: string }[];
    expect(rows.map((e) => e.type)).toEqual(["transfer.created", "transfer.completed"]);
    expect(eventOf(created).timestamp).toBe(rows[0].created_at);
    await waitFor(async () => (await deliveries(webhook.id, "status=sent")).body.meta.total >= 2, "deliveries recorded");
    const l = await deliveries(webhook.id, "eventType=transfer.created");
    expectOk(l);
    const d = l.body.data.find((x: any) => x.id === created.headers.get("x-webhook-delivery-id"));
    expect(d).toMatchObject({ eventType: "transfer.created", status: "sent", attempts: 1, maxAttempts: 3, httpStatus: 200, lastError: null, nextRetryAt: null });
    // The transfer the event concerns, from the event's row: the subject, never the payload.
    expect(d.subject).toEqual({ type: "transfer", id });
    expect(d.sentAt).toMatch(ISO_MS);
    expect(l.body.data.every((x: any) => x.eventType === "transfer.created")).toBe(true);
    expect((await deliveries(webhook.id, "status=failed")).body.data).toEqual([]);
    for (const q of ["status=done", "eventType=transfer.exploded", "limit=201", "page=2"]) expectError(await deliveries(webhook.id, q), 400, "INVALID_QUERY");
    expectError(await deliveries(webhook.id, `cursor=${d.id}`), 400, "INVALID_CURSOR");
    const g = await getHook(webhook.id);
    expect(g.body.recentDeliveries.length).toBeGreaterThanOrEqual(2);
    for (const x of g.body.recentDeliveries) expect(keysOf(x)).toEqual(DELIVERY_FIELDS);
    expect(g.body.recentDeliveries.find((x: any) => x.id === d.id).subject).toEqual({ type: "transfer", id });
    await patchHook(webhook.id, { status: "paused" });
  });

  test("a case's event names the case as the delivery's subject (from the event's row), in the list and the detail", async () => {
    const { webhook } = await createHook({ url: hookUrl("case-subject"), events: ["case.created"] });
    const c = await call("/api/v2/cases", { method: "POST", key: owner.key, json: { title: "Subject of a delivery", type: "manual_escalation" } });
    expect(c.status).toBe(201);
    const caseId = c.body.data.id as string;
    await waitFor(() => hitsOf("case-subject").length >= 1, "the case.created delivery");
    const l = await waitFor(async () => {
      const r = await deliveries(webhook.id);
      return r.body.data.length >= 1 && r;
    }, "the delivery listed");
    expect(l.body.data[0]).toMatchObject({ eventType: "case.created", subject: { type: "case", id: caseId } });
    expect(l.text).not.toContain("Subject of a delivery");
    expect((await getHook(webhook.id)).body.recentDeliveries[0].subject).toEqual({ type: "case", id: caseId });
    await patchHook(webhook.id, { status: "paused" });
  });

  test("a subscription receives only its event types", async () => {
    const { webhook } = await createHook({ url: hookUrl("only-completed"), events: ["transfer.completed"] });
    const id = await transfer();
    await waitFor(() => hitsOf("only-completed").some((h) => eventOf(h).data.id === id), "the completed event");
    await Bun.sleep(300);
    expect(hitsOf("only-completed").filter((h) => eventOf(h).data.id === id).map((h) => eventOf(h).event)).toEqual(["transfer.completed"]);
    await patchHook(webhook.id, { status: "paused" });
  });

  test("environments: a test subscription receives test events only, a live subscription live events only", async () => {
    const t = await createHook({ url: hookUrl("env-test"), events: ["*"] });
    const l = await createHook({ url: hookUrl("env-live"), events: ["*"] }, ownerLive);
    expect(l.webhook.environment).toBe("live");
    const testId = await transfer(owner, customer);
    const liveId = await transfer(ownerLive, customerLive);
    await waitFor(() => hitsOf("env-test").length >= 2 && hitsOf("env-live").length >= 2, "both environments' events");
    await Bun.sleep(300);
    expect(new Set(hitsOf("env-test").map((h) => eventOf(h).data.id))).toEqual(new Set([testId]));
    expect(new Set(hitsOf("env-live").map((h) => eventOf(h).data.id))).toEqual(new Set([liveId]));
    expectError(await getHook(l.webhook.id, owner), 404, "WEBHOOK_NOT_FOUND");
    expect((await call(api, { key: owner.key })).body.data.map((w: any) => w.id)).not.toContain(l.webhook.id);
    await patchHook(t.webhook.id, { status: "paused" });
    await patchHook(l.webhook.id, { status: "paused" }, ownerLive);
  });

  test("retries: by default 1 s after the first attempt and 5 s after the second; here at the configured delays (never earlier), resending the original signature and timestamp", async () => {
    const { retryDelayMs } = await import("../../src/domain/webhooks.ts");
    const { parseRetryDelays } = await import("../../src/adapters/webhooks/settings.ts");
    expect([retryDelayMs(1), retryDelayMs(2), retryDelayMs(3)]).toEqual([1_000, 5_000, null]);
    expect(parseRetryDelays(undefined)).toEqual([1_000, 5_000]);
    expect(parseRetryDelays("300, 2000")).toEqual([300, 2_000]);
    for (const bad of ["1000", "1000,5000,9000", "1s,5s", "-1,5", "1000,"]) expect(() => parseRetryDelays(bad)).toThrow(/CARAVAN_WEBHOOK_RETRY_MS/);
    // The third attempt is answered only once the test has seen the delivery pending between the second and third.
    let release!: () => void;
    const seenPending = new Promise<void>((r) => (release = r));
    behaviours.set("/flaky", async (_h, n) => {
      if (n === 3) await seenPending;
      return new Response(n <= 2 ? "busy" : "ok", { status: n <= 2 ? 500 : 200 });
    });
    const { webhook, secret } = await createHook({ url: hookUrl("flaky"), events: ["transfer.created"] });
    await transfer();
    await waitFor(() => hitsOf("flaky").length >= 2 && hitsOf("flaky")[1].answeredAt, "the second attempt");
    // Waiting for the third attempt: still pending, with the last error and the due time of the retry.
    const [h1, h2] = hitsOf("flaky");
    const p = await waitFor(async () => {
      const r = await deliveries(webhook.id);
      return r.body.data[0]?.attempts === 2 && r.body.data[0];
    }, "the second attempt recorded");
    expect(p).toMatchObject({ status: "pending", attempts: 2, maxAttempts: 3, httpStatus: 500, lastError: "the receiver answered HTTP 500", sentAt: null });
    expect(Date.parse(p.nextRetryAt)).toBeGreaterThanOrEqual(h2.answeredAt! + RETRY_MS[1]);
    release();
    await waitFor(() => hitsOf("flaky").length >= 3, "the third attempt");
    const h3 = hitsOf("flaky")[2];
    expect(h2.at - h1.answeredAt!).toBeGreaterThanOrEqual(RETRY_MS[0]);
    expect(h3.at - h2.answeredAt!).toBeGreaterThanOrEqual(RETRY_MS[1]);
    // Generous bounds only (a shared machine): the retries come, not minutes later.
    expect(h3.at - h1.at).toBeLessThan(30_000);
    for (const h of [h2, h3]) {
      expect(h.headers.get("x-webhook-signature")).toBe(h1.headers.get("x-webhook-signature"));
      expect(h.headers.get("x-webhook-delivery-id")).toBe(h1.headers.get("x-webhook-delivery-id"));
      expect(h.body).toBe(h1.body);
    }
    expectSigned(h3, secret);
    const done = await waitFor(async () => {
      const r = await deliveries(webhook.id);
      return r.body.data[0]?.status === "sent" && r.body.data[0];
    }, "the delivery sent");
    expect(done).toMatchObject({ attempts: 3, httpStatus: 200, lastError: null, nextRetryAt: null });
    expect((await getHook(webhook.id)).body).toMatchObject({ consecutiveFailures: 0 });
    expect(hitsOf("flaky").length).toBe(3);
    await patchHook(webhook.id, { status: "paused" });
  });

  test("order per subscription: deliveries arrive in event order, and a delivery waiting for its retry holds the ones behind it", async () => {
    let failedOnce = false;
    behaviours.set("/ordered", async () => {
      await Bun.sleep(Math.floor(Math.random() * 20));
      return new Response("ok");
    });
    behaviours.set("/ordered-retry", () => {
      if (failedOnce) return new Response("ok");
      failedOnce = true;
      return new Response("no", { status: 503 });
    });
    const a = await createHook({ url: hookUrl("ordered"), events: ["*"] });
    const b = await createHook({ url: hookUrl("ordered-retry"), events: ["*"] });
    const ids = await Promise.all(Array.from({ length: 6 }, () => transfer()));
    const expected = (sqlRows(db, `SELECT entity_id, type FROM events WHERE entity_id IN (${ids.map(() => "?").join(",")}) ORDER BY seq`, ...ids) as { entity_id: string; type: string }[]).map(
      (e) => `${e.entity_id}/${e.type}`,
    );
    expect(expected.length).toBe(12);
    const got = (name: string) => hitsOf(name).map((h) => `${eventOf(h).data.id}/${eventOf(h).event}`).filter((x) => expected.includes(x));
    await waitFor(() => got("ordered").length >= 12 && new Set(got("ordered-retry")).size >= 12, "every delivery");
    expect(got("ordered")).toEqual(expected);
    // The first delivery failed once and was retried 1 s later; nothing behind it went out meanwhile.
    expect(got("ordered-retry")).toEqual([expected[0], ...expected]);
    await patchHook(a.webhook.id, { status: "paused" });
    await patchHook(b.webhook.id, { status: "paused" });
  });

  test("a slow receiver does not delay another subscription", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    behaviours.set("/slow", async () => {
      await held;
      return new Response("ok");
    });
    const slow = await createHook({ url: hookUrl("slow"), events: ["*"] });
    const fast = await createHook({ url: hookUrl("fast"), events: ["*"] });
    const id = await transfer();
    await waitFor(() => hitsOf("fast").filter((h) => eventOf(h).data.id === id).length >= 2, "both events at the fast receiver");
    // Meanwhile the slow receiver holds the first event's request open and has nothing else.
    expect(hitsOf("slow").length).toBe(1);
    expect(hitsOf("slow")[0].answeredAt).toBeUndefined();
    release();
    await waitFor(() => hitsOf("slow").length >= 2, "the slow subscription's second event");
    expect(hitsOf("slow").map((h) => eventOf(h).event)).toEqual(["transfer.created", "transfer.completed"]);
    await patchHook(slow.webhook.id, { status: "paused" });
    await patchHook(fast.webhook.id, { status: "paused" });
  });

  test("paused: nothing is delivered; reactivated: events from then on, not those made while paused", async () => {
    const { webhook } = await createHook({ url: hookUrl("pausable"), events: ["*"] });
    const witness = await createHook({ url: hookUrl("witness"), events: ["*"] });
    expectOk(await patchHook(webhook.id, { status: "paused" }));
    const during = await transfer();
    await waitFor(() => hitsOf("witness").filter((h) => eventOf(h).data.id === during).length >= 2, "the witness's events");
    await Bun.sleep(300);
    expect(hitsOf("pausable").length).toBe(0);
    expect((await getHook(webhook.id)).body.deliveryCount).toBe(0);
    expectOk(await patchHook(webhook.id, { status: "active" }));
    const after = await transfer();
    await waitFor(() => hitsOf("pausable").length >= 2, "events after reactivation");
    await Bun.sleep(300);
    expect(new Set(hitsOf("pausable").map((h) => eventOf(h).data.id))).toEqual(new Set([after]));
    await patchHook(webhook.id, { status: "paused" });
    await patchHook(witness.webhook.id, { status: "paused" });
  });

  test("manual retry of a failed delivery: signed anew, {deliveryId, delivered}; 409 DELIVERY_NOT_FAILED, 409 WEBHOOK_NOT_ACTIVE, 404 DELIVERY_NOT_FOUND", async () => {
    let up = false;
    behaviours.set("/down", () => new Response(up ? "ok" : "down", { status: up ? 200 : 503 }));
    const { webhook, secret } = await createHook({ url: hookUrl("down"), events: ["transfer.completed"] });
    await transfer();
    const failed = await waitFor(async () => {
      const r = await deliveries(webhook.id, "status=failed");
      return r.body.data[0];
    }, "the delivery failed after 3 attempts");
    expect(failed).toMatchObject({ status: "failed", attempts: 3, maxAttempts: 3, httpStatus: 503, lastError: "the receiver answered HTTP 503", nextRetryAt: null, sentAt: null });
    expect(hitsOf("down").length).toBe(3);
    expect((await getHook(webhook.id)).body.consecutiveFailures).toBe(1);
    const original = hitsOf("down")[0].headers.get("x-webhook-signature")!;

    up = true;
    await Bun.sleep(1_100); // a new second, so the new timestamp differs from the original
    const r = await retry(webhook.id, failed.id);
    expectOk(r);
    expect(r.body.data).toEqual({ deliveryId: failed.id, delivered: true });
    const h = hitsOf("down")[3];
    expect(h.headers.get("x-webhook-delivery-id")).toBe(failed.id);
    expect(h.body).toBe(hitsOf("down")[0].body);
    const { t } = expectSigned(h, secret);
    expect(t).toBeGreaterThan(Number(SIGNATURE.exec(original)![1]));
    expect(h.headers.get("x-webhook-signature")).not.toBe(original);
    const now = (await deliveries(webhook.id)).body.data.find((d: any) => d.id === failed.id);
    expect(now).toMatchObject({ status: "sent", attempts: 4, httpStatus: 200, lastError: null });
    expect((await getHook(webhook.id)).body.consecutiveFailures).toBe(0);

    expectError(await retry(webhook.id, failed.id), 409, "DELIVERY_NOT_FAILED");
    // A failed delivery of a subscription that is not active.
    up = false;
    const p = await ping(webhook.id);
    expect(p.body.data.success).toBe(false);
    expectOk(await patchHook(webhook.id, { status: "paused" }));
    expectError(await retry(webhook.id, p.body.data.deliveryId), 409, "WEBHOOK_NOT_ACTIVE");
    // Another subscription's delivery, an unknown one, a malformed ID; an unknown subscription.
    const other = await createHook({ url: hookUrl("other"), ...quiet });
    expectError(await retry(other.webhook.id, p.body.data.deliveryId), 404, "DELIVERY_NOT_FOUND");
    expectError(await retry(webhook.id, "dlv_00000000000000000000000000"), 404, "DELIVERY_NOT_FOUND");
    expectError(await retry(webhook.id, "nope"), 404, "DELIVERY_NOT_FOUND");
    expectError(await retry("whk_00000000000000000000000000", p.body.data.deliveryId), 404, "WEBHOOK_NOT_FOUND");
    expectError(await retry(webhook.id, p.body.data.deliveryId, ownerLive), 404, "WEBHOOK_NOT_FOUND");
  });

  test("manual retry while another retry of the same delivery is on the wire: 409 DELIVERY_NOT_FAILED, and the receiver gets one request", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    behaviours.set("/held-retry", async (_hit, n) => {
      if (n <= 3) return new Response("down", { status: 503 });
      await held;
      return new Response("ok");
    });
    const { webhook } = await createHook({ url: hookUrl("held-retry"), events: ["transfer.completed"] });
    await transfer();
    const failed = await waitFor(async () => (await deliveries(webhook.id, "status=failed")).body.data[0], "the delivery failed after 3 attempts");
    const first = retry(webhook.id, failed.id);
    await waitFor(() => hitsOf("held-retry").length === 4, "the first retry on the wire");
    const second = await retry(webhook.id, failed.id);
    expectError(second, 409, "DELIVERY_NOT_FAILED");
    expect(second.body.error).toBe("This delivery is being retried by another request");
    expect(second.body.details).toEqual({ status: "pending" });
    release();
    const r = await first;
    expectOk(r);
    expect(r.body.data).toEqual({ deliveryId: failed.id, delivered: true });
    expect(hitsOf("held-retry").length).toBe(4);
    expect((await deliveries(webhook.id)).body.data.find((d: any) => d.id === failed.id)).toMatchObject({ status: "sent", attempts: 4 });
    await patchHook(webhook.id, { status: "paused" });
  });

  test("automatic disabling (here after 2 failed deliveries in a row): status disabled, audit entry by the system, the deliveries behind end failed unsent", async () => {
    behaviours.set("/dead", statusReply(500));
    const { webhook } = await createHook({ url: hookUrl("dead"), events: ["transfer.created", "transfer.completed"] });
    await transfer();
    await transfer();
    const g = await waitFor(async () => {
      const r = await getHook(webhook.id);
      return r.body.status === "disabled" && r.body.stats.pending === 0 && r;
    }, "the subscription disabled");
    expect(g.body).toMatchObject({ consecutiveFailures: 2, deliveryCount: 4 });
    expect(g.body.stats).toMatchObject({ total: 4, sent: 0, failed: 4, pending: 0 });
    // Two deliveries, three attempts each; the two behind them were never sent.
    expect(hitsOf("dead").length).toBe(6);
    const unsent = (await deliveries(webhook.id)).body.data.filter((d: any) => d.attempts === 0);
    expect(unsent.length).toBe(2);
    for (const d of unsent) expect(d).toMatchObject({ status: "failed", lastError: "not sent: the subscription was disabled automatically after repeated failures" });
    const audit = await call(`/api/v2/audit-log?entityId=${webhook.id}&action=webhook.disabled`, { key: owner.key });
    expectOk(audit);
    expect(audit.body.data.length).toBe(1);
    expect(audit.body.data[0].actor.type).toBe("system");
    expect(audit.body.data[0].detail).toMatchObject({ reason: "automatic", consecutiveFailures: 2 });
  });
});

describe("SSRF guard at save", () => {
  // Every class the issue names; the last is a host name that resolves (via /etc/hosts) to loopback.
  const refused = [
    "https://127.0.0.1/hook", "https://[::1]/hook", "https://10.0.0.1/hook", "https://172.16.5.4/hook", "https://192.168.1.10/hook", "https://169.254.169.254/latest/meta-data",
    "https://[fe80::1]/hook", "https://100.64.0.1/hook", "https://224.0.0.1/hook", "https://[ff02::1]/hook", "https://240.0.0.1/hook", "https://0.0.0.0/hook",
    "https://255.255.255.255/hook", "https://[::ffff:127.0.0.1]/hook", "https://[::ffff:10.0.0.1]/hook", "https://[fd00::1]/hook", "https://[::]/hook",
    "https://2130706433/hook", "https://localhost/hook", "http://localhost:8080/hook",
  ];
  test.each(refused)("POST with %s → 422 INVALID_URL naming the reason", async (url) => {
    const r = await call(api, { method: "POST", key: owner.key, json: { name: "ssrf", url, ...quiet } });
    expectError(r, 422, "INVALID_URL");
    expect(r.body.details.reason).toMatch(/loopback|private|link-local|carrier-grade|multicast|reserved|broadcast|unspecified|IPv4-mapped|unique local/);
    if (url.includes("localhost")) expect(r.body.details.reason).toMatch(/the host localhost resolves to/);
  });

  test("PATCH to a private URL is refused the same way and changes nothing", async () => {
    const { webhook } = await createHook({ url: hookUrl("ssrf-patch"), ...quiet });
    for (const url of ["https://127.0.0.1/x", "https://localhost/x", "https://[fd00::1]/x"]) expectError(await patchHook(webhook.id, { url }), 422, "INVALID_URL");
    expect((await getHook(webhook.id)).body.url).toBe(hookUrl("ssrf-patch"));
  });
});

describe("restarts", () => {
  const dir2 = tempDir();
  const db2 = join(dir2, "restart.db");
  const c2 = apiClient(db2, () => S2.url);
  let S2: ChildServer;
  let k2: Key;
  let cus2: string;
  afterAll(async () => {
    await S2?.stop("SIGKILL");
  });

  test("killed (SIGKILL) while a delivery waits for its retry and while another is on the wire: after the restart both are delivered, nothing lost", async () => {
    const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db2 });
    expect(m.code).toBe(0);
    k2 = await c2.newKey("--env", "test", "--role", "owner");
    S2 = await startServer({ CARAVAN_DB: db2, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2" });
    const cr = await c2.call("/api/v2/customers", { method: "POST", key: k2.key, json: { name: "R" } });
    cus2 = cr.body.data.id;
    behaviours.set("/r-flaky", (_h, n) => new Response("x", { status: n <= 2 ? 500 : 200 }));
    let hang = true;
    behaviours.set("/r-hang", async () => {
      while (hang) await Bun.sleep(50);
      return new Response("ok");
    });
    const flaky = (await c2.call(api, { method: "POST", key: k2.key, json: { name: "f", url: hookUrl("r-flaky"), events: ["*"] } })).body.data;
    const hung = (await c2.call(api, { method: "POST", key: k2.key, json: { name: "h", url: hookUrl("r-hang"), events: ["transfer.created"] } })).body.data;
    await transfer(k2, cus2, c2.call);
    const row = () =>
      sqlRows(db2, "SELECT attempts, next_retry_at, status FROM webhook_deliveries WHERE webhook_id = ? AND event_type = 'transfer.created'", flaky.webhook.id)[0] as {
        attempts: number;
        next_retry_at: number;
        status: string;
      };
    // The second attempt failed and its 5 s retry is recorded; the other subscription's request is still open.
    const due = await waitFor(() => row()?.attempts === 2 && row(), "the second attempt recorded");
    await waitFor(() => hitsOf("r-hang").length === 1, "the hanging request");
    expect(await S2.stop("SIGKILL")).not.toBe(0);
    hang = false;

    S2 = await startServer({ CARAVAN_DB: db2, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2" });
    await waitFor(() => hitsOf("r-flaky").length >= 4 && hitsOf("r-hang").length >= 2, "the deliveries after the restart", 60_000);
    const f = hitsOf("r-flaky");
    // The retry came no earlier than due, with the original signature; the completed event after it, in order.
    expect(f[2].at).toBeGreaterThanOrEqual(due.next_retry_at);
    expect(f[2].headers.get("x-webhook-signature")).toBe(f[0].headers.get("x-webhook-signature"));
    expectSigned(f[2], flaky.secret);
    expect(f.map((h) => eventOf(h).event)).toEqual(["transfer.created", "transfer.created", "transfer.created", "transfer.completed"]);
    // The attempt that was on the wire is sent again: the same delivery, at least once.
    const h = hitsOf("r-hang");
    expect(h[1].headers.get("x-webhook-delivery-id")).toBe(h[0].headers.get("x-webhook-delivery-id"));
    expectSigned(h[1], hung.secret);
    await waitFor(
      () => Number((sqlRows(db2, "SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'sent'")[0] as { n: number }).n) === 0,
      "every delivery recorded as sent",
    );
    expect(Number((sqlRows(db2, "SELECT count(*) AS n FROM webhook_deliveries")[0] as { n: number }).n)).toBe(3);
  });

  test("the destination is checked again before each delivery: without the exception, the ping and the event delivery fail with a clear lastError and nothing is sent", async () => {
    await S2.stop("SIGTERM");
    S2 = await startServer({ CARAVAN_DB: db2 });
    const before = hits.length;
    const list = (await c2.call(api, { key: k2.key })).body.data;
    const flaky = list.find((w: any) => w.name === "f");
    const p = await c2.call(`${api}/${flaky.id}/test`, { method: "POST", key: k2.key });
    expect(p.body.data.success).toBe(false);
    expect(p.body.data.error).toBe("destination refused: 127.0.0.2 is a loopback address");
    await transfer(k2, cus2, c2.call);
    const failed = await waitFor(async () => {
      const r = await c2.call(`${api}/${flaky.id}/deliveries?status=failed&eventType=transfer.created`, { key: k2.key });
      return r.body.data[0];
    }, "the event delivery failed");
    expect(failed).toMatchObject({ attempts: 3, httpStatus: null, responseTimeMs: null, lastError: "destination refused: 127.0.0.2 is a loopback address" });
    expect(hits.length).toBe(before);
  });
});

describe("under Deno", () => {
  test("the Deno server delivers signed events through the node:http(s) transport, pinned to the checked address", async () => {
    expect(Bun.which("deno")).not.toBeNull();
    const dir3 = tempDir();
    const db3 = join(dir3, "deno.db");
    const c3 = apiClient(db3, () => S3.url);
    expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db3 })).code).toBe(0);
    const k3 = await c3.newKey("--env", "test", "--role", "owner");
    const S3 = await startServer({ CARAVAN_DB: db3, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.2" }, { runtime: "deno", timeoutMs: 60_000 });
    try {
      const w = (await c3.call(api, { method: "POST", key: k3.key, json: { name: "deno", url: hookUrl("deno"), events: ["*"] } })).body.data;
      const p = await c3.call(`${api}/${w.webhook.id}/test`, { method: "POST", key: k3.key });
      expect(p.body.data.success).toBe(true);
      const cus = (await c3.call("/api/v2/customers", { method: "POST", key: k3.key, json: { name: "D" } })).body.data.id;
      await transfer(k3, cus, c3.call);
      await waitFor(() => hitsOf("deno").length >= 3, "the ping and two events");
      expect(hitsOf("deno").map((h) => eventOf(h).event)).toEqual(["test.ping", "transfer.created", "transfer.completed"]);
      for (const h of hitsOf("deno")) expectSigned(h, w.secret);
      const refusedUrl = await c3.call(api, { method: "POST", key: k3.key, json: { name: "x", url: "https://localhost/x", ...quiet } });
      expectError(refusedUrl, 422, "INVALID_URL");
    } finally {
      await S3.stop();
    }
  });
});
