// GET /api/v2/dead-letters: a company sees the dead letters of its own environment only (the runtime records the
// company and environment a buried message names), never their sealed body nor the mailbox number; the runtime's own
// actors' dead letters (no company) are the operator's, seen with the CLI.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, expectOk, ISO_MS } from "../support/api.ts";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ActorDeadLetterError } from "../../src/actors/types.ts";

// A server on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "dead-letters.db");
const DOMAIN = "caravan.test";
const { cli, newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
const keys: Record<string, string> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  await cli("companies", "create", "--slug", "acme");
  await cli("companies", "create", "--slug", "beta");
  keys.acme = (await newKey("--env", "test", "--role", "owner", "--company", "acme")).key;
  keys.acmeLive = (await newKey("--env", "live", "--role", "owner", "--company", "acme")).key;
  keys.beta = (await newKey("--env", "test", "--role", "owner", "--company", "beta")).key;
  keys.developer = (await newKey("--env", "test", "--role", "developer", "--company", "acme")).key;
  const d = new Database(db);
  for (const slug of ["acme", "beta"]) ids[slug] = (d.prepare("SELECT id FROM companies WHERE slug = ?").get(slug) as { id: string }).id;
  d.close();
  // Real dead letters, buried by the runtime after the last attempt of a handler that cannot digest its message.
  const storage = await openStorage(db);
  const runtime = new ActorRuntime(storage, { maxAttempts: 2, backoffMs: () => 1 });
  runtime.register({
    kind: "transfer",
    initialState: () => ({}),
    handle() {
      throw new Error("cannot digest it");
    },
  });
  runtime.register({
    kind: "webhook-dispatcher",
    initialState: () => ({}),
    handle() {
      throw new Error("the dispatcher's own fault");
    },
  });
  await runtime.start();
  const buried = (to: string, msg: unknown) => expect(runtime.ask(to, msg)).rejects.toBeInstanceOf(ActorDeadLetterError);
  await buried("transfer:trf_acme_test", { type: "action", companyId: ids.acme, environment: "test", secret: "Jane van Dyke" });
  await buried("transfer:trf_acme_live", { type: "action", companyId: ids.acme, environment: "live" });
  await buried("transfer:trf_beta_test", { type: "action", companyId: ids.beta, environment: "test" });
  await buried("webhook-dispatcher:main", { type: "wake" });
  await runtime.stop();
  storage.close();
  S = await startServer({ CARAVAN_DB: db, CARAVAN_APP_DOMAIN: DOMAIN });
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

const list = (key: string, slug: string) => call("/api/v2/dead-letters", { key, host: `${slug}.${DOMAIN}` });

test("the runtime records the company and environment a buried message names; the runtime's own have none", () => {
  const d = new Database(db, { readonly: true });
  try {
    const rows = d.prepare("SELECT actor, company_id, environment FROM actor_dead_letters ORDER BY actor").all();
    expect(rows).toEqual([
      { actor: "transfer:trf_acme_live", company_id: ids.acme, environment: "live" },
      { actor: "transfer:trf_acme_test", company_id: ids.acme, environment: "test" },
      { actor: "transfer:trf_beta_test", company_id: ids.beta, environment: "test" },
      { actor: "webhook-dispatcher:main", company_id: null, environment: null },
    ]);
  } finally {
    d.close();
  }
});

test("each company and environment lists its own dead letters: actor, attempts, last error, when; no body, no mailbox number", async () => {
  const acme = await list(keys.acme, "acme");
  expectOk(acme);
  expect(acme.body.data).toEqual([{ id: expect.stringMatching(/^dl_[A-Za-z0-9_-]{22}$/), actor: "transfer:trf_acme_test", attempts: 2, lastError: "Error: cannot digest it", createdAt: expect.stringMatching(ISO_MS), diedAt: expect.stringMatching(ISO_MS) }]);
  expect(acme.body.meta).toMatchObject({ total: 1, hasMore: false, cursor: null, limit: 50 });
  expect(acme.text).not.toContain("Jane");

  expect((await list(keys.acmeLive, "acme")).body.data.map((x: any) => x.actor)).toEqual(["transfer:trf_acme_live"]);
  expect((await list(keys.beta, "beta")).body.data.map((x: any) => x.actor)).toEqual(["transfer:trf_beta_test"]);
});

test("a role without audit:view → 403 INSUFFICIENT_PERMISSION; an unknown parameter → 400 INVALID_QUERY", async () => {
  expectError(await list(keys.developer, "acme"), 403, "INSUFFICIENT_PERMISSION");
  expectError(await call("/api/v2/dead-letters?actor=x", { key: keys.acme, host: `acme.${DOMAIN}` }), 400, "INVALID_QUERY");
});
