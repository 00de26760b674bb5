// Transfers on PostgreSQL beside SQLite: (1) the same transfers and the same searches give the same answers on both
// engines (IDs, order, pages, totals), whatever SQLite's index holds (some transfers indexed, some still queued; few
// candidates, and more than it looks up one by one), short texts, LIKE's own characters and non-ASCII letters
// included; (2) the plans PostgreSQL picks for the list's keyset page and for a search page over 10,000 transfers read
// indexes, never the whole table. Both engines run whatever CARAVAN_TEST_ENGINES says: this file is about the pair.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { SQLITE, POSTGRES, type OpenedStore } from "./contract/engines.ts";
import { record } from "./contract/transfers.ts";
import { iso } from "../../src/domain/ids.ts";
import type { Transfer, TransferFilter, TransferRepository } from "../../src/ports/transfers.ts";
import { openPostgres, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { PgTransfers, SEARCH_TEXT } from "../../src/adapters/storage/postgres/repos/transfers.ts";
import type { PgParam } from "../../src/adapters/storage/postgres/session.ts";
import { startPostgres } from "../support/postgres.ts";

setDefaultTimeout(120_000);

const NOW = Date.parse("2026-07-01T08:00:00.000Z");

describe("the same transfers and searches on SQLite and PostgreSQL", () => {
  let lite: OpenedStore;
  let pg: OpenedStore;
  let company: { lite: string; pg: string };

  /** The rows both engines get: the company differs by engine (each its default company), nothing else. */
  const rows: Transfer[] = [];
  const at = (i: number) => iso(NOW + i * 1000);
  const add = (o: Partial<Transfer>) => rows.push(record("cmp_placeholder", { createdAt: at(rows.length), updatedAt: at(rows.length), ...o }));

  beforeAll(async () => {
    [lite, pg] = await Promise.all([SQLITE[0]!.open(() => NOW), POSTGRES[0]!.open(() => NOW)]);
    company = { lite: lite.companyId, pg: pg.companyId };
    // A spread of searchable text: case, LIKE's characters, non-ASCII letters, trigrams apart or across columns.
    add({ externalId: "order-CAFE-77-b" });
    add({ externalId: "xcafe-", beneficiaryAddress: "0xe-77z" }); // every trigram of "cafe-77", across two columns
    add({ externalId: "cafe_fe77" }); // the trigrams of "cafe77", apart
    add({ externalId: "zahlung-müller-öl", state: "completed", status: "approved" });
    add({ externalId: "MÜLLER-AG" }); // SQLite's lower() folds ASCII only: "müller" does not find "MÜLLER"
    add({ externalId: "50%_off\\now", direction: "incoming" });
    add({ externalId: "5050-off" });
    add({ externalId: "ΣΑΣ-σας", beneficiaryVaspId: "vasp_Peer-One" });
    add({ externalId: "rocket-🚀🚀🚀", beneficiaryVaspId: "vasp_peer-two", state: "held" });
    add({ externalId: 'quote-"a"b\'c', originatorAddress: null });
    add({ externalId: null, originatorVaspId: null, beneficiaryAddress: "bc1QXYZ-Ab" });
    add({ externalId: "İstanbul-straße" });
    add({ externalId: "same-time-1", createdAt: at(100) });
    add({ externalId: "same-time-2", createdAt: at(100) });
    add({ externalId: "same-time-3", createdAt: at(100), environment: "live" });
    // Enough rows sharing one text that SQLite walks its list instead of looking each candidate up (over 2,000).
    for (let i = 0; i < 2050; i++) add({ externalId: `bulk-${String(i).padStart(4, "0")}-Tail`, beneficiaryVaspId: i % 7 === 0 ? "vasp_bulk_seven" : null });
    // Half on SQLite before indexing, half after (queued): a search reads both the index and the queue.
    const half = Math.floor(rows.length / 2);
    const on = (s: OpenedStore, c: string, xs: Transfer[]) => s.store.transaction(async () => { for (const r of xs) await s.repositories.transfers.insert({ ...r, companyId: c }); });
    await on(lite, company.lite, rows.slice(0, half));
    while ((await lite.repositories.transfers.indexPending(500)) === 500);
    await on(lite, company.lite, rows.slice(half));
    await on(pg, company.pg, rows);
    expect(await lite.repositories.transfers.pendingIndex()).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await lite?.close();
    await pg?.close();
  });

  const SEARCHES = [
    "cafe-77", "Cafe-77-B", "cafe77", "CAFE", "müller-ö", "müller", "MÜLLER", "Ü", "ü", "ö", "%", "_", "\\", "%_", "50%", "0%_o",
    "5050", "σας", "ΣΑΣ", "🚀", "🚀🚀", "🚀🚀🚀", '"a"', "'c", "'", "qxyz", "QXYZ-AB", "b", "ab", "77", "7", "", "  ", "vasp_", "VASP_PEER",
    "peer-two", "İstanbul", "i̇stanbul", "straße", "STRASSE", "bulk", "bulk-00", "bulk-1", "-tail", "BULK-2049-TAIL", "vasp_bulk_seven",
    "0x52908400098527886e0f7030069857d2e4169ee7", "0xbeef", "trf_", "no-such-text",
  ];

  /** Every page of a list, `size` at a time, through the keyset: the IDs in order. */
  async function walk(t: TransferRepository, c: string, f: TransferFilter, size: number, env: "test" | "live" = "test"): Promise<string[]> {
    const out: string[] = [];
    let after: [string, string] | null = null;
    for (;;) {
      const page: Transfer[] = await t.page(c, env, f, after, size);
      out.push(...page.map((x) => x.id));
      if (page.length < size) return out;
      const last = page[page.length - 1]!;
      after = [last.createdAt, last.id];
    }
  }

  async function answers(s: OpenedStore, c: string, f: TransferFilter) {
    const t = s.repositories.transfers;
    return { first: (await t.page(c, "test", f, null, 50)).map((x) => x.id), count: await t.count(c, "test", f), live: (await t.page(c, "live", f, null, 50)).map((x) => x.id) };
  }

  test("every search: the same first page (IDs and order), the same total, the same in the other environment", async () => {
    const found: Record<string, number> = {};
    for (const search of SEARCHES) {
      const a = await answers(lite, company.lite, { search });
      const b = await answers(pg, company.pg, { search });
      expect({ search, ...b }).toEqual({ search, ...a });
      found[search] = a.count;
    }
    // The comparison compares something: what SQLite answers, for a few of the texts.
    expect(found).toMatchObject({ "cafe-77": 1, "Cafe-77-B": 1, cafe77: 0, "müller": 1, MÜLLER: 1, "%": 1, "%_": 1, "\\": 1, "🚀🚀🚀": 1, bulk: 2050, "vasp_bulk_seven": 293, "no-such-text": 0 });
    expect(found[""]).toBe(rows.filter((r) => r.environment === "test").length);
  });

  test("walked page by page through the keyset, with and without a search or another filter: the same IDs in the same order", async () => {
    const filters: TransferFilter[] = [{}, { search: "bulk-00" }, { search: "e" }, { search: "tail", state: "queued" }, { state: "held" }, { direction: "incoming", search: "%" }, { status: "approved", search: "ö" }];
    for (const f of filters) {
      const a = await walk(lite.repositories.transfers, company.lite, f, 47);
      const b = await walk(pg.repositories.transfers, company.pg, f, 47);
      expect({ f, ids: b }).toEqual({ f, ids: a });
      expect(await pg.repositories.transfers.count(company.pg, "test", f)).toBe(await lite.repositories.transfers.count(company.lite, "test", f));
    }
    // Ties on createdAt are ordered by ID (descending) on both.
    const ties = await walk(pg.repositories.transfers, company.pg, { search: "same-time" }, 1);
    expect(ties).toEqual(rows.filter((r) => r.externalId?.startsWith("same-time") && r.environment === "test").map((r) => r.id).sort().reverse());
    expect(await walk(pg.repositories.transfers, company.pg, { search: "same-time" }, 1, "live")).toEqual(await walk(lite.repositories.transfers, company.lite, { search: "same-time" }, 1, "live"));
  });

  test("after SQLite has indexed everything the answers are still the same", async () => {
    while ((await lite.repositories.transfers.indexPending(500)) === 500);
    expect(await lite.repositories.transfers.pendingIndex()).toBe(0);
    for (const search of SEARCHES) expect({ search, ...(await answers(pg, company.pg, { search })) }).toEqual({ search, ...(await answers(lite, company.lite, { search })) });
  });
});

describe("PostgreSQL plans over 10,000 transfers", () => {
  let session: PgSession;
  const COMPANY = "cmp_default";

  beforeAll(async () => {
    const server = await startPostgres();
    session = await openPostgres(await server.createDatabase(), { readers: 2 });
    // One statement: 10,000 transfers of one company and environment, a second apart, with varied searchable text.
    await session.q(
      `INSERT INTO transfers (id, company_id, environment, direction, state, status, external_id, asset, amount, network, originator_address,
                              beneficiary_address, originator_vasp_id, beneficiary_vasp_id, created_at, updated_at)
       SELECT 'trf_' || lpad(i::text, 8, '0') || md5(i::text), $1, 'test', CASE WHEN i % 3 = 0 THEN 'incoming' ELSE 'outgoing' END,
              CASE WHEN i % 5 = 0 THEN 'completed' ELSE 'queued' END, 'pending', 'order-' || md5('x' || i::text), 'ETH', '1.5', 'ethereum',
              '0x' || md5('o' || i::text), '0x' || md5('b' || i::text), 'vasp_own', 'vasp_' || (i % 40)::text,
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
         FROM generate_series(1, 10000) AS i`,
      [COMPANY],
    );
    await session.exec("ANALYZE transfers");
  });
  afterAll(async () => {
    await session?.close();
  });

  /**
   * The plans of the statements a PgTransfers call sends for transfers, with its own text and parameters: a session
   * whose reads of transfers run `EXPLAIN` instead (answering no rows, or a zero count), each with the planner's
   * custom plan (the parameters' values) and its generic plan (a prepared statement reused).
   */
  async function plansOf(call: (t: PgTransfers) => Promise<unknown>): Promise<string[]> {
    const plans: string[] = [];
    const explain = async (text: string, params: readonly PgParam[] | undefined, mode: string) =>
      session.transaction(async () => {
        await session.exec(`SET LOCAL plan_cache_mode = ${mode}`);
        const rows = await session.q<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, params);
        return `${mode}:\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`;
      });
    const spy: PgSession = {
      ...session,
      read: async <T,>(text: string, params?: readonly PgParam[]) => {
        if (!/FROM transfers/.test(text)) return session.read<T>(text, params);
        plans.push(await explain(text, params, "force_custom_plan"), await explain(text, params, "force_generic_plan"));
        return (/count\(\*\)/.test(text) ? [{ n: 0 }] : []) as T[];
      },
    };
    await call(new PgTransfers(spy));
    expect(plans.length).toBeGreaterThan(0);
    return plans;
  }

  const noSeqScan = (plans: string[]) => {
    for (const p of plans) expect(p).not.toContain("Seq Scan on transfers");
  };

  test("the search's expression is the index's, to the letter", () => {
    expect(readFileSync(join(import.meta.dir, "../../db/migrations-pg/0003_transfer_search.sql"), "utf8")).toContain(`USING gin (${SEARCH_TEXT} gin_trgm_ops)`);
  });

  test("the 10,000 rows are there and analysed", async () => {
    const [r] = await session.read<{ n: number; analysed: number }>(
      "SELECT (SELECT count(*) FROM transfers)::int AS n, (SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'transfers')::int AS analysed",
    );
    expect(r).toEqual({ n: 10000, analysed: 10000 });
  });

  test("the list's first page and a keyset page read the list index, not the table", async () => {
    const first = await plansOf((t) => t.page(COMPANY, "test", {}, null, 50));
    const next = await plansOf((t) => t.page(COMPANY, "test", {}, ["2026-01-01T01:23:20.000Z", "trf_00005000"], 50));
    noSeqScan([...first, ...next]);
    for (const p of next) expect(p).toMatch(/Index (Only )?Scan Backward using transfers_list on transfers/);
    // The keyset position is an index condition (a range), not a filter applied row by row.
    expect(next[0]).toMatch(/Index Cond: .*ROW\(created_at, id\) < ROW\(/);
  });

  test("a filtered keyset page reads its filter's index", async () => {
    const plans = await plansOf((t) => t.page(COMPANY, "test", { state: "completed" }, ["2026-01-01T01:23:20.000Z", "trf_00005000"], 50));
    noSeqScan(plans);
    for (const p of plans) expect(p).toContain("transfers_state");
  });

  test("a search page and its total read the trigram index (or the list index), not the table", async () => {
    const search = await plansOf((t) => t.page(COMPANY, "test", { search: "ORDER-0A1B" }, null, 50));
    const after = await plansOf((t) => t.page(COMPANY, "test", { search: "vasp_17" }, ["2026-01-01T01:23:20.000Z", "trf_00005000"], 50));
    const count = await plansOf((t) => t.count(COMPANY, "test", { search: "0x5f" }));
    noSeqScan([...search, ...after, ...count]);
    for (const p of [...search, ...count]) expect(p).toContain("Bitmap Index Scan on transfers_search");
  });

  test("a search of fewer than three characters walks the list in order, not the table", async () => {
    noSeqScan(await plansOf((t) => t.page(COMPANY, "test", { search: "7" }, null, 50)));
    noSeqScan(await plansOf((t) => t.page(COMPANY, "test", { search: "ab" }, ["2026-01-01T01:23:20.000Z", "trf_00005000"], 50)));
  });

  test("the check can fail: a WHERE that narrows nothing reads the whole table", async () => {
    const plan = (await session.q<{ "QUERY PLAN": string }>("EXPLAIN SELECT count(*) FROM transfers WHERE external_id LIKE '%'")).map((x) => x["QUERY PLAN"]).join("\n");
    expect(plan).toContain("Seq Scan on transfers");
  });
});
