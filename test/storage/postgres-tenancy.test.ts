// PostgreSQL's tenancy repository where two processes meet (src/adapters/storage/postgres/repos/tenancy.ts), with two
// sessions on one database standing for two processes. SQLite's IMMEDIATE transaction keeps the other process out
// between a check and its write; here the unique indexes and row locks do, and the caller hears the same answer:
// - a slug or an email committed by the other session after this one's check is the TenancyError of a taken slug or
//   email (the unique index's SQLSTATE 23505 translated), not a store error;
// - two changes of one company's features, one waiting for the other, both count (the row is read FOR UPDATE).
// Each race is staged, not timed: the first session holds its transaction open until the second is seen waiting
// for its lock (pg_stat_activity), then commits.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { openPostgres, createPgRepositories, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { decideCompany, decideMember } from "../../src/domain/members/tenancy.ts";
import type { Repositories } from "../../src/ports/repositories.ts";
import { TenancyError } from "../../src/ports/tenancy.ts";
import { startPostgres } from "../support/postgres.ts";

setDefaultTimeout(120_000);

interface Process {
  session: PgSession;
  repositories: Repositories;
}

let one: Process;
let other: Process;
let companyId: string;

async function open(url: string): Promise<Process> {
  const session = await openPostgres(url, { readers: 1 });
  return { session, repositories: createPgRepositories(session, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock: Date.now }) };
}

beforeAll(async () => {
  const url = await (await startPostgres()).createDatabase();
  one = await open(url);
  other = await open(url);
  companyId = (await one.repositories.tenancy.requireCompany("default")).id;
});

afterAll(async () => {
  await one?.session.close();
  await other?.session.close();
});

/** Waits (bounded) until some backend of this database waits for a lock another holds. */
async function someoneWaits(s: PgSession): Promise<void> {
  for (let i = 0; i < 4000; i++) {
    const [r] = await s.read<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
    if (r!.n > 0) return;
    await Bun.sleep(5);
  }
  throw new Error("nobody waited for the lock");
}

/** The refusal `p` ended with (or a note that it did not refuse). */
async function refusal(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
    return "no refusal";
  } catch (e) {
    return e;
  }
}

/**
 * Runs `inside` in a transaction of the first session, starts `racer` meanwhile, waits until the racer waits for a
 * lock the transaction holds, then commits; answers what the racer ended with.
 */
async function race(inside: () => Promise<unknown>, racer: () => Promise<unknown>): Promise<unknown> {
  let pending: Promise<unknown> | undefined;
  await one.session.transaction(async () => {
    await inside();
    pending = refusal(racer());
    await someoneWaits(one.session);
  });
  return pending;
}

describe("two processes, one database", () => {
  test("a slug committed by the other process after the check is refused as a taken slug, as on SQLite", async () => {
    const at = new Date().toISOString();
    const mine = decideCompany("race-slug", "Mine", false, "cmp_race_mine", at);
    if (!mine.ok) throw new Error(mine.message);
    const e = await race(
      () => one.repositories.tenancy.insertCompany(mine.record),
      () => other.repositories.tenancy.createCompany("race-slug", "Theirs"),
    );
    const taken = decideCompany("race-slug", "Theirs", true, "cmp_x", at);
    expect(taken.ok).toBe(false);
    expect(e).toBeInstanceOf(TenancyError);
    expect((e as Error).message).toBe((taken as { message: string }).message);
    // The first one's row stands; the refused one wrote nothing (no second company, no audit entry).
    expect((await other.repositories.tenancy.companyBySlug("race-slug"))!.name).toBe("Mine");
    expect((await other.repositories.tenancy.listCompanies()).filter((c) => c.slug === "race-slug")).toHaveLength(1);
  });

  test("an email committed by the other process after the check is refused as a taken email, as on SQLite", async () => {
    const at = new Date().toISOString();
    const mine = decideMember(companyId, "race@example.com", "analyst", false, "cli", "mem_race_mine", at);
    if (!mine.ok) throw new Error(mine.message);
    const e = await race(
      () => one.repositories.tenancy.insertMember(mine.record),
      () => other.repositories.tenancy.createMember(companyId, "RACE@example.com", "owner"),
    );
    const taken = decideMember(companyId, "RACE@example.com", "owner", true, "cli", "mem_x", at);
    expect(taken.ok).toBe(false);
    expect(e).toBeInstanceOf(TenancyError);
    expect((e as Error).message).toBe((taken as { message: string }).message);
    expect((await other.repositories.tenancy.memberByEmail(companyId, "race@example.com"))!.id).toBe("mem_race_mine");
  });

  test("a unique index refusing the tenancy actor's own insert stays the store's error (as SQLite's constraint error)", async () => {
    const at = new Date().toISOString();
    const d = decideCompany("actor-twin", undefined, false, "cmp_actor_twin", at);
    if (!d.ok) throw new Error(d.message);
    await one.repositories.tenancy.insertCompany(d.record);
    const e = await refusal(other.repositories.tenancy.insertCompany({ ...d.record, id: "cmp_actor_twin_2" }));
    expect(e).not.toBeInstanceOf(TenancyError);
    expect((e as { code?: string }).code).toBe("23505");
    expect(other.session.faultOf(e)).toBeNull(); // a fault of the work, not of the store: no 503
  });

  test("two feature switches of one company, the second waiting for the first, both count", async () => {
    await one.repositories.tenancy.createCompany("features");
    const e = await race(
      () => one.repositories.tenancy.setFeature("features", "webhooks", false),
      () => other.repositories.tenancy.setFeature("features", "api_keys", false),
    );
    expect(e).toBe("no refusal");
    expect((await other.repositories.tenancy.companyBySlug("features"))!.disabledFeatures).toEqual(["api_keys", "webhooks"]);
  });
});
