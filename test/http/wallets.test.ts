// Part 1 Wallet resource and Wallets endpoints (with Conventions, Errors and Limits as they apply to them), over real HTTP.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { tempDir } from "../support/tmp.ts";
import { runCli, startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, ISO_MS, type Answer } from "../support/api.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "wallets.db");
const client = apiClient(db, () => S.url);
const { cli, call } = client;
const newKey = async (...args: string[]) => (await client.newKey(...args)).key;
let S: ChildServer;
const WALLET_ID = /^wal_[0-9a-z]{26}$/;
const WALLET_FIELDS = ["address", "createdAt", "customerId", "environment", "id", "label", "network", "updatedAt", "verified", "verifiedAt"];

const NETWORKS = [
  "bitcoin", "ethereum", "polygon", "bsc", "solana", "tron", "avalanche", "arbitrum", "optimism", "base", "litecoin",
  "ripple", "stellar", "algorand", "dogecoin", "cardano", "cosmos", "near", "polkadot", "fantom", "bitcoin-cash",
] as const;
type Net = (typeof NETWORKS)[number];
const EVM: readonly Net[] = ["ethereum", "polygon", "bsc", "avalanche", "arbitrum", "optimism", "base", "fantom"];

// One published, valid address per network (the vectors of test/domain/networks.test.ts), each answered as given.
// prettier-ignore
const VALID: Record<Net, string> = {
  bitcoin: "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
  ethereum: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  polygon: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  bsc: "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
  solana: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  tron: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  avalanche: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
  arbitrum: "0x52908400098527886E0F7030069857D2E4169EE7",
  optimism: "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
  base: "0xde709f2102306220921060314715629080e2fb77",
  litecoin: "Lg3PX8wRWmApFCoCMAsPF5P9dPHYQHEWKW",
  ripple: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh",
  stellar: "GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ",
  algorand: "VQD6TBRL6BH6NAGIPEUG6JZUCPJVXB3GPTHEU5WTKX5DDGSR3AXNKBN5FQ",
  dogecoin: "DEgDVFa2DoW1533dxeDVdTxQFhMzs1pMke",
  cardano: "addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8",
  cosmos: "cosmos1hsk6jryyqjfhp5dhc55tc9jtckygx0eph6dd02",
  near: "alice.near",
  polkadot: "15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5",
  fantom: "0x27b1fdb04752bbc536007a920d24acb045561c26",
  "bitcoin-cash": "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a",
};

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const XRP = "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz";
const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const HEX = "0123456789abcdefABCDEF";

/** Replaces the character at `index` with the next one of `alphabet`: only a checksum can notice. */
function mutate(address: string, index: number, alphabet: string): string {
  const at = alphabet.indexOf(address[index]);
  if (at < 0) throw new Error(`${address[index]} not in alphabet`);
  return address.slice(0, index) + alphabet[(at + 1) % alphabet.length] + address.slice(index + 1);
}

// Every network with a checksum (solana and near have none): the valid address above, or for EVM a mixed-case
// EIP-55 address, with one character changed (positions proven in test/domain/networks.test.ts).
// prettier-ignore
const CHANGED: ReadonlyArray<readonly [Net, string]> = [
  ["bitcoin", mutate(VALID.bitcoin, 10, B58)],
  ["litecoin", mutate(VALID.litecoin, 15, B58)],
  ["dogecoin", mutate(VALID.dogecoin, 17, B58)],
  ["bitcoin-cash", mutate(VALID["bitcoin-cash"], 25, BECH)],
  ["tron", mutate(VALID.tron, 16, B58)],
  ["ripple", mutate(VALID.ripple, 14, XRP)],
  ["stellar", mutate(VALID.stellar, 20, B32)],
  ["algorand", mutate(VALID.algorand, 25, B32)],
  ["cardano", mutate(VALID.cardano, 20, BECH)],
  ["cosmos", mutate(VALID.cosmos, 20, BECH)],
  ["polkadot", mutate(VALID.polkadot, 24, B58)],
  ...EVM.map((n) => [n, mutate("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", 12, HEX)] as const),
];

/** EIP-55 spelling, computed here independently of the service. */
function eip55(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString("hex");
  let out = "0x";
  for (let i = 0; i < 40; i++) out += parseInt(hash[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i];
  return out;
}

let evmSeq = 0;
/**
 * A fresh EVM address no other test uses: `lower` (accepted unchecked) and its EIP-55 spelling. One whose EIP-55
 * spelling has no capital letter (about one draw in 500, by the process ID in the seed) is skipped: the tests tell the
 * two spellings apart.
 */
function freshEvm(): { lower: string; checksummed: string } {
  for (;;) {
    const bytes = sha256(new TextEncoder().encode(`wallets.test.ts ${evmSeq++} ${process.pid}`)).slice(0, 20);
    const lower = "0x" + Buffer.from(bytes).toString("hex");
    const checksummed = eip55(lower);
    if (checksummed !== lower) return { lower, checksummed };
  }
}


function expectMeta(r: Answer) {
  expect(r.body.meta.apiVersion).toBe(2);
  expect(r.body.meta.timestamp).toMatch(ISO_MS);
}

/** Exactly the ten fields of the Wallet resource, each of its type. */
function expectWallet(w: any) {
  expect(Object.keys(w).sort()).toEqual(WALLET_FIELDS);
  expect(w.id).toMatch(WALLET_ID);
  expect(typeof w.address).toBe("string");
  expect(NETWORKS as readonly string[]).toContain(w.network);
  expect(w.customerId).toMatch(/^cus_[0-9a-z]{26}$/);
  expect(w.label === null || typeof w.label === "string").toBe(true);
  expect(typeof w.verified).toBe("boolean");
  if (w.verifiedAt !== null) expect(w.verifiedAt).toMatch(ISO_MS);
  expect(["test", "live"]).toContain(w.environment);
  expect(w.createdAt).toMatch(ISO_MS);
  expect(w.updatedAt).toMatch(ISO_MS);
}

let owner: string; // test environment, every scope
let ownerLive: string;
let analyst: string;
let developerVerify: string; // developer role holding the wallets:verify scope
let noVerify: string; // owner role, key without wallets:verify
let tableCustomer: string;
let ext = 0;

async function newCustomer(key = owner): Promise<{ id: string; externalId: string }> {
  const externalId = `wallets-test-${process.pid}-${ext++}`;
  const r = await call("/api/v2/customers", { method: "POST", key, body: { externalId } });
  if (r.status !== 201) throw new Error(`customer create: ${r.status} ${r.text}`);
  return { id: r.body.data.id, externalId };
}

async function register(body: Record<string, unknown>, key = owner): Promise<Answer> {
  return call("/api/v2/wallets", { method: "POST", key, body });
}

async function registered(body: Record<string, unknown>, key = owner): Promise<any> {
  const r = await register(body, key);
  if (r.status !== 201) throw new Error(`wallet create: ${r.status} ${r.text}`);
  return r.body.data;
}

async function walletCount(customer: { externalId: string }): Promise<number> {
  const r = await call(`/api/v2/customers?search=${encodeURIComponent(customer.externalId)}`, { key: owner });
  expect(r.status).toBe(200);
  const row = r.body.data.find((c: any) => c.externalId === customer.externalId);
  expect(row).toBeDefined();
  return row.walletCount;
}

/** Simulates a valid ownership proof (proofs are managed in the dashboard, not through this API). */
/** A real ownership proof: an officer's attestation through the CLI (the dashboard's part). Returns its time. */
let officerEmail: string | null = null;
async function markVerified(walletId: string): Promise<string> {
  if (!officerEmail) {
    officerEmail = `officer-${Date.now()}@example.com`;
    await cli("members", "create", "--email", officerEmail, "--role", "compliance_officer");
  }
  const out = await cli("wallets", "attest", "--id", walletId, "--note", "checked in a test", "--member", officerEmail, "--json");
  return JSON.parse(out.split("\n").at(-1)!).proof.recordedAt;
}

beforeAll(async () => {
  await cli("migrate");
  owner = await newKey("--env", "test", "--role", "owner");
  ownerLive = await newKey("--env", "live", "--role", "owner");
  analyst = await newKey("--env", "test", "--role", "analyst");
  developerVerify = await newKey("--env", "test", "--role", "developer", "--scopes", "wallets:verify,wallets:read");
  noVerify = await newKey("--env", "test", "--role", "owner", "--scopes", "wallets:read,wallets:write,customers:read,customers:write");
  S = await startServer({ CARAVAN_DB: db });
  tableCustomer = (await newCustomer()).id;
});

afterAll(async () => {
  await S?.stop();
});

describe("Wallet resource: every wallet answer has exactly these fields", () => {
  test("on create, get, patch and list items: id, address, network, customerId, label, verified, verifiedAt, environment, createdAt, updatedAt", async () => {
    const c = await newCustomer();
    const a = freshEvm();
    const created = await register({ address: a.lower, network: "ethereum", customerId: c.id, label: "fields" });
    expect(created.status).toBe(201);
    expectMeta(created);
    expectWallet(created.body.data);
    const id = created.body.data.id;

    const got = await call(`/api/v2/wallets/${id}`, { key: owner });
    expect(got.status).toBe(200);
    expectMeta(got);
    expectWallet(got.body.data);
    expect(got.body.data).toEqual(created.body.data);

    const patched = await call(`/api/v2/wallets/${id}`, { method: "PATCH", key: owner, body: { label: "fields 2" } });
    expect(patched.status).toBe(200);
    expectWallet(patched.body.data);

    const list = await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    for (const item of list.body.data) expectWallet(item);
    expect(list.body.data[0]).toEqual(patched.body.data);
  });

  test("a new wallet is in the key's environment, not verified, with verifiedAt null; createdAt and updatedAt are its creation time", async () => {
    const c = await newCustomer();
    const a = freshEvm();
    const before = Date.now();
    const w = await registered({ address: a.checksummed, network: "base", customerId: c.id });
    expect(w).toMatchObject({ address: a.checksummed, network: "base", customerId: c.id, label: null, verified: false, verifiedAt: null, environment: "test" });
    expect(w.createdAt).toBe(w.updatedAt);
    expect(Date.parse(w.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(w.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
    const live = await newCustomer(ownerLive);
    const l = await registered({ address: freshEvm().lower, network: "ethereum", customerId: live.id }, ownerLive);
    expect(l.environment).toBe("live");
  });
});

describe("Supported networks: exact names", () => {
  test.each(NETWORKS.map((n) => [n, VALID[n]] as const))("a valid %s address registers (201): %s", async (network, address) => {
    const r = await register({ address, network, customerId: tableCustomer, label: `table ${network}` });
    expect(r.status).toBe(201);
    expectWallet(r.body.data);
    expect(r.body.data).toMatchObject({ address, network, customerId: tableCustomer, label: `table ${network}`, environment: "test" });
  });

  test("the table customer now holds one wallet on each of the 21 networks", async () => {
    const r = await call(`/api/v2/wallets?customerId=${tableCustomer}&limit=100`, { key: owner });
    expect(r.status).toBe(200);
    expect(r.body.meta.total).toBe(21);
    expect(r.body.data.map((w: any) => w.network).sort()).toEqual([...NETWORKS].sort());
  });

  test.each(CHANGED)("%s: an address with one character changed (checksum broken) → 400 INVALID_ADDRESS (%s)", async (network, changed) => {
    const c = await newCustomer();
    expectError(await register({ address: changed, network, customerId: c.id }), 400, "INVALID_ADDRESS");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(0);
  });

  test("aliases such as eth are refused: eth, ETH, Ethereum, btc, dogecoin2, bitcoin_cash → 400 UNSUPPORTED_NETWORK", async () => {
    const c = await newCustomer();
    const a = freshEvm();
    for (const network of ["eth", "ETH", "Ethereum", "matic", "dogecoin2", "bitcoin_cash", "bitcoincash"]) {
      const address = network === "dogecoin2" ? VALID.dogecoin : network.startsWith("bitcoin") ? VALID["bitcoin-cash"] : a.lower;
      expectError(await register({ address, network, customerId: c.id }), 400, "UNSUPPORTED_NETWORK");
    }
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(0);
  });
});

describe("POST /api/v2/wallets", () => {
  test("Response 201 with the wallet; the label is kept (text or null, absent is null)", async () => {
    const c = await newCustomer();
    const w1 = await register({ address: freshEvm().lower, network: "polygon", customerId: c.id, label: "Hot wallet 1" });
    expect(w1.status).toBe(201);
    expect(w1.body.data.label).toBe("Hot wallet 1");
    const w2 = await register({ address: freshEvm().lower, network: "polygon", customerId: c.id, label: null });
    expect(w2.status).toBe(201);
    expect(w2.body.data.label).toBeNull();
    const w3 = await register({ address: freshEvm().lower, network: "polygon", customerId: c.id });
    expect(w3.status).toBe(201);
    expect(w3.body.data.label).toBeNull();
    expect(new Set([w1.body.data.id, w2.body.data.id, w3.body.data.id]).size).toBe(3);
  });

  test("label: text of any length is accepted (the spec sets no limit on a wallet label; INVALID_FIELDS is only for a label neither string nor null)", async () => {
    const c = await newCustomer();
    const long = "L".repeat(1000);
    const r = await register({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: long });
    expect(r.status).toBe(201);
    expect(r.body.data.label).toBe(long);
    const p = await call(`/api/v2/wallets/${r.body.data.id}`, { method: "PATCH", key: owner, body: { label: long + "!" } });
    expect(p.status).toBe(200);
    expect(p.body.data.label).toBe(long + "!");
  });

  test("MISSING_FIELDS: address, network or customerId missing → 400", async () => {
    const c = await newCustomer();
    const full = { address: freshEvm().lower, network: "ethereum", customerId: c.id };
    for (const field of ["address", "network", "customerId"] as const) {
      const body: Record<string, unknown> = { ...full };
      delete body[field];
      expectError(await register(body), 400, "MISSING_FIELDS");
    }
    expectError(await register({}), 400, "MISSING_FIELDS");
    expectError(await register({ label: "only a label" }), 400, "MISSING_FIELDS");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(0);
  });

  test("INVALID_FIELDS: customerId not a string → 400", async () => {
    const c = await newCustomer();
    for (const customerId of [42, true, { id: c.id }, [c.id]]) {
      expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId }), 400, "INVALID_FIELDS");
    }
  });

  test("INVALID_FIELDS: label neither string nor null → 400", async () => {
    const c = await newCustomer();
    for (const label of [5, false, { text: "x" }, ["x"]]) {
      expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label }), 400, "INVALID_FIELDS");
    }
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(0);
  });

  test("CUSTOMER_NOT_FOUND: no such customer in the environment (well-formed unknown ID, malformed ID) → 404", async () => {
    for (const customerId of ["cus_0000000000000000000000zzzz", "cus_abcdefghijklmnopqrstuvwxyz", "cus_123", "nope", ""]) {
      expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId }), 404, "CUSTOMER_NOT_FOUND");
    }
  });

  test("CUSTOMER_NOT_FOUND: a customer of the other environment is not found either → 404", async () => {
    const live = await newCustomer(ownerLive);
    expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId: live.id }, owner), 404, "CUSTOMER_NOT_FOUND");
    const test_ = await newCustomer(owner);
    expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId: test_.id }, ownerLive), 404, "CUSTOMER_NOT_FOUND");
  });

  test("CUSTOMER_DEACTIVATED: the customer is deactivated → 400; after reactivation it registers", async () => {
    const c = await newCustomer();
    const d = await call(`/api/v2/customers/${c.id}/deactivate`, { method: "POST", key: owner, body: { reason: "closed" } });
    expect(d.status).toBe(200);
    const address = freshEvm().lower;
    expectError(await register({ address, network: "ethereum", customerId: c.id }), 400, "CUSTOMER_DEACTIVATED");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(0);
    expect((await call(`/api/v2/customers/${c.id}/reactivate`, { method: "POST", key: owner })).status).toBe(200);
    expect((await register({ address, network: "ethereum", customerId: c.id })).status).toBe(201);
  });

  test("CUSTOMER_DEACTIVATED: an erased customer (erasure deactivates) → 400", async () => {
    const c = await newCustomer();
    const e = await call(`/api/v2/customers/${c.id}/erase`, { method: "POST", key: owner, body: { reason: "data-subject request" } });
    expect(e.status).toBe(200);
    expect(e.body.data.deactivatedAt).toMatch(ISO_MS);
    expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId: c.id }), 400, "CUSTOMER_DEACTIVATED");
  });

  test("UNSUPPORTED_NETWORK: network eth (an alias) and dogecoin2 → 400", async () => {
    const c = await newCustomer();
    expectError(await register({ address: freshEvm().lower, network: "eth", customerId: c.id }), 400, "UNSUPPORTED_NETWORK");
    expectError(await register({ address: "DJXvHTVFXxgKPxwCC1MfmHxNySoApA87Pc", network: "dogecoin2", customerId: c.id }), 400, "UNSUPPORTED_NETWORK");
  });

  test("INVALID_ADDRESS: an address not in the network's format (an Ethereum address on bitcoin) → 400", async () => {
    const c = await newCustomer();
    const a = freshEvm();
    expectError(await register({ address: a.checksummed, network: "bitcoin", customerId: c.id }), 400, "INVALID_ADDRESS");
    expectError(await register({ address: VALID.bitcoin, network: "ethereum", customerId: c.id }), 400, "INVALID_ADDRESS");
    expectError(await register({ address: "not an address", network: "solana", customerId: c.id }), 400, "INVALID_ADDRESS");
    expectError(await register({ address: "", network: "near", customerId: c.id }), 400, "INVALID_ADDRESS");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(0);
  });

  test("EVM: an all-lowercase address is accepted and answered in its EIP-55 form", async () => {
    // The independent EIP-55 helper agrees with the published EIP-55 vector.
    expect(eip55("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")).toBe("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
    const c = await newCustomer();
    const a = freshEvm();
    expect(a.checksummed).not.toBe(a.lower);
    const w = await registered({ address: a.lower, network: "arbitrum", customerId: c.id });
    expect(w.address).toBe(a.checksummed);
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data.address).toBe(a.checksummed);
  });

  test("EVM: a mixed-case address with a wrong EIP-55 checksum → 400 INVALID_ADDRESS", async () => {
    const c = await newCustomer();
    const a = freshEvm();
    // Flip the case of one letter of the correct spelling.
    const i = [...a.checksummed].findIndex((ch, k) => k > 1 && /[a-fA-F]/.test(ch));
    const ch = a.checksummed[i];
    const wrong = a.checksummed.slice(0, i) + (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) + a.checksummed.slice(i + 1);
    expect(wrong.toLowerCase()).toBe(a.lower);
    expectError(await register({ address: wrong, network: "ethereum", customerId: c.id }), 400, "INVALID_ADDRESS");
    expectError(await register({ address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", network: "optimism", customerId: c.id }), 400, "INVALID_ADDRESS");
  });

  test("destination tags: ripple ?dt=12345 is accepted and answered with the tag; ?dt=abc is refused (400 INVALID_ADDRESS)", async () => {
    const c = await newCustomer();
    const w = await registered({ address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh?dt=12345", network: "ripple", customerId: c.id });
    expect(w.address).toBe("rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh?dt=12345");
    expect(w.network).toBe("ripple");
    expectError(await register({ address: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh?dt=abc", network: "ripple", customerId: c.id }), 400, "INVALID_ADDRESS");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(1);
  });

  test("destination tags: a memo on stellar ?memo=hello is accepted; a tag on bitcoin is refused (400 INVALID_ADDRESS)", async () => {
    const c = await newCustomer();
    const w = await registered({ address: "GBPXXOA5N4JYPESHAADMQKBPWZWQDQ64ZV6ZL2S3LAGW4SY7NTCMWIVL?memo=hello", network: "stellar", customerId: c.id });
    expect(w.address).toBe("GBPXXOA5N4JYPESHAADMQKBPWZWQDQ64ZV6ZL2S3LAGW4SY7NTCMWIVL?memo=hello");
    expectError(await register({ address: "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy?dt=1", network: "bitcoin", customerId: c.id }), 400, "INVALID_ADDRESS");
    expectError(await register({ address: "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy?memo=hello", network: "bitcoin", customerId: c.id }), 400, "INVALID_ADDRESS");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(1);
  });

  test("WALLET_ADDRESS_TAKEN: the address is registered to another customer of the environment → 409 (on any network, in any spelling)", async () => {
    const a = await newCustomer();
    const b = await newCustomer();
    const addr = freshEvm();
    const w = await registered({ address: addr.lower, network: "ethereum", customerId: a.id });
    expectError(await register({ address: addr.lower, network: "ethereum", customerId: b.id }), 409, "WALLET_ADDRESS_TAKEN");
    expectError(await register({ address: addr.checksummed, network: "polygon", customerId: b.id }), 409, "WALLET_ADDRESS_TAKEN");
    expect((await call(`/api/v2/wallets?customerId=${b.id}`, { key: owner })).body.meta.total).toBe(0);
    // The first customer's wallet is untouched.
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data).toEqual(w);
  });

  test("the same address for a customer of the other environment is fine (201, a wallet of its own)", async () => {
    const t = await newCustomer(owner);
    const l = await newCustomer(ownerLive);
    const addr = freshEvm();
    const tw = await registered({ address: addr.lower, network: "ethereum", customerId: t.id }, owner);
    const r = await register({ address: addr.lower, network: "ethereum", customerId: l.id }, ownerLive);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ address: addr.checksummed, customerId: l.id, environment: "live" });
    expect(r.body.data.id).not.toBe(tw.id);
    expect((await call(`/api/v2/wallets/${tw.id}`, { key: owner })).body.data.customerId).toBe(t.id);
  });

  test("registering an address the same customer already has updates that wallet's network and label (same ID)", async () => {
    const c = await newCustomer();
    const addr = freshEvm();
    const first = await registered({ address: addr.lower, network: "ethereum", customerId: c.id, label: "first" });
    const again = await register({ address: addr.checksummed, network: "polygon", customerId: c.id, label: "second" });
    expect(again.status).toBe(201);
    expectWallet(again.body.data);
    expect(again.body.data).toMatchObject({ id: first.id, address: addr.checksummed, network: "polygon", label: "second", customerId: c.id, createdAt: first.createdAt });
    const got = await call(`/api/v2/wallets/${first.id}`, { key: owner });
    expect(got.body.data).toMatchObject({ id: first.id, network: "polygon", label: "second" });
    const list = await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner });
    expect(list.body.meta.total).toBe(1);
    expect(list.body.data[0].id).toBe(first.id);
  });

  test("a body that is not a JSON object → 400 VALIDATION_ERROR (400 on wallets); a body that is not JSON → 400 INVALID_JSON", async () => {
    for (const body of [[], "text", 5, null]) {
      const r = await call("/api/v2/wallets", { method: "POST", key: owner, raw: JSON.stringify(body) });
      expectError(r, 400, "VALIDATION_ERROR");
    }
    expectError(await call("/api/v2/wallets", { method: "POST", key: owner, raw: "{not json" }), 400, "INVALID_JSON");
  });

  test("text with a NUL character (U+0000) in the body → 400 VALIDATION_ERROR; a body over 65,536 bytes → 413 BODY_TOO_LARGE", async () => {
    const c = await newCustomer();
    expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "a\u0000b" }), 400, "VALIDATION_ERROR");
    const big = await register({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "x".repeat(70_000) });
    expectError(big, 413, "BODY_TOO_LARGE");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.meta.total).toBe(0);
  });
});

describe("GET /api/v2/wallets", () => {
  let listCustomer: { id: string; externalId: string };
  const created: any[] = []; // in creation order

  beforeAll(async () => {
    listCustomer = await newCustomer();
    const plan: Array<[Net, string, string]> = [
      ["ethereum", freshEvm().lower, "alpha cold"],
      ["solana", "So11111111111111111111111111111111111111112", "beta hot"],
      ["ethereum", freshEvm().lower, "gamma"],
      ["solana", "11111111111111111111111111111111", "delta hot"],
      ["polygon", freshEvm().lower, "epsilon"],
    ];
    for (const [network, address, label] of plan) {
      created.push(await registered({ address, network, customerId: listCustomer.id, label }));
      await Bun.sleep(3); // distinct creation times
    }
  });

  test("a list answers {data, meta} with cursor, hasMore, total, limit (1 to 100, default 50)", async () => {
    const r = await call(`/api/v2/wallets?customerId=${listCustomer.id}`, { key: owner });
    expect(r.status).toBe(200);
    expectMeta(r);
    expect(r.body.meta).toMatchObject({ cursor: null, hasMore: false, total: 5, limit: 50 });
    expect(r.body.data).toHaveLength(5);
    for (const limit of [1, 100]) {
      const l = await call(`/api/v2/wallets?limit=${limit}`, { key: owner });
      expect(l.status).toBe(200);
      expect(l.body.meta.limit).toBe(limit);
      expect(l.body.data.length).toBeLessThanOrEqual(limit);
    }
  });

  test("lists are newest first", async () => {
    const r = await call(`/api/v2/wallets?customerId=${listCustomer.id}`, { key: owner });
    expect(r.body.data.map((w: any) => w.id)).toEqual(created.map((w) => w.id).reverse());
    const all = await call("/api/v2/wallets?limit=100", { key: owner });
    const times = all.body.data.map((w: any) => Date.parse(w.createdAt));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]);
    const fresh = await registered({ address: freshEvm().lower, network: "bsc", customerId: (await newCustomer()).id });
    expect((await call("/api/v2/wallets?limit=1", { key: owner })).body.data[0].id).toBe(fresh.id);
  });

  test("network: one network's wallets", async () => {
    const r = await call(`/api/v2/wallets?customerId=${listCustomer.id}&network=solana`, { key: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.map((w: any) => w.id)).toEqual([created[3].id, created[1].id]);
    expect(r.body.meta.total).toBe(2);
    const all = await call("/api/v2/wallets?network=polygon&limit=100", { key: owner });
    expect(all.body.data.length).toBeGreaterThan(0);
    for (const w of all.body.data) expect(w.network).toBe("polygon");
  });

  test("network: a network no wallet uses matches nothing (200, empty), it is not an error", async () => {
    for (const network of ["dogecoin2", "eth"]) {
      const r = await call(`/api/v2/wallets?network=${network}`, { key: owner });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([]);
      expect(r.body.meta).toMatchObject({ total: 0, hasMore: false, cursor: null });
    }
  });

  test("network: a network no wallet uses matches nothing at any length up to the 200-character text limit; over 200 → 400 INVALID_QUERY", async () => {
    for (const network of ["n".repeat(51), "not-a-network-".repeat(14)]) {
      expect(Array.from(network).length).toBeLessThanOrEqual(200);
      const r = await call(`/api/v2/wallets?network=${network}`, { key: owner });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([]);
      expect(r.body.meta.total).toBe(0);
    }
    const over = await call(`/api/v2/wallets?network=${"n".repeat(201)}`, { key: owner });
    expectError(over, 400, "INVALID_QUERY");
    expect(over.body.details.issues.map((i: any) => i.path)).toEqual(["network"]);
  });

  test("verified: true or false (no wallet is verified without a proof)", async () => {
    const f = await call(`/api/v2/wallets?customerId=${listCustomer.id}&verified=false`, { key: owner });
    expect(f.status).toBe(200);
    expect(f.body.meta.total).toBe(5);
    const t = await call(`/api/v2/wallets?customerId=${listCustomer.id}&verified=true`, { key: owner });
    expect(t.status).toBe(200);
    expect(t.body.data).toEqual([]);
    expect(t.body.meta.total).toBe(0);
  });

  test("customerId: one customer's wallets", async () => {
    const other = await newCustomer();
    const ow = await registered({ address: freshEvm().lower, network: "ethereum", customerId: other.id });
    const r = await call(`/api/v2/wallets?customerId=${other.id}`, { key: owner });
    expect(r.body.data.map((w: any) => w.id)).toEqual([ow.id]);
    const mine = await call(`/api/v2/wallets?customerId=${listCustomer.id}&limit=100`, { key: owner });
    for (const w of mine.body.data) expect(w.customerId).toBe(listCustomer.id);
    // A well-formed ID of no customer matches nothing.
    const none = await call("/api/v2/wallets?customerId=cus_0000000000000000000000zzzz", { key: owner });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  test("search: part of address, label or customer ID", async () => {
    const byAddress = created[2].address.slice(8, 30);
    const a = await call(`/api/v2/wallets?search=${encodeURIComponent(byAddress)}`, { key: owner });
    expect(a.status).toBe(200);
    expect(a.body.data.map((w: any) => w.id)).toEqual([created[2].id]);

    const token = `lbl${process.pid}x`;
    const labelled = await registered({ address: freshEvm().lower, network: "ethereum", customerId: listCustomer.id, label: `the ${token} wallet` });
    const l = await call(`/api/v2/wallets?search=${encodeURIComponent(token)}`, { key: owner });
    expect(l.body.data.map((w: any) => w.id)).toEqual([labelled.id]);
    const hot = await call(`/api/v2/wallets?customerId=${listCustomer.id}&search=hot`, { key: owner });
    expect(hot.body.data.map((w: any) => w.id)).toEqual([created[3].id, created[1].id]);

    const part = listCustomer.id.slice(-18);
    const c = await call(`/api/v2/wallets?search=${part}&limit=100`, { key: owner });
    expect(c.body.data.map((w: any) => w.id).sort()).toEqual([...created.map((w) => w.id), labelled.id].sort());

    const none = await call(`/api/v2/wallets?search=${"zq".repeat(30)}`, { key: owner });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  test("search: at most 200 characters (200 accepted, 201 → 400 INVALID_QUERY)", async () => {
    const ok = await call(`/api/v2/wallets?search=${"a".repeat(200)}`, { key: owner });
    expect(ok.status).toBe(200);
    const over = await call(`/api/v2/wallets?search=${"a".repeat(201)}`, { key: owner });
    expectError(over, 400, "INVALID_QUERY");
    expect(over.body.details.issues.map((i: any) => i.path)).toEqual(["search"]);
  });

  test("an unknown parameter, a verified other than true or false, a malformed customerId, a limit out of range → 400 INVALID_QUERY with details.issues", async () => {
    const cases: Array<[string, string]> = [
      ["colour=red", "colour"],
      ["status=active", "status"],
      ["verified=yes", "verified"],
      ["verified=1", "verified"],
      ["verified=TRUE", "verified"],
      ["customerId=cus_123", "customerId"],
      ["customerId=wal_0000000000000000000000zzzz", "customerId"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=abc", "limit"],
    ];
    for (const [qs, path] of cases) {
      const r = await call(`/api/v2/wallets?${qs}`, { key: owner });
      expectError(r, 400, "INVALID_QUERY");
      expect(Array.isArray(r.body.details.issues)).toBe(true);
      expect(r.body.details.issues.map((i: any) => i.path)).toEqual([path]);
      for (const i of r.body.details.issues) expect(typeof i.message).toBe("string");
    }
    const two = await call("/api/v2/wallets?colour=red&limit=0", { key: owner });
    expectError(two, 400, "INVALID_QUERY");
    expect(two.body.details.issues.map((i: any) => i.path).sort()).toEqual(["colour", "limit"]);
  });

  test("Pass meta.cursor as cursor for the next page: every wallet once, none twice", async () => {
    const seen: string[] = [];
    const hasMore: boolean[] = [];
    let cursor: string | null = null;
    do {
      const r: Answer = await call(`/api/v2/wallets?customerId=${listCustomer.id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { key: owner });
      expect(r.status).toBe(200);
      expect(r.body.meta.limit).toBe(2);
      expect(r.body.meta.total).toBe(6);
      seen.push(...r.body.data.map((w: any) => w.id));
      hasMore.push(r.body.meta.hasMore);
      cursor = r.body.meta.cursor;
      expect(cursor === null).toBe(!r.body.meta.hasMore);
    } while (cursor);
    expect(hasMore).toEqual([true, true, false]);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    const whole = await call(`/api/v2/wallets?customerId=${listCustomer.id}`, { key: owner });
    expect(seen).toEqual(whole.body.data.map((w: any) => w.id));
  });

  test("an item ID used as a cursor → 400 INVALID_CURSOR; so is a cursor not handed out by this list", async () => {
    expectError(await call(`/api/v2/wallets?cursor=${created[0].id}`, { key: owner }), 400, "INVALID_CURSOR");
    const first = await call(`/api/v2/wallets?customerId=${listCustomer.id}&limit=1`, { key: owner });
    const cursor: string = first.body.meta.cursor;
    expect(typeof cursor).toBe("string");
    // Edited.
    const edited = cursor.slice(0, -2) + (cursor.endsWith("AA") ? "BB" : "AA");
    expectError(await call(`/api/v2/wallets?customerId=${listCustomer.id}&limit=1&cursor=${encodeURIComponent(edited)}`, { key: owner }), 400, "INVALID_CURSOR");
    // Handed out by the customers list.
    await newCustomer();
    await newCustomer();
    const cl = await call("/api/v2/customers?limit=1", { key: owner });
    expect(typeof cl.body.meta.cursor).toBe("string");
    expectError(await call(`/api/v2/wallets?cursor=${encodeURIComponent(cl.body.meta.cursor)}`, { key: owner }), 400, "INVALID_CURSOR");
  });

  test("every record belongs to the key's environment: a live key does not list test wallets", async () => {
    const r = await call(`/api/v2/wallets?customerId=${listCustomer.id}`, { key: ownerLive });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    const all = await call("/api/v2/wallets?limit=100", { key: ownerLive });
    for (const w of all.body.data) expect(w.environment).toBe("live");
    const tAll = await call("/api/v2/wallets?limit=100", { key: owner });
    for (const w of tAll.body.data) expect(w.environment).toBe("test");
  });
});

describe("GET /api/v2/wallets/:id", () => {
  test("the wallet (200)", async () => {
    const c = await newCustomer();
    const w = await registered({ address: VALID.near.replace("alice", `get${process.pid}`), network: "near", customerId: c.id, label: "near one" });
    const r = await call(`/api/v2/wallets/${w.id}`, { key: owner });
    expect(r.status).toBe(200);
    expectMeta(r);
    expect(r.body.data).toEqual(w);
  });

  test("a wallet of the other environment → 404 WALLET_NOT_FOUND", async () => {
    const l = await newCustomer(ownerLive);
    const lw = await registered({ address: freshEvm().lower, network: "ethereum", customerId: l.id }, ownerLive);
    expectError(await call(`/api/v2/wallets/${lw.id}`, { key: owner }), 404, "WALLET_NOT_FOUND");
    expect((await call(`/api/v2/wallets/${lw.id}`, { key: ownerLive })).status).toBe(200);
    const t = await newCustomer();
    const tw = await registered({ address: freshEvm().lower, network: "ethereum", customerId: t.id });
    expectError(await call(`/api/v2/wallets/${tw.id}`, { key: ownerLive }), 404, "WALLET_NOT_FOUND");
  });

  test("an unknown or malformed ID → 404 WALLET_NOT_FOUND", async () => {
    for (const id of ["wal_0000000000000000000000zzzz", "wal_123", "cus_0000000000000000000000zzzz", "nothing"]) {
      expectError(await call(`/api/v2/wallets/${id}`, { key: owner }), 404, "WALLET_NOT_FOUND");
    }
  });
});

describe("PATCH /api/v2/wallets/:id", () => {
  test("only label changes: a string sets it, null clears it", async () => {
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id });
    await Bun.sleep(3);
    const set = await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, body: { label: "Savings" } });
    expect(set.status).toBe(200);
    expectMeta(set);
    expect(set.body.data).toMatchObject({ ...w, label: "Savings", updatedAt: set.body.data.updatedAt });
    expect(Date.parse(set.body.data.updatedAt)).toBeGreaterThan(Date.parse(w.updatedAt));
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data.label).toBe("Savings");
    const cleared = await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, body: { label: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.label).toBeNull();
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data.label).toBeNull();
  });

  test("address, network, verified, customerId in the body change nothing (verification follows proofs, never a request)", async () => {
    const c = await newCustomer();
    const other = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "keep" });
    const body = { address: freshEvm().checksummed, network: "polygon", verified: true, verifiedAt: "2026-01-01T00:00:00.000Z", customerId: other.id, environment: "live" };
    const r = await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, body });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(w);
    const withLabel = await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, body: { ...body, label: "new" } });
    expect(withLabel.status).toBe(200);
    expect(withLabel.body.data).toMatchObject({ id: w.id, address: w.address, network: "ethereum", customerId: c.id, verified: false, verifiedAt: null, environment: "test", label: "new" });
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data).toEqual(withLabel.body.data);
  });

  test("a body without label changes nothing and answers the wallet", async () => {
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "unchanged" });
    const r = await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, body: {} });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(w);
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data).toEqual(w);
  });

  test("a body that is not a JSON object → 400 VALIDATION_ERROR", async () => {
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "stay" });
    for (const raw of ["[]", '["label"]', '"text"', "5", "null", "true"]) {
      expectError(await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, raw }), 400, "VALIDATION_ERROR");
    }
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data).toEqual(w);
  });

  test("a label that is neither string nor null → 400 INVALID_FIELDS", async () => {
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "stay" });
    for (const label of [5, true, { a: 1 }, ["x"]]) {
      expectError(await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, body: { label } }), 400, "INVALID_FIELDS");
    }
    expect((await call(`/api/v2/wallets/${w.id}`, { key: owner })).body.data).toEqual(w);
  });

  test("a wallet of the other environment, an unknown or malformed ID → 404 WALLET_NOT_FOUND", async () => {
    const l = await newCustomer(ownerLive);
    const lw = await registered({ address: freshEvm().lower, network: "ethereum", customerId: l.id, label: "live" }, ownerLive);
    expectError(await call(`/api/v2/wallets/${lw.id}`, { method: "PATCH", key: owner, body: { label: "hijack" } }), 404, "WALLET_NOT_FOUND");
    expect((await call(`/api/v2/wallets/${lw.id}`, { key: ownerLive })).body.data.label).toBe("live");
    for (const id of ["wal_0000000000000000000000zzzz", "wal_x"]) {
      expectError(await call(`/api/v2/wallets/${id}`, { method: "PATCH", key: owner, body: { label: "x" } }), 404, "WALLET_NOT_FOUND");
    }
  });
});

describe("DELETE /api/v2/wallets/:id", () => {
  test("removes the wallet; response data {id, deleted: true}; afterwards it is not found and the customer's walletCount drops", async () => {
    const c = await newCustomer();
    const keep = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id });
    const gone = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id });
    expect(await walletCount(c)).toBe(2);
    const r = await call(`/api/v2/wallets/${gone.id}`, { method: "DELETE", key: owner });
    expect(r.status).toBe(200);
    expectMeta(r);
    expect(r.body.data).toEqual({ id: gone.id, deleted: true });
    expectError(await call(`/api/v2/wallets/${gone.id}`, { key: owner }), 404, "WALLET_NOT_FOUND");
    expect(await walletCount(c)).toBe(1);
    const list = await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner });
    expect(list.body.data.map((w: any) => w.id)).toEqual([keep.id]);
    expectError(await call(`/api/v2/wallets/${gone.id}`, { method: "DELETE", key: owner }), 404, "WALLET_NOT_FOUND");
    // The address is no longer in the registry: not registered, and free for another customer.
    const v = await call("/api/v2/wallets/verify", { method: "POST", key: owner, body: { address: gone.address } });
    expect(v.body.data).toEqual({ isRegistered: false, isVerified: false, walletType: "unknown" });
    const other = await newCustomer();
    const again = await register({ address: gone.address, network: "ethereum", customerId: other.id });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(gone.id);
  });

  test("a wallet of the other environment, an unknown or malformed ID → 404 WALLET_NOT_FOUND (and nothing is removed)", async () => {
    const l = await newCustomer(ownerLive);
    const lw = await registered({ address: freshEvm().lower, network: "ethereum", customerId: l.id }, ownerLive);
    expectError(await call(`/api/v2/wallets/${lw.id}`, { method: "DELETE", key: owner }), 404, "WALLET_NOT_FOUND");
    expect((await call(`/api/v2/wallets/${lw.id}`, { key: ownerLive })).status).toBe(200);
    for (const id of ["wal_0000000000000000000000zzzz", "wal_x"]) {
      expectError(await call(`/api/v2/wallets/${id}`, { method: "DELETE", key: owner }), 404, "WALLET_NOT_FOUND");
    }
  });
});

describe("POST /api/v2/wallets/verify", () => {
  test("a registered address: isRegistered true, isVerified false (no proof yet), walletType hosted, customerId", async () => {
    const c = await newCustomer();
    const a = freshEvm();
    await registered({ address: a.lower, network: "ethereum", customerId: c.id });
    for (const body of [{ address: a.checksummed }, { address: a.checksummed, network: "ethereum" }, { address: a.lower }]) {
      const r = await call("/api/v2/wallets/verify", { method: "POST", key: owner, body });
      expect(r.status).toBe(200);
      expectMeta(r);
      expect(r.body.data).toEqual({ isRegistered: true, isVerified: false, walletType: "hosted", customerId: c.id });
    }
  });

  test("an unregistered address: isRegistered false, isVerified false, walletType unknown, and no customerId", async () => {
    for (const body of [{ address: freshEvm().checksummed }, { address: freshEvm().lower, network: "ethereum" }]) {
      const r = await call("/api/v2/wallets/verify", { method: "POST", key: owner, body });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual({ isRegistered: false, isVerified: false, walletType: "unknown" });
      expect("customerId" in r.body.data).toBe(false);
    }
  });

  test("a wallet of the other environment is not registered for this key", async () => {
    const l = await newCustomer(ownerLive);
    const a = freshEvm();
    await registered({ address: a.lower, network: "ethereum", customerId: l.id }, ownerLive);
    const r = await call("/api/v2/wallets/verify", { method: "POST", key: owner, body: { address: a.checksummed } });
    expect(r.body.data).toEqual({ isRegistered: false, isVerified: false, walletType: "unknown" });
    const live = await call("/api/v2/wallets/verify", { method: "POST", key: ownerLive, body: { address: a.checksummed } });
    expect(live.body.data).toEqual({ isRegistered: true, isVerified: false, walletType: "hosted", customerId: l.id });
  });

  test("isVerified: ownership proven; false when the wallet is registered on another network than the one asked", async () => {
    const c = await newCustomer();
    const a = freshEvm();
    const w = await registered({ address: a.lower, network: "polygon", customerId: c.id });
    const at = await markVerified(w.id); // a valid ownership proof
    const got = await call(`/api/v2/wallets/${w.id}`, { key: owner });
    expect(got.body.data).toMatchObject({ verified: true, verifiedAt: at });
    const verify = (body: unknown) => call("/api/v2/wallets/verify", { method: "POST", key: owner, body });
    expect((await verify({ address: a.checksummed, network: "polygon" })).body.data).toEqual({ isRegistered: true, isVerified: true, walletType: "hosted", customerId: c.id });
    expect((await verify({ address: a.checksummed })).body.data).toEqual({ isRegistered: true, isVerified: true, walletType: "hosted", customerId: c.id });
    expect((await verify({ address: a.checksummed, network: "ethereum" })).body.data).toEqual({ isRegistered: true, isVerified: false, walletType: "hosted", customerId: c.id });
    // And the list filter follows it.
    const t = await call(`/api/v2/wallets?customerId=${c.id}&verified=true`, { key: owner });
    expect(t.body.data.map((x: any) => x.id)).toEqual([w.id]);
    const f = await call(`/api/v2/wallets?customerId=${c.id}&verified=false`, { key: owner });
    expect(f.body.data).toEqual([]);
  });

  test("missing address → 400 MISSING_FIELDS", async () => {
    expectError(await call("/api/v2/wallets/verify", { method: "POST", key: owner, body: {} }), 400, "MISSING_FIELDS");
    expectError(await call("/api/v2/wallets/verify", { method: "POST", key: owner, body: { network: "bitcoin" } }), 400, "MISSING_FIELDS");
  });

  test("non-string address or network → 400 INVALID_FIELDS", async () => {
    for (const body of [{ address: 5 }, { address: ["x"] }, { address: { a: 1 } }, { address: VALID.bitcoin, network: 1 }, { address: VALID.bitcoin, network: ["bitcoin"] }]) {
      expectError(await call("/api/v2/wallets/verify", { method: "POST", key: owner, body }), 400, "INVALID_FIELDS");
    }
  });

  test("nothing is rejected by this call: a garbage address or an unknown network answers 200, not registered", async () => {
    for (const body of [{ address: "definitely not an address !!" }, { address: "x", network: "dogecoin2" }, { address: "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", network: "eth" }, { address: "0x12" }, { address: "" }]) {
      const r = await call("/api/v2/wallets/verify", { method: "POST", key: owner, body });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual({ isRegistered: false, isVerified: false, walletType: "unknown" });
    }
  });

  test("scope wallets:verify: a key without it → 403 INSUFFICIENT_SCOPE naming the scope", async () => {
    const r = await call("/api/v2/wallets/verify", { method: "POST", key: noVerify, body: { address: VALID.bitcoin } });
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("wallets:verify");
    // The same key reads wallets.
    expect((await call("/api/v2/wallets", { key: noVerify })).status).toBe(200);
  });

  test("a developer-role key holding the scope → 403 INSUFFICIENT_PERMISSION (developers lack wallets:verify)", async () => {
    expectError(await call("/api/v2/wallets/verify", { method: "POST", key: developerVerify, body: { address: VALID.bitcoin } }), 403, "INSUFFICIENT_PERMISSION");
    expect((await call("/api/v2/wallets", { key: developerVerify })).status).toBe(200);
  });
});

describe("roles: wallets hold no personal data; every role sees them in full", () => {
  test("an analyst sees wallets in full (list and get) with no piiMasked", async () => {
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "Jane van Dyke savings" });
    const got = await call(`/api/v2/wallets/${w.id}`, { key: analyst });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(w);
    expect("piiMasked" in got.body.meta).toBe(false);
    const list = await call(`/api/v2/wallets?customerId=${c.id}`, { key: analyst });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([w]);
    expect("piiMasked" in list.body.meta).toBe(false);
  });

  test("an analyst cannot create, change, delete or verify (403 INSUFFICIENT_PERMISSION)", async () => {
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id, label: "x" });
    expectError(await register({ address: freshEvm().lower, network: "ethereum", customerId: c.id }, analyst), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: analyst, body: { label: "y" } }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call(`/api/v2/wallets/${w.id}`, { method: "DELETE", key: analyst }), 403, "INSUFFICIENT_PERMISSION");
    expectError(await call("/api/v2/wallets/verify", { method: "POST", key: analyst, body: { address: w.address } }), 403, "INSUFFICIENT_PERMISSION");
    expect((await call(`/api/v2/wallets?customerId=${c.id}`, { key: owner })).body.data).toEqual([w]);
  });

  test("scopes: wallets:read for reads, wallets:write for changes (403 INSUFFICIENT_SCOPE naming it)", async () => {
    const readOnly = await newKey("--env", "test", "--role", "owner", "--scopes", "wallets:read");
    const writeOnly = await newKey("--env", "test", "--role", "owner", "--scopes", "wallets:write");
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id });
    const denied = await register({ address: freshEvm().lower, network: "ethereum", customerId: c.id }, readOnly);
    expectError(denied, 403, "INSUFFICIENT_SCOPE");
    expect(denied.body.error).toContain("wallets:write");
    expectError(await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: readOnly, body: { label: "x" } }), 403, "INSUFFICIENT_SCOPE");
    expectError(await call(`/api/v2/wallets/${w.id}`, { method: "DELETE", key: readOnly }), 403, "INSUFFICIENT_SCOPE");
    const r = await call(`/api/v2/wallets/${w.id}`, { key: writeOnly });
    expectError(r, 403, "INSUFFICIENT_SCOPE");
    expect(r.body.error).toContain("wallets:read");
    expectError(await call("/api/v2/wallets", { key: writeOnly }), 403, "INSUFFICIENT_SCOPE");
  });

  test("without a key → 401 MISSING_KEY", async () => {
    expectError(await call("/api/v2/wallets"), 401, "MISSING_KEY");
    expectError(await call("/api/v2/wallets/verify", { method: "POST", body: { address: "x" } }), 401, "MISSING_KEY");
  });
});

describe("audit log", () => {
  test("records wallet.created, wallet.updated and wallet.deleted with entityType Wallet", async () => {
    const c = await newCustomer();
    const w = await registered({ address: freshEvm().lower, network: "ethereum", customerId: c.id });
    expect((await call(`/api/v2/wallets/${w.id}`, { method: "PATCH", key: owner, body: { label: "audited" } })).status).toBe(200);
    expect((await call(`/api/v2/wallets/${w.id}`, { method: "DELETE", key: owner })).status).toBe(200);
    const r = await call(`/api/v2/audit-log?entityType=Wallet&entityId=${w.id}`, { key: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.map((e: any) => e.action)).toEqual(["wallet.deleted", "wallet.updated", "wallet.created"]);
    for (const e of r.body.data) {
      expect(e).toMatchObject({ entityType: "Wallet", entityId: w.id, environment: "test", actor: { type: "member" } });
    }
    const all = await call("/api/v2/audit-log?entityType=Wallet&limit=200", { key: owner });
    const actions = new Set(all.body.data.map((e: any) => e.action));
    for (const a of ["wallet.created", "wallet.updated", "wallet.deleted"]) expect(actions.has(a)).toBe(true);
    for (const e of all.body.data) expect(e.entityType).toBe("Wallet");
  });
});
