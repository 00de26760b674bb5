// The customer and wallet searches on both engines side by side: a SQLite file and a PostgreSQL database (opened as the
// storage contract suite opens them) get the same customers and wallets, then the same searches, and must answer the
// same IDs in the same order, page after page, with the same totals. The customer list is searched as its route
// searches it (src/http/customers.ts): the external ID always, the names through the blind index only for a caller
// with pii:view, and the rows presented as that caller sees them (names masked without pii:view). The needles cover
// what the engines do differently inside: under three characters (SQLite's instr over the stored lower-cased text)
// and from three on (SQLite's FTS5 trigram tables, PostgreSQL's pg_trgm indexes over caravan_fold), case and
// non-ASCII letters, and LIKE's own characters (%, _, \). The list totals kept by triggers must agree too, after
// deactivations, an erasure and a wallet removed. Runs whatever CARAVAN_TEST_ENGINES says, as the catalogue test does.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { createRepositories } from "../../src/adapters/storage/repositories.ts";
import { openPostgres, createPgRepositories, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { nameGrams } from "../../src/actors/customer.ts";
import { normalizeForSearch } from "../../src/domain/customers.ts";
import { maskName } from "../../src/domain/masking.ts";
import { iso, newId } from "../../src/domain/ids.ts";
import type { Environment } from "../../src/domain/types.ts";
import type { Repositories } from "../../src/ports/repositories.ts";
import type { CustomerListFilter, CustomerListItem, NewCustomer } from "../../src/ports/customers.ts";
import type { Wallet, WalletFilter } from "../../src/ports/wallets.ts";
import { startPostgres } from "../support/postgres.ts";
import { newCustomer } from "./contract/customers.ts";
import { tempDir } from "../support/tmp.ts";

setDefaultTimeout(120_000);

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const COMPANY = "com_search00000000000000000000";
const OTHER = "com_other000000000000000000000";
const NAME_KEY = new Uint8Array(32).fill(9);
const pii = new Sealer(randomBytes(32));
const keys = { pii, secrets: new Sealer(randomBytes(32)), clock: () => NOW };

interface Side {
  readonly name: string;
  readonly r: Repositories;
  close(): Promise<void> | void;
}

let sqlite: Side;
let pg: Side;
let session: PgSession;

/** A customer of the fixture: its record, its name in the clear (null: none). */
interface Given {
  readonly c: NewCustomer;
  readonly name: string | null;
}

// External IDs: mixed case, non-ASCII letters FTS5 folds (É, Ü, Σ, ẞ, the Kelvin sign), LIKE's characters, none.
const EXTERNAL = [
  "ACME-001", "acme-002", "Acme-003", "beta-7", "BETA-70", "Épargne-7", "ÜBER-3", "straße-1", "STRASSE-2", "ẞig-9",
  "ΣΟΦΙΑ-4", "σοφια-5", "\u212Aelvin-6", "a%b-1", "a_b-2", "axb-3", "back\\slash", "50%off", "x", "xy", null, null,
];
const NAMES = [
  "Jane van Dyke", "John Smith", "Ann Annerson", "Anna Annik", "Jöhn Smïth", "Émile Zola", "Zoë Østergaard", "Li", "Ng Ann",
  "Ángel Ruiz", "Σοφία Παπαδοπούλου", "Jane Doe", null, "Annette", "Van Morrison", "Al", "Anne-Marie", "Dyke Jansen", "O'Brien",
  "ann", "Vanessa", "Jan",
];

function fixture(): { customers: Given[]; wallets: Wallet[] } {
  const customers: Given[] = [];
  for (const [i, ext] of EXTERNAL.entries()) {
    // Some share a creation time: the keyset's ID order decides between them.
    const at = NOW + Math.floor(i / 3) * 1000;
    const env: Environment = i === 9 || i === 12 || i === 19 ? "live" : "test";
    const company = i === 20 ? OTHER : COMPANY;
    const name = NAMES[i] ?? null;
    const c = newCustomer(company, env, at, {
      externalId: ext,
      externalIdSearch: ext === null ? null : ext.toLowerCase(),
      status: i % 5 === 4 ? "deactivated" : "active",
      deactivatedAt: i % 5 === 4 ? iso(at + 1) : null,
    });
    c.nameSealed = name === null ? null : pii.seal(name, `customer:${c.id}:name`);
    customers.push({ name, c });
  }
  const labels = ["Savings Vault", "ÉPARGNE", "épargne courante", "cold_storage", "50% reserve", "hot", null, "ÜBERWEISUNG", "back\\up", "Σ fund", "x"];
  const wallets: Wallet[] = [];
  for (const [i, g] of customers.entries()) {
    for (let k = 0; k < 1 + (i % 3); k++) {
      const at = NOW + 100_000 + Math.floor((i * 3 + k) / 2) * 1000;
      const id = newId("wal", at);
      const hex = Buffer.from(`${i}-${k}-wallet`).toString("hex").slice(0, 20);
      wallets.push({
        id,
        companyId: g.c.companyId,
        environment: g.c.environment,
        customerId: g.c.id,
        address: k === 1 ? `0x${hex.toUpperCase()}AbCd` : `0x${hex}abcd`,
        network: k === 2 ? "polygon" : "ethereum",
        label: labels[(i + k) % labels.length]!,
        verified: (i + k) % 4 === 0,
        verifiedAt: (i + k) % 4 === 0 ? iso(at) : null,
        createdAt: iso(at),
        updatedAt: iso(at),
      });
    }
  }
  return { customers, wallets };
}

const { customers, wallets } = fixture();

beforeAll(async () => {
  const storage = await openStorage(join(tempDir(), `search-${crypto.randomUUID()}.db`));
  sqlite = { name: "SQLite", r: createRepositories(storage, keys), close: () => storage.close() };
  const server = await startPostgres();
  session = await openPostgres(await server.createDatabase(), { readers: 2 });
  pg = { name: "PostgreSQL", r: createPgRepositories(session, keys), close: () => session.close() };
  // Inserted in an order other than their IDs' (the tables' physical order is not the answer's).
  const order = customers.map((g, i) => ({ g, k: (i * 7) % customers.length })).sort((a, b) => a.k - b.k).map((x) => x.g);
  for (const side of [sqlite, pg]) {
    for (const g of order) {
      await side.r.customers.insert(g.c);
      await side.r.customers.replaceNameGrams(g.c.companyId, g.c.environment, g.c.id, g.name === null ? [] : nameGrams(NAME_KEY, g.name));
    }
    for (const w of wallets) await side.r.wallets.insert(w);
  }
});

afterAll(async () => {
  await sqlite?.close();
  await pg?.close();
});

/** The route's name search (src/http/customers.ts nameMatches): blind-index candidates confirmed on the opened name. */
async function nameMatches(r: Repositories, env: Environment, search: string): Promise<string[]> {
  const needle = normalizeForSearch(search);
  if (needle === "") return [];
  const grams = nameGrams(NAME_KEY, search);
  const candidates = grams.length === 0 ? await r.customers.allSealedNames(COMPANY, env) : await r.customers.sealedNames(await r.customers.withAllGrams(COMPANY, env, grams, 50_000));
  return candidates.filter((x) => x.nameSealed !== null && normalizeForSearch(pii.open(x.nameSealed, `customer:${x.id}:name`)).includes(needle)).map((x) => x.id);
}

/** A customer as the list presents it to a caller with or without pii:view (the fields the route derives from the record). */
function presented(row: CustomerListItem, piiView: boolean) {
  const name = row.nameSealed === null ? null : pii.open(row.nameSealed, `customer:${row.id}:name`);
  return { id: row.id, externalId: row.externalId, name: piiView ? name : maskName(name), walletCount: row.walletCount, status: row.status, createdAt: row.createdAt };
}

/** Every page of the customer list for a search, as the route builds its filter, and the total. */
async function customerList(r: Repositories, env: Environment, search: string | undefined, includeDeactivated: boolean, piiView: boolean, pageSize: number) {
  const filter: CustomerListFilter = {
    includeDeactivated,
    externalIdContains: search?.toLowerCase(),
    nameMatchIds: search !== undefined && piiView ? await nameMatches(r, env, search) : undefined,
  };
  const pages: ReturnType<typeof presented>[][] = [];
  let after: [string, string] | null = null;
  for (;;) {
    const rows = await r.customers.page(COMPANY, env, filter, after, pageSize);
    if (rows.length === 0) break;
    pages.push(rows.map((x) => presented(x, piiView)));
    const last = rows[rows.length - 1]!;
    after = [last.createdAt, last.id];
    if (rows.length < pageSize) break;
  }
  return { pages, total: await r.customers.count(COMPANY, env, filter) };
}

async function walletList(r: Repositories, env: Environment, f: WalletFilter, pageSize: number) {
  const pages: string[][] = [];
  let after: [string, string] | null = null;
  for (;;) {
    const rows = await r.wallets.page(COMPANY, env, f, after, pageSize);
    if (rows.length === 0) break;
    pages.push(rows.map((w) => w.id));
    const last = rows[rows.length - 1]!;
    after = [last.createdAt, last.id];
    if (rows.length < pageSize) break;
  }
  return { pages, total: await r.wallets.count(COMPANY, env, f) };
}

const CUSTOMER_NEEDLES = [
  "", "a", "A", "ac", "AC", "me", "acme", "ACME", "me-0", "cme-00", "épargne", "ÉPAR", "épar", "über", "ÜBER", "strasse", "straße", "ss",
  "ẞig", "ßig", "σοφια", "ΣΟΦ", "kelvin", "KEL", "\u212Ael", "%", "_", "a%b", "a_b", "a_", "%o", "\\", "k\\s", "van", "VAN", "jane", "an",
  "ann", "jö", "jo", "smith", "zoë", "zoe", "li", "l", "ng", "o'b", "zzz", "-1", "7", "x", "xy", "xyz",
];

describe("customers: the same answers on both engines", () => {
  test("every search, with and without deactivated customers, with and without pii:view: the same IDs, order, totals and presentation", async () => {
    let compared = 0;
    for (const env of ["test", "live"] as const)
      for (const search of [undefined, ...CUSTOMER_NEEDLES])
        for (const includeDeactivated of [false, true])
          for (const piiView of [false, true]) {
            const a = await customerList(sqlite.r, env, search, includeDeactivated, piiView, 4);
            const b = await customerList(pg.r, env, search, includeDeactivated, piiView, 4);
            expect({ search, env, includeDeactivated, piiView, ...b }).toEqual({ search, env, includeDeactivated, piiView, ...a });
            compared++;
          }
    expect(compared).toBe(2 * (CUSTOMER_NEEDLES.length + 1) * 4);
  });

  test("the answers are the searches' own (not two empty lists): case and non-ASCII letters fold from three characters on, LIKE's characters are literal", async () => {
    const ext = async (r: Repositories, search: string) =>
      (await customerList(r, "test", search, true, false, 100)).pages.flat().map((x) => x.externalId);
    for (const side of [sqlite, pg]) {
      expect(await ext(side.r, "épargne")).toEqual(["Épargne-7"]);
      expect(await ext(side.r, "ÜBER")).toEqual(["ÜBER-3"]);
      expect((await ext(side.r, "σοφια")).sort()).toEqual(["ΣΟΦΙΑ-4", "σοφια-5"].sort());
      expect(await ext(side.r, "kelvin")).toEqual([]); // the Kelvin sign customer is in "live"
      expect((await customerList(side.r, "live", "kelvin", true, false, 100)).pages.flat().map((x) => x.externalId)).toEqual(["\u212Aelvin-6"]);
      expect(await ext(side.r, "a%b")).toEqual(["a%b-1"]);
      expect(await ext(side.r, "a_b")).toEqual(["a_b-2"]);
      expect(await ext(side.r, "k\\s")).toEqual(["back\\slash"]);
      // Under three characters: inside the lower-cased external ID, the needle as given (the route lower-cases it).
      expect((await ext(side.r, "Ac")).length).toBeGreaterThan(0);
      expect((await ext(side.r, "%")).sort()).toEqual(["50%off", "a%b-1"]);
    }
    // Without pii:view the names do not match; with it they do, masked or not as the caller may see them.
    const masked = (await customerList(pg.r, "test", "jane", true, false, 100)).pages.flat();
    const clear = (await customerList(pg.r, "test", "jane", true, true, 100)).pages.flat();
    expect(masked).toEqual([]);
    expect(clear.map((x) => x.name).sort()).toEqual(["Jane Doe", "Jane van Dyke"]);
    const annMasked = (await customerList(pg.r, "test", "ac", true, false, 100)).pages.flat();
    expect(annMasked.length).toBeGreaterThan(0);
    for (const row of annMasked) if (row.name !== null) expect(row.name).toMatch(/^[^*\s]\**( [^*\s]\**)*$/u);
  });

  test("the blind index answers the same candidates in the same order, capped alike, and the sealed names in the same order", async () => {
    for (const env of ["test", "live"] as const) {
      for (const text of ["ann", "an", "jane", "van dy", "smith", "nobody", "a", "e", "anna annik", "ann annerson", "ng ann", "jane van dyke"]) {
        const grams = nameGrams(NAME_KEY, text);
        for (const cap of [1, 2, 50]) {
          const a = await sqlite.r.customers.withAllGrams(COMPANY, env, grams, cap);
          expect({ text, cap, ids: await pg.r.customers.withAllGrams(COMPANY, env, grams, cap) }).toEqual({ text, cap, ids: a });
        }
      }
      const names = async (r: Repositories) => (await r.customers.allSealedNames(COMPANY, env)).map((x) => x.id);
      expect(await names(pg.r)).toEqual(await names(sqlite.r));
    }
    const ids = [...customers.map((g) => g.c.id)].reverse();
    const sealed = async (r: Repositories) => (await r.customers.sealedNames([...ids, ids[0]!, "cus_unknown"])).map((x) => x.id);
    expect(await sealed(pg.r)).toEqual(await sealed(sqlite.r));
    expect((await sealed(pg.r)).length).toBe(customers.length);
  });
});

const WALLET_NEEDLES = [
  "", "0", "0x", "ab", "AB", "aB", "abcd", "ABCD", "AbCd", "savings", "SAVINGS", "vault", "épargne", "ÉPARGNE", "ÉP", "ép", "é", "É",
  "über", "ÜBERWEI", "σ", "Σ f", "σ fund", "cold_", "_", "d_s", "%", "50%", "% r", "\\", "k\\u", "cus_", "CUS_", "hot", "x", "zz", "zzz",
];

describe("wallets: the same answers on both engines", () => {
  test("every search with every filter: the same IDs, order and totals", async () => {
    const someCustomer = customers[1]!.c.id;
    let compared = 0;
    for (const env of ["test", "live"] as const)
      for (const search of [undefined, ...WALLET_NEEDLES, someCustomer.slice(4, 14), someCustomer])
        for (const f of [{}, { network: "polygon" }, { verified: true }, { verified: false, network: "ethereum" }, { customerId: someCustomer }] as WalletFilter[]) {
          const filter = { ...f, search };
          const a = await walletList(sqlite.r, env, filter, 4);
          const b = await walletList(pg.r, env, filter, 4);
          expect({ env, filter, ...b }).toEqual({ env, filter, ...a });
          compared++;
        }
    expect(compared).toBe(2 * (WALLET_NEEDLES.length + 3) * 5);
  });

  test("the answers are the searches' own: the label and address fold from three characters on; under three, only ASCII folds", async () => {
    const labels = async (r: Repositories, search: string) => [...new Set((await walletList(r, "test", { search }, 100)).pages.flat().map((id) => wallets.find((w) => w.id === id)!.label))].sort();
    for (const side of [sqlite, pg]) {
      expect(await labels(side.r, "épargne")).toEqual(["épargne courante", "ÉPARGNE"].sort());
      expect(await labels(side.r, "SAVINGS")).toEqual(["Savings Vault"]);
      expect(await labels(side.r, "cold_")).toEqual(["cold_storage"]);
      // Two characters: SQLite's lower() folds ASCII only, so "ép" finds the lower-case label alone.
      expect(await labels(side.r, "ép")).toEqual(["épargne courante"]);
      const upper = (await walletList(side.r, "test", { search: "ABCD" }, 100)).total;
      expect(upper).toBe(wallets.filter((w) => w.companyId === COMPANY && w.environment === "test").length);
    }
  });

  test("wallets found by several addresses come back in the same order", async () => {
    const picked = wallets.filter((w) => w.companyId === COMPANY && w.environment === "test").slice(0, 6).map((w) => w.address).reverse();
    const found = async (r: Repositories) => (await r.wallets.byAddresses(COMPANY, "test", [...picked, "0xnone", picked[0]!])).map((w) => w.id);
    expect(await found(pg.r)).toEqual(await found(sqlite.r));
    expect((await found(pg.r)).length).toBe(6);
  });
});

describe("list totals kept by triggers", () => {
  const totals = async (r: Repositories) => {
    const out: Record<string, number> = {};
    for (const company of [COMPANY, OTHER])
      for (const env of ["test", "live"] as const) {
        out[`${company}/${env}/customers`] = await r.customers.count(company, env, { includeDeactivated: true });
        out[`${company}/${env}/customers:active`] = await r.customers.count(company, env, { includeDeactivated: false });
        out[`${company}/${env}/wallets`] = await r.wallets.count(company, env, {});
      }
    return out;
  };
  /** What the totals must be: the rows themselves, counted. */
  const counted = async (r: Repositories) => {
    const out: Record<string, number> = {};
    for (const company of [COMPANY, OTHER])
      for (const env of ["test", "live"] as const) {
        const all = await r.customers.page(company, env, { includeDeactivated: true }, null, 10_000);
        out[`${company}/${env}/customers`] = all.length;
        out[`${company}/${env}/customers:active`] = all.filter((c) => c.status === "active").length;
        out[`${company}/${env}/wallets`] = (await r.wallets.page(company, env, {}, null, 10_000)).length;
      }
    return out;
  };

  test("after deactivations, a reactivation, an erasure and a removed wallet, the totals agree with each other and with the rows", async () => {
    expect(await totals(pg.r)).toEqual(await totals(sqlite.r));
    expect(await totals(pg.r)).toEqual(await counted(pg.r));
    const target = customers.filter((g) => g.c.companyId === COMPANY && g.c.environment === "test");
    const [a, b, c] = [target[0]!.c, target[1]!.c, target.find((g) => g.c.status === "deactivated")!.c];
    const w = wallets.find((x) => x.customerId === a.id)!;
    for (const side of [sqlite, pg]) {
      const r = side.r.customers;
      const at = iso(NOW + 10_000_000);
      await r.update(a.id, 1, { status: "deactivated", deactivatedAt: at, updatedAt: at });
      await r.update(b.id, 1, { status: "erased", externalId: null, externalIdSearch: null, nameSealed: null, erasedAt: at, updatedAt: at });
      await r.replaceNameGrams(COMPANY, "test", b.id, []);
      await r.update(c.id, 1, { status: "active", deactivatedAt: null, updatedAt: at });
      // A change that leaves the status as it is counts nothing.
      await r.update(c.id, 2, { status: "active", updatedAt: at });
      await side.r.wallets.delete(w.id);
    }
    const after = await totals(pg.r);
    expect(after).toEqual(await totals(sqlite.r));
    expect(after).toEqual(await counted(pg.r));
    expect(after[`${COMPANY}/test/wallets`]).toBeGreaterThan(0);
    // The searches still agree after the changes (the erased customer's external ID is gone from both indexes).
    for (const search of ["acme", "ac", "beta", "a"]) expect(await customerList(pg.r, "test", search, true, false, 5)).toEqual(await customerList(sqlite.r, "test", search, true, false, 5));
  });
});

describe("the PostgreSQL indexes", () => {
  test("the searches' columns are the GIN indexes' own (the planner can use them when it would not scan); the folded columns follow their sources", async () => {
    const plan = async (sql: string) =>
      session.transaction(async () => {
        await session.q("SET LOCAL enable_seqscan = off");
        return (await session.q<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`)).map((r) => r["QUERY PLAN"]).join("\n");
      });
    expect(await plan("SELECT id FROM customers c WHERE c.external_id_fold LIKE caravan_fold('%acme%')")).toContain("customers_external_id_trgm");
    const wallet = await plan("SELECT id FROM wallets WHERE address_fold LIKE caravan_fold('%abcd%') OR label_fold LIKE caravan_fold('%abcd%') OR customer_id_fold LIKE caravan_fold('%abcd%')");
    expect(wallet).toContain("wallets_search_trgm");
    expect(wallet).not.toContain("Seq Scan");
    const w = wallets.find((x) => x.label === "ÉPARGNE" && x.companyId === COMPANY)!;
    await pg.r.wallets.update(w.id, { label: "ÜBER Épargne", updatedAt: iso(NOW) });
    expect(await session.q("SELECT label_fold, address_fold FROM wallets WHERE id = $1", [w.id])).toEqual([{ label_fold: "über épargne", address_fold: w.address.toLowerCase() }]);
    expect(await session.q("SELECT caravan_fold($1) AS f", ["ΣΟΦΙΑ \u212A ẞ Ab"])).toEqual([{ f: "σοφια k ß ab" }]);
  });
});
