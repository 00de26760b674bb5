// The actor runtime's store (src/ports/runtime-store.ts), as every engine must keep it: messages in and back out as
// records, pending ones by ID, acknowledged ones gone, checkpoints and failures counted on the message; dead letters
// parked per company and environment (newest death first, a keyset, a count) and put back as new messages due now;
// actor state saved, replaced only when unchanged, and the unsealed ones counted; events numbered in commit order;
// and a failed unit of work leaves nothing behind.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { Sealer } from "../../../src/adapters/crypto/envelope.ts";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { RuntimeStore, Tenant } from "../../../src/ports/runtime-store.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");

export function runtimeStoreContract(engine: Engine): void {
  describe("runtime store", () => {
    let store: OpenedStore;
    let rt: RuntimeStore;
    let n = 0;
    /** An actor address of its own for each use, so tests do not see each other's messages. */
    const address = (kind = "contract") => `${kind}:act_${++n}`;
    const mine: Tenant = { companyId: "cmp_runtime_contract", environment: "test" };
    const theirs: Tenant = { companyId: "cmp_runtime_other", environment: "test" };
    const myLive: Tenant = { companyId: mine.companyId, environment: "live" };

    beforeAll(async () => {
      store = await engine.open(() => NOW);
      rt = store.runtime;
    });
    afterAll(() => store.close());

    /** A message inserted and read back (as the runtime buries what it read). */
    async function message(actor = address(), o: { body?: string; dueAt?: number; replyTo?: string | null } = {}) {
      const id = await store.store.transaction(() => rt.insert(actor, o.body ?? `{"n":${n}}`, o.dueAt ?? NOW, o.replyTo ?? null, NOW));
      return (await rt.get(id))!;
    }

    /** The ID the next message will be above: the newest pending one's, or 0. */
    async function high(): Promise<number> {
      let last = 0;
      for (;;) {
        const page = await rt.pendingAfter(last, 1000);
        if (!page.length) return last;
        last = page[page.length - 1]!.id;
      }
    }

    test("an inserted message reads back as the same record; IDs ascend; an unknown ID is absent", async () => {
      const actor = address();
      const a = await store.store.transaction(() => rt.insert(actor, '{"type":"go"}', NOW + 5000, "ask_1", NOW));
      const b = await store.store.transaction(() => rt.insert(actor, "v1:sealed-body", NOW, null, NOW));
      expect(b).toBeGreaterThan(a);
      expect(await rt.get(a)).toEqual({ id: a, actor, body: '{"type":"go"}', dueAt: NOW + 5000, retryAt: null, attempts: 0, lastError: null, replyTo: "ask_1", checkpoints: 0 });
      expect(await rt.get(b)).toEqual({ id: b, actor, body: "v1:sealed-body", dueAt: NOW, retryAt: null, attempts: 0, lastError: null, replyTo: null, checkpoints: 0 });
      expect(await rt.get(b + 1_000_000)).toBeUndefined();
    });

    test("pending messages above an ID, by ID whatever their due time, at most the limit", async () => {
      const from = await high();
      const x = await message(address(), { dueAt: NOW + 60_000 });
      const y = await message(address(), { dueAt: NOW });
      const z = await message(address(), { dueAt: NOW - 60_000 });
      expect(await rt.pendingAfter(from, 10)).toEqual([
        { id: x.id, actor: x.actor, dueAt: NOW + 60_000, retryAt: null },
        { id: y.id, actor: y.actor, dueAt: NOW, retryAt: null },
        { id: z.id, actor: z.actor, dueAt: NOW - 60_000, retryAt: null },
      ]);
      expect((await rt.pendingAfter(from, 2)).map((m) => m.id)).toEqual([x.id, y.id]);
      expect((await rt.pendingAfter(y.id, 2)).map((m) => m.id)).toEqual([z.id]);
      expect(await rt.pendingAfter(z.id, 10)).toEqual([]);
    });

    test("an acknowledged message leaves the mailbox (and acknowledging it again changes nothing)", async () => {
      const from = await high();
      const a = await message();
      const b = await message();
      await store.store.transaction(() => rt.ack(a.id));
      expect(await rt.get(a.id)).toBeUndefined();
      expect((await rt.pendingAfter(from, 10)).map((m) => m.id)).toEqual([b.id]);
      await store.store.transaction(() => rt.ack(a.id));
      expect(await rt.get(b.id)).toEqual(b);
    });

    test("checkpoints are counted on the message; a failure records its attempts, error and retry time", async () => {
      const m = await message();
      await store.store.transaction(() => rt.markCheckpoint(m.id));
      await store.store.transaction(() => rt.markCheckpoint(m.id));
      expect((await rt.get(m.id))!.checkpoints).toBe(2);
      await store.store.transaction(() => rt.recordFailure(m.id, 3, "boom: the provider said no", NOW + 8000));
      expect(await rt.get(m.id)).toEqual({ ...m, checkpoints: 2, attempts: 3, lastError: "boom: the provider said no", retryAt: NOW + 8000 });
      expect((await rt.pendingAfter(m.id - 1, 1))[0]).toEqual({ id: m.id, actor: m.actor, dueAt: m.dueAt, retryAt: NOW + 8000 });
    });

    test("a buried message leaves the mailbox for its tenant's dead letters: newest death first (ties by ID), counted, paged by keyset", async () => {
      const before = await rt.tenantDeadLetterCount(mine);
      const a = await message(address("transfer"));
      const b = await message(address("transfer"));
      const c = await message(address("case"));
      const other = await message(address("transfer"));
      const live = await message(address("transfer"));
      await store.store.transaction(() => rt.bury(a, 5, "first", NOW + 1000, mine));
      await store.store.transaction(() => rt.bury(b, 5, "second", NOW + 2000, mine));
      await store.store.transaction(() => rt.bury(c, 2, "third", NOW + 2000, mine));
      await store.store.transaction(() => rt.bury(other, 5, "theirs", NOW + 3000, theirs));
      await store.store.transaction(() => rt.bury(live, 5, "live", NOW + 3000, myLive));
      for (const m of [a, b, c, other, live]) expect(await rt.get(m.id)).toBeUndefined();

      const listed = await rt.tenantDeadLetters(mine, 10);
      expect(listed.slice(0, 3)).toEqual([
        { id: c.id, actor: c.actor, attempts: 2, lastError: "third", createdAt: listed[0]!.createdAt, diedAt: NOW + 2000 },
        { id: b.id, actor: b.actor, attempts: 5, lastError: "second", createdAt: listed[1]!.createdAt, diedAt: NOW + 2000 },
        { id: a.id, actor: a.actor, attempts: 5, lastError: "first", createdAt: listed[2]!.createdAt, diedAt: NOW + 1000 },
      ]);
      expect(typeof listed[0]!.createdAt).toBe("number");
      expect(listed.map((d) => d.id)).not.toContain(other.id);
      expect(listed.map((d) => d.id)).not.toContain(live.id);
      expect(await rt.tenantDeadLetterCount(mine)).toBe(before + 3);
      expect((await rt.tenantDeadLetters(theirs, 10)).map((d) => d.id)).toContain(other.id);
      expect((await rt.tenantDeadLetters(myLive, 10)).map((d) => d.id)).toEqual([live.id]);
      // The keyset: strictly before [diedAt, id], in the same order; a limit.
      expect((await rt.tenantDeadLetters(mine, 1)).map((d) => d.id)).toEqual([c.id]);
      expect((await rt.tenantDeadLetters(mine, 10, [NOW + 2000, c.id])).map((d) => d.id).slice(0, 2)).toEqual([b.id, a.id]);
      expect((await rt.tenantDeadLetters(mine, 1, [NOW + 2000, b.id])).map((d) => d.id)).toEqual([a.id]);
    });

    test("every dead letter, tenant or not: oldest death first, by actor prefix, at most the limit", async () => {
      const kind = `orphan${n}`;
      const a = await message(address(kind));
      const b = await message(address(kind));
      const elsewhere = await message(address(`x${kind}`));
      await store.store.transaction(() => rt.bury(b, 1, "b", NOW + 20_000));
      await store.store.transaction(() => rt.bury(a, 1, "a", NOW + 30_000, null));
      await store.store.transaction(() => rt.bury(elsewhere, 1, "x", NOW + 10_000));
      expect((await rt.deadLetters({ actorPrefix: `${kind}:` })).map((d) => [d.id, d.lastError])).toEqual([
        [b.id, "b"],
        [a.id, "a"],
      ]);
      expect((await rt.deadLetters({ actorPrefix: `${kind}:`, limit: 1 })).map((d) => d.id)).toEqual([b.id]);
      expect((await rt.deadLetters()).map((d) => d.id)).toEqual(expect.arrayContaining([a.id, b.id, elsewhere.id]));
      // Without a tenant they are listed for none.
      expect((await rt.tenantDeadLetters(mine, 1000)).map((d) => d.id)).not.toContain(a.id);
    });

    test("a dead letter replayed is a new message due now (attempts from zero, no one waiting) and leaves the dead letters; once", async () => {
      const m = await message(address("replay"), { body: "v1:the-sealed-body", dueAt: NOW - 1000, replyTo: "ask_gone" });
      await store.store.transaction(() => rt.recordFailure(m.id, 4, "failing", NOW + 500));
      const failed = (await rt.get(m.id))!;
      await store.store.transaction(() => rt.bury(failed, 5, "gave up", NOW + 1000, mine));
      const count = await rt.tenantDeadLetterCount(mine);
      // Not this tenant's: refused, and it stays.
      expect(await rt.replayDeadLetter(m.id, NOW + 9000, theirs)).toBeNull();
      expect(await rt.replayDeadLetter(m.id, NOW + 9000, myLive)).toBeNull();
      expect(await rt.tenantDeadLetterCount(mine)).toBe(count);

      const r = (await rt.replayDeadLetter(m.id, NOW + 9000, mine))!;
      expect(r).toEqual({ id: m.id, actor: m.actor, messageId: r.messageId });
      expect(r.messageId).toBeGreaterThan(m.id);
      expect(await rt.get(r.messageId)).toEqual({ id: r.messageId, actor: m.actor, body: "v1:the-sealed-body", dueAt: NOW + 9000, retryAt: null, attempts: 0, lastError: null, replyTo: null, checkpoints: 0 });
      expect((await rt.pendingAfter(r.messageId - 1, 1)).map((x) => x.id)).toEqual([r.messageId]);
      expect(await rt.tenantDeadLetterCount(mine)).toBe(count - 1);
      expect((await rt.tenantDeadLetters(mine, 1000)).map((d) => d.id)).not.toContain(m.id);
      expect(await rt.replayDeadLetter(m.id, NOW + 9000)).toBeNull();
      expect(await rt.replayDeadLetter(m.id + 1_000_000, NOW + 9000)).toBeNull();
    });

    test("replaying all: those of the prefix and tenant, oldest death first, each a new message; the rest stay", async () => {
      const kind = `bulk${n}`;
      const tenant: Tenant = { companyId: `cmp_bulk_${n}`, environment: "live" };
      const [a, b, c, d, e] = [await message(address(kind)), await message(address(kind)), await message(address(`${kind}x`)), await message(address(kind)), await message(address(kind))];
      await store.store.transaction(() => rt.bury(a, 1, "a", NOW + 3000, tenant));
      await store.store.transaction(() => rt.bury(b, 1, "b", NOW + 1000, tenant));
      await store.store.transaction(() => rt.bury(c, 1, "c", NOW + 2000, tenant)); // another actor kind
      await store.store.transaction(() => rt.bury(d, 1, "d", NOW + 500, theirs)); // another tenant
      await store.store.transaction(() => rt.bury(e, 1, "e", NOW + 700)); // no tenant
      const done = await rt.replayDeadLetters({ actorPrefix: `${kind}:`, tenant }, NOW + 9000);
      expect(done.map((x) => [x.id, x.actor])).toEqual([
        [b.id, b.actor],
        [a.id, a.actor],
      ]);
      for (const x of done) expect(await rt.get(x.messageId)).toMatchObject({ actor: x.actor, dueAt: NOW + 9000, attempts: 0, replyTo: null });
      expect(done[1]!.messageId).toBeGreaterThan(done[0]!.messageId);
      expect((await rt.tenantDeadLetters(tenant, 10)).map((x) => x.id)).toEqual([c.id]);
      // Without a tenant: every dead letter of the prefix, whoever it is about.
      const rest = await rt.replayDeadLetters({ actorPrefix: `${kind}:` }, NOW + 10_000);
      expect(rest.map((x) => x.id)).toEqual([d.id, e.id]);
      expect(await rt.deadLetters({ actorPrefix: `${kind}:` })).toEqual([]);
      expect((await rt.deadLetters({ actorPrefix: `${kind}x:` })).map((x) => x.id)).toEqual([c.id]);
      expect(await rt.replayDeadLetters({ actorPrefix: `${kind}:` }, NOW + 11_000)).toEqual([]);
    });

    test("state: absent until saved, saved over, replaced only while it is still what the replacer read", async () => {
      const at = address("state");
      expect(await rt.loadState(at)).toBeUndefined();
      await store.store.transaction(() => rt.saveState(at, '{"v":1}', 7, NOW));
      expect(await rt.loadState(at)).toEqual({ state: '{"v":1}', lastMessageId: 7 });
      await store.store.transaction(() => rt.saveState(at, '{"v":2}', 9, NOW + 1));
      expect(await rt.loadState(at)).toEqual({ state: '{"v":2}', lastMessageId: 9 });
      // Still what it was: replaced (the message number stays).
      await store.store.transaction(() => rt.replaceState(at, '{"v":2}', "v1:sealed-v2"));
      expect(await rt.loadState(at)).toEqual({ state: "v1:sealed-v2", lastMessageId: 9 });
      // Changed meanwhile: left as it is.
      await store.store.transaction(() => rt.replaceState(at, '{"v":2}', "v1:stale"));
      expect(await rt.loadState(at)).toEqual({ state: "v1:sealed-v2", lastMessageId: 9 });
      const nobody = address("state");
      await store.store.transaction(() => rt.replaceState(nobody, '{"v":2}', "v1:nobody"));
      expect(await rt.loadState(nobody)).toBeUndefined();
    });

    test("unsealed states are counted and listed; sealed ones are not", async () => {
      const sealer = new Sealer(randomBytes(32));
      const plainBefore = await rt.plainStateCount();
      const plain = address("state");
      const sealed = address("state");
      await store.store.transaction(async () => {
        await rt.saveState(plain, '{"plain":true}', 1, NOW);
        await rt.saveState(sealed, sealer.seal('{"plain":false}', `state:${sealed}`), 1, NOW);
      });
      expect(await rt.plainStateCount()).toBe(plainBefore + 1);
      const listed = await rt.plainStates(1000);
      expect(listed).toContainEqual({ address: plain, state: '{"plain":true}' });
      expect(listed.map((s) => s.address)).not.toContain(sealed);
      expect((await rt.plainStates(1)).length).toBe(1);
      // Sealed where it stood: no longer counted.
      await rt.withSecureDelete(() => store.store.transaction(() => rt.replaceState(plain, '{"plain":true}', sealer.seal('{"plain":true}', `state:${plain}`))));
      expect(await rt.plainStateCount()).toBe(plainBefore);
      expect(await rt.withSecureDelete(async () => 42)).toBe(42);
    });

    test("events are numbered ascending in commit order, within one unit of work and across", async () => {
      const event = (i: number) => ({ companyId: mine.companyId, environment: mine.environment, type: "transfer.updated", entityType: "transfer", entityId: `trf_${i}`, data: { i } });
      const one = await store.store.transaction(() => rt.insertEvent(newId("evt", NOW), event(1), iso(NOW)));
      const [two, three] = await store.store.transaction(async () => [await rt.insertEvent(newId("evt", NOW), event(2), iso(NOW)), await rt.insertEvent(newId("evt", NOW), event(3), iso(NOW))]);
      const four = await store.store.transaction(() => rt.insertEvent(newId("evt", NOW), event(4), iso(NOW - 60_000)));
      expect(two).toBeGreaterThan(one);
      expect(three).toBeGreaterThan(two);
      expect(four).toBeGreaterThan(three);
      expect((await store.repositories.events.tenantPage(mine.companyId, mine.environment, one - 1, four, 10)).map((e) => [e.seq, JSON.parse(e.dataJson).i])).toEqual([
        [one, 1],
        [two, 2],
        [three, 3],
        [four, 4],
      ]);
    });

    test("a unit of work that fails leaves nothing: no message, no state, no event, no dead letter moved", async () => {
      const from = await high();
      const newest = await store.repositories.events.newestSeq();
      const at = address("rollback");
      const dead = await message(address("rollback"));
      await store.store.transaction(() => rt.bury(dead, 1, "parked", NOW, mine));
      const count = await rt.tenantDeadLetterCount(mine);
      let inserted = 0;
      await expect(
        store.store.transaction(async () => {
          inserted = await rt.insert(at, "{}", NOW, null, NOW);
          await rt.saveState(at, '{"lost":true}', inserted, NOW);
          await rt.insertEvent(newId("evt", NOW), { companyId: mine.companyId, environment: "test", type: "transfer.updated", entityType: "transfer", entityId: "trf_lost", data: {} }, iso(NOW));
          await rt.replayDeadLetter(dead.id, NOW, mine);
          throw new Error("the handler failed");
        }),
      ).rejects.toThrow("the handler failed");
      expect(inserted).toBeGreaterThan(0);
      expect(await rt.get(inserted)).toBeUndefined();
      expect(await rt.pendingAfter(from, 10)).toEqual([]);
      expect(await rt.loadState(at)).toBeUndefined();
      expect(await store.repositories.events.after(newest, 10)).toEqual([]);
      expect(await rt.tenantDeadLetterCount(mine)).toBe(count);
      expect((await rt.tenantDeadLetters(mine, 1000)).map((d) => d.id)).toContain(dead.id);
      expect(await rt.pendingAfter(dead.id, 10)).toEqual([]);
    });
  });
}
