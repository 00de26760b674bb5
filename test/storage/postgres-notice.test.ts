// The change notice on PostgreSQL (src/adapters/storage/postgres/notice.ts, db/migrations-pg/0005_change_notice.sql):
// two sessions on one database stand for two processes (the server and the CLI). A key revoked through one is
// refused by the other's cache from the first read after the notice arrived; a rollback, a key's last use and an
// unrelated table send nothing; one transaction is one notice; the listener resubscribes by itself after its
// connection was cut, and caches nothing while it is deaf; a session no notice is attached to caches nothing. Every
// wait is a bounded poll for a condition, never a fixed delay. Runs whatever CARAVAN_TEST_ENGINES says (it is the
// engine's own behaviour, like the catalogue test).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { openPostgres, createPgRepositories, watchChanges, type PgChangeNotice, type PgSession } from "../../src/adapters/storage/postgres/index.ts";
import { parseSnapshot, visibleIn } from "../../src/adapters/storage/postgres/notice.ts";
import { CredentialCache, type DataVersion } from "../../src/adapters/storage/repos/tenancy-cache.ts";
import { hashKey } from "../../src/domain/keys.ts";
import type { Repositories } from "../../src/ports/repositories.ts";
import type { KeyAuth } from "../../src/ports/tenancy.ts";
import { startPostgres } from "../support/postgres.ts";
import { freezableProxy } from "../support/postgres-faults.ts";

setDefaultTimeout(120_000);

/** Polls `ok` until it holds (bounded: a notice that never comes fails the test instead of hanging it). */
async function until(ok: () => boolean | Promise<boolean>, rounds = 2000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (await ok()) return;
    await Bun.sleep(5);
  }
  throw new Error("the condition did not come true");
}

interface Process {
  session: PgSession;
  notice: PgChangeNotice;
  repositories: Repositories;
}

async function open(url: string): Promise<Process> {
  const session = await openPostgres(url, { readers: 2 });
  const notice = await watchChanges(session, url, { retryMs: 20 });
  const repositories = createPgRepositories(session, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock: Date.now });
  return { session, notice, repositories };
}

let url: string;
let server: Process;
let cli: Process;
let companyId: string;

beforeAll(async () => {
  url = await (await startPostgres()).createDatabase();
  server = await open(url);
  cli = await open(url);
  companyId = (await server.repositories.tenancy.requireCompany("default")).id;
  await cli.repositories.tenancy.createCompany("sentinel");
});

afterAll(async () => {
  for (const p of [server, cli]) {
    await p?.notice.close();
    await p?.session.close();
  }
});

/** A member with a key, made through the CLI's session; the server's cache holds the key afterwards. */
async function cachedKeyOnServer(email: string): Promise<{ id: string; hash: string; first: KeyAuth }> {
  const t = cli.repositories.tenancy;
  const m = await t.createMember(companyId, email, "owner");
  const { apiKey, key } = await t.createKey({ companyId, memberId: m.id, environment: "test" });
  const hash = hashKey(key);
  // The server's first lookup fills its cache; a notice of the CLI's commits may still arrive and empty it once.
  await until(async () => (await server.repositories.tenancy.authByHash(hash)) !== undefined && server.repositories.tenancy.cachedKey(hash) !== undefined);
  return { id: apiKey.id, hash, first: server.repositories.tenancy.cachedKey(hash)! };
}

/**
 * Commits a change to a cached table through the CLI and waits until the server heard its notice: notices arrive in
 * commit order, so every commit before it has been counted by then.
 */
let sentinels = 0;
async function sentinel(): Promise<void> {
  const xid = await cli.session.transaction(async () => {
    await cli.repositories.tenancy.setFeature("sentinel", "webhooks", ++sentinels % 2 === 0);
    return (await cli.session.q<{ xid: string }>("SELECT pg_current_xact_id()::text AS xid"))[0]!.xid;
  });
  await until(() => server.notice.lastTransaction === Number(xid));
}

describe("the change notice between two sessions", () => {
  test("both listen once opened", () => {
    expect(server.notice.listening).toBe(true);
    expect(cli.notice.listening).toBe(true);
  });

  test("a key revoked through the CLI's session is refused by the server's cache once the notice arrived", async () => {
    const { id, hash, first } = await cachedKeyOnServer("revoked@example.com");
    const tenancy = server.repositories.tenancy;
    expect(first.revokedAt).toBeNull();
    // Nothing changed: the cache keeps answering, the same record.
    expect(tenancy.cachedKey(hash)).toBe(first);
    expect(await tenancy.authByHash(hash)).toBe(first);

    const revoked = await cli.repositories.tenancy.revokeKey(companyId, id);
    // The server's process made no write: only the notice can tell it. Bounded wait for it to arrive.
    await until(() => tenancy.cachedKey(hash) === undefined);
    expect((await tenancy.authByHash(hash))!.revokedAt).toBe(revoked.revokedAt);
    // And the refreshed answer is cached again.
    expect(tenancy.cachedKey(hash)!.revokedAt).toBe(revoked.revokedAt);
  });

  test("a member disabled and a company suspended through the CLI reach the server's cache the same way", async () => {
    const { hash } = await cachedKeyOnServer("disabled@example.com");
    const tenancy = server.repositories.tenancy;
    await cli.repositories.tenancy.setMemberStatus(companyId, "disabled@example.com", "disabled");
    await until(() => tenancy.cachedKey(hash) === undefined);
    expect((await tenancy.authByHash(hash))!.memberStatus).toBe("disabled");

    await cli.repositories.tenancy.createCompany("noticed");
    await until(async () => (await tenancy.companyBySlugCached("noticed")) !== undefined && tenancy.cachedCompany("noticed") !== undefined);
    expect(tenancy.cachedCompany("noticed")!.status).toBe("active");
    await cli.repositories.tenancy.setCompanyStatus("noticed", "suspended");
    await until(() => tenancy.cachedCompany("noticed") === undefined);
    expect((await tenancy.companyBySlugCached("noticed"))!.status).toBe("suspended");
  });

  test("one transaction is one notice, on commit only: a rollback, a key's last use and an uncached table send none", async () => {
    const t = cli.repositories.tenancy;
    const m = await t.createMember(companyId, "quiet@example.com", "analyst");
    const { apiKey } = await t.createKey({ companyId, memberId: m.id, environment: "test" });
    await sentinel();

    // Several rows over three cached tables in one transaction: one notice.
    let v = server.notice.dataVersion();
    await cli.session.transaction(async () => {
      await t.setMemberRole(companyId, m.email, "owner");
      await t.setFeature("default", "webhooks", false);
      await t.setFeature("default", "webhooks", true);
      await t.revokeKey(companyId, apiKey.id);
    });
    await until(() => server.notice.dataVersion() !== v);
    await sentinel();
    expect(server.notice.dataVersion()).toBe(v + 2); // the transaction's notice and the sentinel's, nothing more

    // A rolled-back change, a key's last use, a session's renewal and an audit entry: nothing. Notices arrive in
    // commit order, so had any of these sent one it would be counted before the sentinel's.
    v = server.notice.dataVersion();
    await expect(
      cli.session.transaction(async () => {
        await t.setMemberRole(companyId, m.email, "analyst");
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    await t.touchKey(apiKey.id, Date.now());
    const s = await t.createSession({ companyId, member: m, environment: "test", tokenHash: hashKey("quiet-token"), source: null, expiresAt: Date.now() + 60_000, action: "session.signed_in" }, Date.now());
    await t.renewSession(s.id, Date.now(), Date.now() + 120_000);
    await cli.repositories.audit.record({ companyId, environment: "test", actor: { type: "system" }, action: "thing.done", entityType: "Thing", entityId: "t1" }, Date.now());
    await sentinel();
    expect(server.notice.dataVersion()).toBe(v + 1);
    expect((await t.memberByEmail(companyId, m.email))!.role).toBe("owner");
  });

  test("the listener resubscribes by itself after its connection was cut, caching nothing while deaf", async () => {
    const { id, hash } = await cachedKeyOnServer("reconnect@example.com");
    const tenancy = server.repositories.tenancy;
    // Cut every listener's connection to this database, as a restart or a network fault would.
    const cut = await cli.session.q<{ n: number }>(
      "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'caravan-notice'",
    );
    expect(cut[0]!.n).toBeGreaterThanOrEqual(2);
    await until(() => !server.notice.listening || tenancy.cachedKey(hash) === undefined);
    await until(() => server.notice.listening);
    await until(() => cli.notice.listening);
    // Listening again: the cache fills and holds again, and hears the next revocation.
    await until(async () => (await tenancy.authByHash(hash)) !== undefined && tenancy.cachedKey(hash) !== undefined);
    await cli.repositories.tenancy.revokeKey(companyId, id);
    await until(() => tenancy.cachedKey(hash) === undefined);
    expect((await tenancy.authByHash(hash))!.revokedAt).not.toBeNull();
  });

  test("a listener connection that goes silent without closing (a partition) is found by the heartbeat and replaced", async () => {
    const proxy = await freezableProxy(url);
    const session = await openPostgres(url, { readers: 1 });
    const notice = await watchChanges(session, proxy.url, { retryMs: 20, heartbeatMs: 50 });
    try {
      const tenancy = createPgRepositories(session, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock: Date.now }).tenancy;
      const { id, hash } = await cachedKeyOnServer("partition@example.com");
      await until(async () => (await tenancy.authByHash(hash)) !== undefined && tenancy.cachedKey(hash) !== undefined);
      expect(proxy.connections()).toBe(1);
      proxy.freeze(); // the listener's connection stays open, and nothing crosses it any more
      await cli.repositories.tenancy.revokeKey(companyId, id);
      // Its notice cannot arrive; the heartbeat goes unanswered, the notice stops vouching, and a new connection
      // subscribes.
      await until(() => tenancy.cachedKey(hash) === undefined);
      expect((await tenancy.authByHash(hash))!.revokedAt).not.toBeNull();
      await until(() => notice.listening && proxy.connections() === 2);
      const other = await cachedKeyOnServer("partition-2@example.com");
      await until(async () => (await tenancy.authByHash(other.hash)) !== undefined && tenancy.cachedKey(other.hash) !== undefined);
      await cli.repositories.tenancy.revokeKey(companyId, other.id);
      await until(() => tenancy.cachedKey(other.hash) === undefined);
    } finally {
      await notice.close();
      await session.close();
      proxy.close();
    }
  });

  test("a session without a notice attached caches nothing (always right, never fast)", async () => {
    const bare = await openPostgres(url, { readers: 1 });
    try {
      const repositories = createPgRepositories(bare, { pii: new Sealer(randomBytes(32)), secrets: new Sealer(randomBytes(32)), clock: Date.now });
      const { hash } = await cachedKeyOnServer("bare@example.com");
      expect(await repositories.tenancy.authByHash(hash)).toBeDefined();
      expect(repositories.tenancy.cachedKey(hash)).toBeUndefined();
      expect(await repositories.tenancy.companyBySlugCached("default")).toBeDefined();
      expect(repositories.tenancy.cachedCompany("default")).toBeUndefined();
    } finally {
      await bare.close();
    }
  });
});

describe("wake-up hints between two sessions", () => {
  /** Records the payloads a topic's listener hears on `p` until stopped. */
  function hear(p: Process, topic: "mailbox" | "events" | "replies"): { heard: (string | null)[]; stop: () => void } {
    const heard: (string | null)[] = [];
    const stop = p.notice.on(topic, (payload) => heard.push(payload));
    return { heard, stop };
  }

  test("a mailbox row or an event committed by one session wakes the other's listeners, once per transaction", async () => {
    const mailbox = hear(server, "mailbox");
    const events = hear(server, "events");
    try {
      await cli.session.transaction(async () => {
        for (let i = 0; i < 3; i++)
          await cli.session.q("INSERT INTO actor_messages (actor, body, due_at, reply_to, created_at) VALUES ($1, 'null', 0, NULL, 0)", [`wake-test:${i}`]);
      });
      await until(() => mailbox.heard.length > 0);
      await cli.session.q(
        "INSERT INTO events (id, company_id, environment, type, entity_type, entity_id, data, created_at) VALUES ('evt_wake', $1, 'test', 'wake.test', 'transfer', 'x', '{}', '2026-01-01T00:00:00.000Z')",
        [companyId],
      );
      await until(() => events.heard.length > 0);
      // A sentinel transaction afterwards: once its hint is heard, anything of the three inserts has arrived too.
      await cli.session.q("INSERT INTO actor_messages (actor, body, due_at, reply_to, created_at) VALUES ('wake-test:sentinel', 'null', 0, NULL, 0)");
      await until(() => mailbox.heard.length >= 2);
      expect(mailbox.heard).toEqual(["", ""]);
      expect(events.heard).toEqual([""]);
    } finally {
      mailbox.stop();
      events.stop();
      await cli.session.q("DELETE FROM actor_messages WHERE actor LIKE 'wake-test:%'");
    }
  });

  test("a rolled-back insert wakes nobody; a listener removed hears nothing more", async () => {
    const mailbox = hear(server, "mailbox");
    const removed = hear(server, "mailbox");
    removed.stop();
    try {
      await cli.session
        .transaction(async () => {
          await cli.session.q("INSERT INTO actor_messages (actor, body, due_at, reply_to, created_at) VALUES ('wake-test:rolled-back', 'null', 0, NULL, 0)");
          throw new Error("roll back");
        })
        .catch(() => {});
      await cli.session.q("INSERT INTO actor_messages (actor, body, due_at, reply_to, created_at) VALUES ('wake-test:kept', 'null', 0, NULL, 0)");
      await until(() => mailbox.heard.length > 0);
      expect(mailbox.heard).toEqual([""]); // the kept insert's only: the rolled-back one sent nothing
      expect(removed.heard).toEqual([]);
    } finally {
      mailbox.stop();
      await cli.session.q("DELETE FROM actor_messages WHERE actor LIKE 'wake-test:%'");
    }
  });

  test("a reply's hint carries its payload; after the listener's connection was cut every listener is told to look (null)", async () => {
    const replies = hear(server, "replies");
    const events = hear(server, "events");
    try {
      await cli.session.q("SELECT pg_notify('caravan_replies', 'node-a')");
      await until(() => replies.heard.length > 0);
      expect(replies.heard).toEqual(["node-a"]);
      await cli.session.q("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'caravan-notice'");
      await until(() => replies.heard.length > 1 && events.heard.length > 0 && server.notice.listening);
      expect(replies.heard).toEqual(["node-a", null]);
      expect(events.heard).toEqual([null]);
    } finally {
      replies.stop();
      events.stop();
    }
  });
});

describe("a cache fill that overlapped a change", () => {
  /** A data version moved by hand; `vouched` is what it says of a read across a move. */
  function version(vouched: boolean): DataVersion & { n: number } {
    return { n: 0, dataVersion() { return this.n; }, vouches: () => vouched };
  }
  const rec = { id: "key_1" } as KeyAuth;

  test("is kept when nothing moved, dropped when the version moved and nothing vouches for the read", () => {
    const v = version(false);
    const cache = new CredentialCache({}, v);
    let mark = cache.mark();
    cache.rememberKey("h", rec, mark, "10:10:");
    expect(cache.key("h")).toBe(rec);
    mark = cache.mark();
    v.n++; // a notice arrived while the row was read
    cache.rememberKey("h2", rec, mark, "10:10:");
    expect(cache.key("h2")).toBeUndefined();
    mark = cache.mark();
    v.n++;
    cache.rememberKey("h3", rec, mark); // no snapshot (SQLite): never kept across a move
    expect(cache.key("h3")).toBeUndefined();
  });

  test("is kept across a move the read had seen; never across this process's own write (the epoch)", () => {
    const v = version(true);
    const store = {};
    const cache = new CredentialCache(store, v);
    let mark = cache.mark();
    v.n++;
    cache.rememberKey("h", rec, mark, "10:10:");
    expect(cache.key("h")).toBe(rec);
    mark = cache.mark();
    new CredentialCache(store, v).changed(); // another repository over the same store wrote
    cache.rememberKey("h2", rec, mark, "10:10:");
    expect(cache.key("h2")).toBeUndefined();
    expect(cache.key("h")).toBeUndefined();
  });

  test("a commit is visible in a snapshot when it finished before the snapshot was taken", () => {
    const snap = parseSnapshot("100:105:100,103")!;
    expect(snap).not.toBeNull();
    expect(visibleIn(99, snap)).toBe(true);
    expect(visibleIn(100, snap)).toBe(false); // running when the snapshot was taken
    expect(visibleIn(101, snap)).toBe(true);
    expect(visibleIn(103, snap)).toBe(false);
    expect(visibleIn(105, snap)).toBe(false); // began after
    expect(visibleIn(200, snap)).toBe(false);
    expect(parseSnapshot("not a snapshot")).toBeNull();
    expect(parseSnapshot("7:7:")).toEqual({ xmin: 7, xmax: 7, running: new Set() });
  });
});
