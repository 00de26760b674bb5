// A used Idempotency-Key is answered with the transfer it created whatever the body (kept as the contract says), and a
// reuse with a body naming another transfer is logged as a warning: hashes of the key and the body and the names of
// the fields that differ, never the body, the key or what they hold.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient } from "../support/api.ts";
import { sha256Hex } from "../../src/adapters/crypto/hash.ts";

// A server on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "idem-reuse.db");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let key: string;
const customers: string[] = [];
const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
const ADDRESS = `0x${hex(20)}`;

const body = (o: Record<string, unknown> = {}) => ({
  asset: "ETH",
  amount: "0.001",
  network: "ethereum",
  originatorCustomerId: customers[0],
  beneficiaryAddress: ADDRESS,
  originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Quixotic", secondaryIdentifier: "Zelda", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
  ...o,
});
const create = (json: unknown, idem: string) => call("/api/v2/transfers", { method: "POST", key, json, headers: { "Idempotency-Key": idem } });
const warnings = () =>
  S.output()
    .split("\n")
    .filter((l) => l.includes("Idempotency-Key reused with a different body"))
    .map((l) => ({ line: l, json: JSON.parse(l) }));

beforeAll(async () => {
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  key = (await newKey("--env", "test", "--role", "owner")).key;
  S = await startServer({ CARAVAN_DB: db, CARAVAN_RATE_LIMITS: "company=1000000/60" });
  for (const name of ["Reuse One", "Reuse Two"]) {
    const c = await call("/api/v2/customers", { method: "POST", key, json: { name } });
    if (c.status !== 201) throw new Error(c.text);
    customers.push(c.body.data.id);
  }
}, 120_000);

afterAll(async () => {
  await S?.stop();
});

test("the same body again with the key: the first transfer, no warning", async () => {
  const idem = `same-${hex(6)}`;
  const first = await create(body(), idem);
  expect(first.status).toBe(201);
  const again = await create(body(), idem);
  expect({ status: again.status, id: again.body.data.id, idempotent: again.body.meta.idempotent }).toEqual({ status: 200, id: first.body.data.id, idempotent: true });
  // An amount written with another trailing zero is the same amount.
  const zero = await create(body({ amount: "0.0010" }), idem);
  expect(zero.status).toBe(200);
  // A marker that does warn, afterwards: the log is in order, so once its line is there any earlier one would be too.
  const marker = `marker-${hex(6)}`;
  expect((await create(body(), marker)).status).toBe(201);
  expect((await create(body({ amount: "0.002" }), marker)).status).toBe(200);
  await S.untilOutput(sha256Hex(marker));
  expect(warnings().some((w) => w.json.keySha256 === sha256Hex(marker))).toBe(true);
  expect(warnings().filter((w) => w.json.keySha256 === sha256Hex(idem))).toEqual([]);
});

test("another amount and another customer under a used key: answered with the first transfer, one warning naming the fields, with hashes only", async () => {
  const idem = `other-${hex(6)}`;
  const first = await create(body(), idem);
  expect(first.status).toBe(201);
  const other = body({ amount: "0.0042", originatorCustomerId: customers[1] });
  const again = await create(other, idem);
  expect({ status: again.status, id: again.body.data.id }).toEqual({ status: 200, id: first.body.data.id });
  await S.untilOutput(sha256Hex(idem));
  const mine = warnings().filter((w) => w.json.keySha256 === sha256Hex(idem));
  expect(mine.length).toBe(1);
  expect(mine[0].json).toMatchObject({
    level: "warn",
    transferId: first.body.data.id,
    bodySha256: sha256Hex(JSON.stringify(other)),
    differs: ["amount", "originatorCustomerId"],
  });
  // Never the body, the key or what they hold.
  for (const secret of [idem, "0.0042", customers[1], "Quixotic", ADDRESS]) expect(mine[0].line).not.toContain(secret);
});

test("ten concurrent creates with one key and ten amounts: one transfer, every other answer is it, and each different body is a warning", async () => {
  const idem = `race-${hex(6)}`;
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => create(body({ amount: `0.0${i + 11}` }), idem)));
  const ids = new Set(rs.map((r) => r.body.data.id));
  expect(ids.size).toBe(1);
  expect(rs.filter((r) => r.status === 201).length).toBe(1);
  const winner = rs.find((r) => r.status === 201)!;
  const winnerAmount = winner.body.data.amount;
  const expected = rs.length - 1;
  for (let i = 0; i < 100 && warnings().filter((w) => w.json.keySha256 === sha256Hex(idem)).length < expected; i++) await Bun.sleep(50);
  const mine = warnings().filter((w) => w.json.keySha256 === sha256Hex(idem));
  expect(mine.length).toBe(expected);
  for (const w of mine) expect(w.json.differs).toEqual(["amount"]);
  expect(winnerAmount).toMatch(/^0\.0(1[1-9]|20)$/);
});
