// Part 1 Transfers under concurrency: "two simultaneous requests with one key create one transfer", creates never
// give a 5xx, and "409 CONFLICT: two creates collided and neither carried an Idempotency-Key", over real HTTP.
// Prices come from a sandbox FX peer so that a create can be held in flight for a known time.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { runCliInProcess } from "../support/cli.ts";
import { apiClient, expectError, ISO_MS, type Answer } from "../support/api.ts";
import { startFxPeer, type FxPeer } from "../../src/sandbox/fx.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "transfers-concurrency.db");
const { newKey, call } = apiClient(db, () => S.url);
let S: ChildServer;
let fx: FxPeer;
let key: string;
const customers: string[] = [];

const word = (n = 8) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => "abcdefghijklmnopqrstuvwxyz"[b % 26]).join("");
const RUN = word(6);
const hex = (n: number) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
const ethAddress = () => `0x${hex(20)}`;
const TRANSFER_ID = /^trf_[0-9a-z]{26}$/;

function body(o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    asset: "ETH",
    amount: "0.001",
    network: "ethereum",
    originatorCustomerId: customers[0],
    beneficiaryAddress: ethAddress(),
    originator: {
      originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }],
    },
    ...o,
  };
}

const create = (json: unknown, idem?: string) =>
  call("/api/v2/transfers", { method: "POST", key, json, headers: idem === undefined ? {} : { "Idempotency-Key": idem } });

async function search(s: string): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let total = -1;
  for (let n = 0; n < 20; n++) {
    const r = await call(`/api/v2/transfers?search=${encodeURIComponent(s)}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key });
    if (r.status !== 200) throw new Error(`list: ${r.status} ${r.text}`);
    total = r.body.meta.total;
    ids.push(...r.body.data.map((t: any) => t.id));
    cursor = r.body.meta.cursor;
    if (!cursor) break;
  }
  return { ids, total };
}

const statuses = (rs: Answer[]) => rs.map((r) => r.status);
function noServerErrors(rs: Answer[]) {
  const bad = rs.filter((r) => r.status >= 500).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
  expect(bad).toEqual([]);
}

beforeAll(async () => {
  const m = await runCliInProcess(["migrate"], { CARAVAN_DB: db });
  if (m.code !== 0) throw new Error(`migrate failed: ${m.stderr}`);
  key = (await newKey("--env", "test", "--role", "owner")).key;
  fx = await startFxPeer({ rates: { ethereum: { usd: "3200" } } });
  S = await startServer({ CARAVAN_DB: db, CARAVAN_FX_URL: fx.url, CARAVAN_RATE_LIMITS: "company=1000000/60" });
  for (let i = 0; i < 5; i++) {
    const r = await call("/api/v2/customers", { method: "POST", key, json: { name: `Originator ${i}` } });
    if (r.status !== 201) throw new Error(r.text);
    customers.push(r.body.data.id);
  }
}, 120_000);

afterAll(async () => {
  await S?.stop();
  await fx?.stop();
});

describe("concurrent creates", () => {
  test("200 concurrent creates with distinct Idempotency-Keys: all 201, no 5xx, 200 distinct transfers, each readable afterwards", async () => {
    const prefix = `many-${RUN}`;
    const rs = await Promise.all(Array.from({ length: 200 }, (_, i) => create(body({ originatorCustomerId: customers[i % customers.length] }), `${prefix}-${i}`)));
    noServerErrors(rs);
    expect(statuses(rs).filter((s) => s !== 201)).toEqual([]);
    const ids = rs.map((r) => r.body.data.id);
    for (const id of ids) expect(id).toMatch(TRANSFER_ID);
    expect(new Set(ids).size).toBe(200);
    const listed = await search(prefix);
    expect(listed.total).toBe(200);
    expect([...listed.ids].sort()).toEqual([...ids].sort());
    for (let i = 0; i < ids.length; i += 50) {
      const gets = await Promise.all(ids.slice(i, i + 50).map((id) => call(`/api/v2/transfers/${id}`, { key })));
      for (const [j, g] of gets.entries()) {
        expect({ status: g.status, id: g.body?.data?.id, state: g.body?.data?.state }).toEqual({ status: 200, id: ids[i + j], state: "completed" });
        expect(g.body.data.createdAt).toMatch(ISO_MS);
      }
    }
    // Each key is its transfer's externalId.
    for (const [i, r] of rs.entries()) {
      const again = await create(body(), `${prefix}-${i}`);
      expect({ status: again.status, id: again.body.data.id }).toEqual({ status: 200, id: r.body.data.id });
    }
  });

  test("100 concurrent creates sharing one Idempotency-Key: one transfer; one 201, 99 × 200 idempotent, every answer names the same id", async () => {
    const idem = `shared-${RUN}`;
    const b = body({ originatorCustomerId: customers[1] });
    const rs = await Promise.all(Array.from({ length: 100 }, () => create(b, idem)));
    noServerErrors(rs);
    const s = statuses(rs);
    expect(s.filter((x) => x === 201).length).toBe(1);
    expect(s.filter((x) => x === 200).length).toBe(99);
    const ids = new Set(rs.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    expect(id).toMatch(TRANSFER_ID);
    for (const r of rs.filter((x) => x.status === 200)) {
      expect(r.body.meta.idempotent).toBe(true);
      expect(Object.keys(r.body.data).sort()).toEqual(["createdAt", "id", "state"]);
    }
    const listed = await search(idem);
    expect(listed).toEqual({ ids: [id], total: 1 });
    const g = await call(`/api/v2/transfers/${id}`, { key });
    expect(g.status).toBe(200);
    expect(g.body.data.state).toBe("completed");
  });

  test("concurrent creates sharing one Idempotency-Key with different bodies (other originators): still one transfer, no 5xx, every answer names it", async () => {
    const idem = `shared-any-${RUN}`;
    const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => create(body({ originatorCustomerId: customers[i % customers.length], amount: `0.00${(i % 9) + 1}` }), idem)));
    noServerErrors(rs);
    const s = statuses(rs);
    expect(s.filter((x) => x === 201).length).toBe(1);
    expect(s.filter((x) => x === 200).length).toBe(49);
    const ids = new Set(rs.map((r) => r.body?.data?.id));
    expect(ids.size).toBe(1);
    const listed = await search(idem);
    expect(listed.total).toBe(1);
    expect(listed.ids).toEqual([...ids]);
  });
});

describe("two creates without an Idempotency-Key", () => {
  test("two identical creates in flight together (prices answered after 500 ms) → one 201 and one 409 CONFLICT; one transfer", async () => {
    fx.setDelay(500);
    try {
      const address = ethAddress();
      const b = body({ beneficiaryAddress: address, originatorCustomerId: customers[2] });
      const asked = fx.requests.length;
      const [x, y] = await Promise.all([create(b), create(b)]);
      // Prices were asked of the peer, which answers only after 500 ms: the two requests overlapped.
      expect(fx.requests.length - asked).toBeGreaterThanOrEqual(1);
      noServerErrors([x, y]);
      expect(statuses([x, y]).sort()).toEqual([201, 409]);
      const conflict = x.status === 409 ? x : y;
      const created = x.status === 201 ? x : y;
      expectError(conflict, 409, "CONFLICT");
      const listed = await search(address);
      expect(listed).toEqual({ ids: [created.body.data.id], total: 1 });
    } finally {
      fx.setDelay(0);
    }
  });

  test("a second identical create sent while the first is still being priced (100 ms later, the peer answers after 500 ms) → 409 CONFLICT; one transfer (three rounds)", async () => {
    fx.setDelay(500);
    try {
      for (let round = 0; round < 3; round++) {
        const address = ethAddress();
        const b = body({ beneficiaryAddress: address, originatorCustomerId: customers[3] });
        const first = create(b);
        await Bun.sleep(100);
        const second = create(b);
        const rs = await Promise.all([first, second]);
        noServerErrors(rs);
        expect({ round, statuses: statuses(rs) }).toEqual({ round, statuses: [201, 409] });
        expectError(rs[1], 409, "CONFLICT");
        expect({ round, total: (await search(address)).total }).toEqual({ round, total: 1 });
      }
    } finally {
      fx.setDelay(0);
    }
  });

  test("the same create sent again after the first finished is not a collision: both 201, two transfers", async () => {
    const address = ethAddress();
    const b = body({ beneficiaryAddress: address, originatorCustomerId: customers[4] });
    const first = await create(b);
    const second = await create(b);
    expect(statuses([first, second])).toEqual([201, 201]);
    expect(first.body.data.id).not.toBe(second.body.data.id);
    expect((await search(address)).total).toBe(2);
  });

  test("different creates in flight together do not collide", async () => {
    fx.setDelay(500);
    try {
      const rs = await Promise.all([create(body({ amount: "0.001" })), create(body({ amount: "0.002" })), create(body({ originatorCustomerId: customers[1] }))]);
      expect(statuses(rs)).toEqual([201, 201, 201]);
    } finally {
      fx.setDelay(0);
    }
  });
});
