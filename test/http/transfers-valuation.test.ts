// Issue 19: a create's valuation row (fx_valuations, the transfer's fxRateId) is written in the customer actor's
// commit with the transfer: it exists exactly when the transfer does. Creates answered idempotently (the same
// Idempotency-Key at once) record none; the search answers a transfer right after its create although the search
// index is filled in the background.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { startFxPeer, type FxPeer } from "../../src/sandbox/fx.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "transfers-valuation.db");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let fx: FxPeer;
let key: string;
let customer: string;
const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");

const body = (amount = "0.001") => ({
  asset: "ETH",
  amount,
  network: "ethereum",
  originatorCustomerId: customer,
  beneficiaryAddress: `0x${hex(20)}`,
  originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
});
const create = (json: unknown, idem: string) => call("/api/v2/transfers", { method: "POST", key, json, headers: { "Idempotency-Key": idem } });

function valuations(): { id: string; amount: string; value: string; rate: string; currency: string }[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare("SELECT id, amount, value, rate, currency FROM fx_valuations ORDER BY id").all() as never;
  } finally {
    d.close();
  }
}

beforeAll(async () => {
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  key = (await newKey("--env", "test", "--role", "owner")).key;
  // A slow price source: concurrent creates with one key are all priced before the first commits.
  fx = await startFxPeer({ rates: { ethereum: { usd: "3200" } }, delayMs: 50 });
  S = await startServer({ CARAVAN_DB: db, CARAVAN_FX_URL: fx.url, CARAVAN_RATE_LIMITS: "company=1000000/60" });
  const r = await call("/api/v2/customers", { method: "POST", key, json: { name: "Originator" } });
  if (r.status !== 201) throw new Error(r.text);
  customer = r.body.data.id;
}, 120_000);

afterAll(async () => {
  await S?.stop();
  await fx?.stop();
});

test("a create records its valuation with the transfer: the fxRateId names a row with the amount, rate and value", async () => {
  const before = valuations().length;
  const r = await create(body("0.002"), `one-${hex(4)}`);
  expect(r.status).toBe(201);
  const rows = valuations();
  expect(rows.length).toBe(before + 1);
  expect(rows.find((v) => v.id === r.body.data.fxRateId)).toEqual({ id: r.body.data.fxRateId, amount: "0.002", value: "6.4", rate: "3200", currency: "USD" });
});

test("20 creates at once with one Idempotency-Key: one transfer, one valuation row (the 19 idempotent answers record none)", async () => {
  const before = valuations().length;
  const idem = `shared-${hex(4)}`;
  const b = body();
  const rs = await Promise.all(Array.from({ length: 20 }, () => create(b, idem)));
  expect(rs.map((r) => r.status).sort()).toEqual([...Array(19).fill(200), 201]);
  const created = rs.find((r) => r.status === 201)!;
  const rows = valuations();
  expect(rows.length).toBe(before + 1);
  expect(rows.map((v) => v.id)).toContain(created.body.data.fxRateId);
});

test("a transfer is found by search right after its create (before the background indexing)", async () => {
  const idem = `found-${hex(6)}`;
  const r = await create(body(), idem);
  expect(r.status).toBe(201);
  const l = await call(`/api/v2/transfers?search=${encodeURIComponent(idem.slice(3))}`, { key });
  expect(l.status).toBe(200);
  expect(l.body.data.map((t: { id: string }) => t.id)).toEqual([r.body.data.id]);
  expect(l.body.meta.total).toBe(1);
});
