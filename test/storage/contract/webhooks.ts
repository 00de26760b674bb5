// The webhooks port (src/ports/webhooks.ts), as every engine must keep it: subscriptions as records (events parsed,
// the sealed secret only from byId), environments and companies apart, newest first; deliveries in send order for the
// queue and newest first for the lists; the counters the engine keeps whoever writes; attempts, health, claims, the
// automatic disabling and retention's edges. Not found is undefined.
import { describe, test, expect, beforeAll, afterAll } from "bun:test";
import { iso, newId } from "../../../src/domain/ids.ts";
import type { Environment } from "../../../src/domain/types.ts";
import type { NewDelivery, NewWebhook, WebhookRepository } from "../../../src/ports/webhooks.ts";
import type { Engine, OpenedStore } from "./engines.ts";

const NOW = Date.parse("2026-03-01T10:00:00.000Z");
const OTHER = "cmp_contract_webhooks_other";

export function webhookContract(engine: Engine): void {
  describe("webhooks", () => {
    let store: OpenedStore;
    let repo: WebhookRepository;
    let n = 0;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
      repo = store.repositories.webhooks;
    });
    afterAll(() => store.close());

    const tx = <T>(fn: () => Promise<T>) => store.store.transaction(fn);

    function subscription(o: Partial<NewWebhook> = {}): NewWebhook {
      const at = iso(NOW + n++);
      return {
        id: newId("whk", NOW + n++),
        companyId: store.companyId,
        environment: "test",
        name: `hook ${n}`,
        url: "https://hooks.example/in",
        events: ["transfer.created", "case.created"],
        status: "active",
        description: null,
        secretSealed: "sealed:secret-text",
        activeFromSeq: 7,
        createdAt: at,
        updatedAt: at,
        ...o,
      };
    }

    async function made(o: Partial<NewWebhook> = {}): Promise<NewWebhook> {
      const w = subscription(o);
      await tx(() => repo.insert(w));
      return w;
    }

    function delivery(w: NewWebhook, o: Partial<NewDelivery> = {}): NewDelivery {
      const at = iso(NOW);
      const seq = o.eventSeq === undefined ? ++n : o.eventSeq;
      return {
        id: newId("dlv", NOW + n++),
        webhookId: w.id,
        companyId: w.companyId,
        environment: w.environment,
        eventId: seq === null ? null : `evt_${seq}`,
        eventSeq: seq,
        eventType: "transfer.created",
        body: `{"seq":${seq}}`,
        signature: null,
        status: "pending",
        attempts: 0,
        maxAttempts: 3,
        httpStatus: null,
        responseTimeMs: null,
        lastError: null,
        nextRetryAt: null,
        sentAt: null,
        createdAt: at,
        updatedAt: at,
        ...o,
      };
    }

    const sent = (attempts = 1, responseTimeMs = 40) => ({ status: "sent" as const, attempts, httpStatus: 200, responseTimeMs, lastError: null, nextRetryAt: null, sentAt: iso(NOW) });
    const failed = (attempts = 3) => ({ status: "failed" as const, attempts, httpStatus: 500, responseTimeMs: 10, lastError: "the receiver answered HTTP 500", nextRetryAt: null, sentAt: null });

    test("an inserted subscription reads back as the same record (counters zero, events parsed); its secret only from byId, sealed", async () => {
      const w = await made({ description: "to the bus" });
      const got = await repo.get(store.companyId, "test", w.id);
      const { secretSealed, ...shown } = w;
      expect(got).toEqual({
        ...shown,
        consecutiveFailures: 0,
        failingSince: null,
        lastDeliveryAt: null,
        lastSuccessAt: null,
        deliveryCount: 0,
        sentCount: 0,
        failedCount: 0,
        responseMsSum: 0,
        responseCount: 0,
      });
      expect(got).not.toHaveProperty("secretSealed");
      expect(got!.events).toEqual(["transfer.created", "case.created"]);
      expect(await repo.byId(w.id)).toEqual({ ...got!, secretSealed });
    });

    test("not found is undefined: another environment, another company, an unknown ID", async () => {
      const w = await made();
      expect(await repo.get(store.companyId, "live", w.id)).toBeUndefined();
      expect(await repo.get(OTHER, "test", w.id)).toBeUndefined();
      expect(await repo.get(store.companyId, "test", "whk_00000000000000000000000000")).toBeUndefined();
      expect(await repo.byId("whk_00000000000000000000000000")).toBeUndefined();
      expect(await repo.delivery(w.id, "dlv_00000000000000000000000000")).toBeUndefined();
    });

    test("all: the environment's subscriptions newest first (createdAt, then ID), by status when asked", async () => {
      const env: Environment = "live";
      const a = await made({ environment: env, createdAt: "2026-03-02T00:00:00.000Z", id: "whk_0000000000000000000000000a" });
      const b = await made({ environment: env, createdAt: "2026-03-02T00:00:00.000Z", id: "whk_0000000000000000000000000b", status: "paused" });
      const c = await made({ environment: env, createdAt: "2026-03-03T00:00:00.000Z" });
      await made({ environment: env, companyId: OTHER });
      expect((await repo.all(store.companyId, env)).map((w) => w.id)).toEqual([c.id, b.id, a.id]);
      expect((await repo.all(store.companyId, env, "paused")).map((w) => w.id)).toEqual([b.id]);
      expect((await repo.all(store.companyId, env, "disabled")).map((w) => w.id)).toEqual([]);
      expect((await repo.active(store.companyId, env)).map((w) => w.id).sort()).toEqual([a.id, c.id].sort());
    });

    test("update writes the given fields (events as a list, a new sealed secret, the active point); an empty change writes nothing", async () => {
      const w = await made();
      await tx(() => repo.update(w.id, { name: "renamed", events: ["*"], status: "paused", description: "d", secretSealed: "sealed:new", activeFromSeq: 42, updatedAt: iso(NOW + 5000) }));
      const got = (await repo.byId(w.id))!;
      expect(got).toMatchObject({ name: "renamed", url: w.url, events: ["*"], status: "paused", description: "d", secretSealed: "sealed:new", activeFromSeq: 42, updatedAt: iso(NOW + 5000), createdAt: w.createdAt });
      await tx(() => repo.update(w.id, {}));
      expect(await repo.byId(w.id)).toEqual(got);
      await tx(() => repo.update(w.id, { status: "active", description: null }));
      expect(await repo.active(store.companyId, "test")).toContainEqual({ id: w.id, events: ["*"], activeFromSeq: 42 });
    });

    test("deliveries round-trip in one batch; another subscription's is not found; the queue is in send order (seq, then ID), pending only", async () => {
      const w = await made();
      const other = await made();
      const d3 = delivery(w, { eventSeq: 30 });
      const d1 = delivery(w, { eventSeq: 10 });
      const d2a = delivery(w, { eventSeq: 20, id: "dlv_0000000000000000000000002a" });
      const d2b = delivery(w, { eventSeq: 20, id: "dlv_0000000000000000000000002b" });
      const done = delivery(w, { eventSeq: 5, status: "sent", attempts: 1, sentAt: iso(NOW), httpStatus: 200, responseTimeMs: 12 });
      await tx(() => repo.insertDeliveries([d3, d1, d2b, d2a, done]));
      expect(await repo.delivery(w.id, d1.id)).toEqual(d1);
      expect(await repo.delivery(w.id, done.id)).toEqual(done);
      expect(await repo.delivery(other.id, d1.id)).toBeUndefined();
      expect((await repo.heads(w.id, null, 10)).map((d) => d.id)).toEqual([d1.id, d2a.id, d2b.id, d3.id]);
      expect((await repo.heads(w.id, null, 2)).map((d) => d.id)).toEqual([d1.id, d2a.id]);
      expect((await repo.heads(w.id, [20, d2a.id], 10)).map((d) => d.id)).toEqual([d2b.id, d3.id]);
      expect(await repo.heads(w.id, [30, d3.id], 10)).toEqual([]);
      expect(await repo.heads(other.id, null, 10)).toEqual([]);
      await tx(() => repo.insertDeliveries([]));
    });

    test("counters follow every write of a delivery; counts by status and event type agree with them", async () => {
      const w = await made();
      const a = delivery(w);
      const b = delivery(w, { eventType: "case.created" });
      const c = delivery(w);
      const ping = delivery(w, { eventSeq: null, eventType: "test.ping", status: "sent", attempts: 1, maxAttempts: 1, httpStatus: 204, responseTimeMs: 8, sentAt: iso(NOW) });
      await tx(() => repo.insertDeliveries([a, b, c, ping]));
      await tx(() => repo.recordAttempt(a.id, sent(1, 40), iso(NOW)));
      await tx(() => repo.recordAttempt(b.id, failed(), iso(NOW)));
      const got = (await repo.get(store.companyId, "test", w.id))!;
      expect(got).toMatchObject({ deliveryCount: 4, sentCount: 2, failedCount: 1 });
      expect(got.responseCount).toBeGreaterThanOrEqual(2);
      expect(got.responseMsSum).toBeGreaterThanOrEqual(48);
      expect(await repo.countDeliveries(got, {})).toBe(4);
      expect(await repo.countDeliveries(got, { status: "sent" })).toBe(2);
      expect(await repo.countDeliveries(got, { status: "failed" })).toBe(1);
      expect(await repo.countDeliveries(got, { status: "pending" })).toBe(1);
      expect(await repo.countDeliveries(got, { eventType: "case.created" })).toBe(1);
      expect(await repo.countDeliveries(got, { eventType: "transfer.created", status: "pending" })).toBe(1);
      expect(await repo.countDeliveries(got, { eventType: "transfer.held" })).toBe(0);
    });

    test("the counters to the unit: response times added, replaced and taken back as attempts rewrite them, statuses moved", async () => {
      const w = await made();
      const a = delivery(w);
      const b = delivery(w, { status: "sent", attempts: 1, httpStatus: 200, responseTimeMs: 30, sentAt: iso(NOW) });
      const c = delivery(w);
      await tx(() => repo.insertDeliveries([a, b, c]));
      const counters = async () => {
        const g = (await repo.get(store.companyId, "test", w.id))!;
        return { total: g.deliveryCount, sent: g.sentCount, failed: g.failedCount, sum: g.responseMsSum, timed: g.responseCount };
      };
      expect(await counters()).toEqual({ total: 3, sent: 1, failed: 0, sum: 30, timed: 1 });
      // A retry to come: its time counted, still pending.
      await tx(() => repo.recordAttempt(a.id, { status: "pending", attempts: 1, httpStatus: 503, responseTimeMs: 5, lastError: "HTTP 503", nextRetryAt: NOW + 1000, sentAt: null }, iso(NOW)));
      expect(await counters()).toEqual({ total: 3, sent: 1, failed: 0, sum: 35, timed: 2 });
      // Sent at the next attempt: its time replaced.
      await tx(() => repo.recordAttempt(a.id, sent(2, 20), iso(NOW)));
      expect(await counters()).toEqual({ total: 3, sent: 2, failed: 0, sum: 50, timed: 2 });
      // Rewritten without a time (no answer): taken back; sent becomes failed.
      await tx(() => repo.recordAttempt(b.id, { status: "failed", attempts: 2, httpStatus: null, responseTimeMs: null, lastError: "timed out", nextRetryAt: null, sentAt: null }, iso(NOW)));
      expect(await counters()).toEqual({ total: 3, sent: 1, failed: 1, sum: 20, timed: 1 });
      expect(await tx(() => repo.failPending(w.id, "not sent: the subscription is paused", iso(NOW)))).toBe(1);
      expect(await counters()).toEqual({ total: 3, sent: 1, failed: 2, sum: 20, timed: 1 });
    });

    test("an attempt's record: the signature kept when none is given; a retry waits for its time; due ones are found", async () => {
      const w = await made();
      const d = delivery(w);
      await tx(() => repo.insertDeliveries([d]));
      await tx(() => repo.recordAttempt(d.id, { status: "pending", attempts: 1, httpStatus: 503, responseTimeMs: 5, lastError: "HTTP 503", nextRetryAt: NOW + 1000, sentAt: null, signature: "t=1,v1=abc" }, iso(NOW)));
      expect(await repo.delivery(w.id, d.id)).toMatchObject({ status: "pending", attempts: 1, lastError: "HTTP 503", nextRetryAt: NOW + 1000, signature: "t=1,v1=abc", updatedAt: iso(NOW) });
      expect(await repo.withDuePending(NOW)).not.toContain(w.id);
      expect(await repo.withDuePending(NOW + 1000)).toContain(w.id);
      await tx(() => repo.recordAttempt(d.id, sent(2), iso(NOW + 1000)));
      expect(await repo.delivery(w.id, d.id)).toMatchObject({ status: "sent", attempts: 2, signature: "t=1,v1=abc", nextRetryAt: null, lastError: null, sentAt: iso(NOW) });
      expect(await repo.withDuePending(NOW + 1000)).not.toContain(w.id);
    });

    test("health: failures counted from the first one's time, a retry changes neither, a success clears them", async () => {
      const w = await made();
      await tx(() => repo.recordHealth(w.id, "failed", NOW, iso(NOW)));
      await tx(() => repo.recordHealth(w.id, "failed", NOW + 60_000, iso(NOW + 60_000)));
      await tx(() => repo.recordHealth(w.id, "retrying", NOW + 90_000, iso(NOW + 90_000)));
      expect(await repo.get(store.companyId, "test", w.id)).toMatchObject({ consecutiveFailures: 2, failingSince: NOW, lastDeliveryAt: iso(NOW + 90_000), lastSuccessAt: null });
      await tx(() => repo.recordHealth(w.id, "sent", NOW + 120_000, iso(NOW + 120_000)));
      expect(await repo.get(store.companyId, "test", w.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null, lastDeliveryAt: iso(NOW + 120_000), lastSuccessAt: iso(NOW + 120_000) });
    });

    test("a manual retry's claim: only on a failed delivery, one at a time until it lapses; an attempt's record ends it", async () => {
      const w = await made();
      const d = delivery(w);
      const pending = delivery(w);
      await tx(() => repo.insertDeliveries([d, pending]));
      await tx(() => repo.recordAttempt(d.id, failed(), iso(NOW)));
      expect(await tx(() => repo.claimFailed(w.id, pending.id, NOW, NOW + 30_000))).toBe(false);
      expect(await tx(() => repo.claimFailed(w.id, d.id, NOW, NOW + 30_000))).toBe(true);
      expect(await tx(() => repo.claimFailed(w.id, d.id, NOW + 1, NOW + 30_001))).toBe(false);
      // Another subscription's delivery is never claimed through this one.
      const other = await made();
      expect(await tx(() => repo.claimFailed(other.id, d.id, NOW + 40_000, NOW + 70_000))).toBe(false);
      // Lapsed: taken again.
      expect(await tx(() => repo.claimFailed(w.id, d.id, NOW + 30_001, NOW + 60_000))).toBe(true);
      await tx(() => repo.recordAttempt(d.id, failed(4), iso(NOW + 30_002)));
      expect(await tx(() => repo.claimFailed(w.id, d.id, NOW + 30_003, NOW + 60_000))).toBe(true);
    });

    test("lists are newest first (createdAt, then ID) and continue after the last one given; filters narrow them", async () => {
      const w = await made();
      const at = (s: number) => iso(NOW + s * 1000);
      const ds = [
        delivery(w, { createdAt: at(1), id: "dlv_00000000000000000000000l01" }),
        delivery(w, { createdAt: at(2), id: "dlv_00000000000000000000000l02", eventType: "case.created" }),
        delivery(w, { createdAt: at(2), id: "dlv_00000000000000000000000l03" }),
        delivery(w, { createdAt: at(3), id: "dlv_00000000000000000000000l04", status: "failed" }),
      ];
      await tx(() => repo.insertDeliveries(ds));
      const ids = (xs: { id: string }[]) => xs.map((x) => x.id);
      const first = await repo.deliveries(w.id, {}, null, 2);
      expect(ids(first)).toEqual([ds[3].id, ds[2].id]);
      const last = first[first.length - 1];
      expect(ids(await repo.deliveries(w.id, {}, [last.createdAt, last.id], 10))).toEqual([ds[1].id, ds[0].id]);
      expect(ids(await repo.deliveries(w.id, { status: "failed" }, null, 10))).toEqual([ds[3].id]);
      expect(ids(await repo.deliveries(w.id, { status: "pending", eventType: "transfer.created" }, null, 10))).toEqual([ds[2].id, ds[0].id]);
      expect(ids(await repo.deliveries(w.id, { eventType: "case.created" }, null, 10))).toEqual([ds[1].id]);
      expect(await repo.deliveries(w.id, {}, [ds[0].createdAt, ds[0].id], 10)).toEqual([]);
    });

    test("a subscription that stops: its pending deliveries end failed with the reason, the done ones untouched, its health not counted", async () => {
      const w = await made();
      const p1 = delivery(w);
      const p2 = delivery(w);
      const ok = delivery(w, { status: "sent", attempts: 1, sentAt: iso(NOW) });
      await tx(() => repo.insertDeliveries([p1, p2, ok]));
      expect(await tx(() => repo.failPending(w.id, "not sent: the subscription is paused", iso(NOW + 1)))).toBe(2);
      expect(await repo.delivery(w.id, p1.id)).toMatchObject({ status: "failed", lastError: "not sent: the subscription is paused", updatedAt: iso(NOW + 1) });
      expect(await repo.delivery(w.id, ok.id)).toEqual(ok);
      expect(await repo.get(store.companyId, "test", w.id)).toMatchObject({ consecutiveFailures: 0, failedCount: 2, sentCount: 1 });
      expect(await tx(() => repo.failPending(w.id, "again", iso(NOW + 2)))).toBe(0);
    });

    test("the automatic disabling: disabled, its pending deliveries failed with the reason, in the caller's unit of work", async () => {
      const w = await made();
      const p = delivery(w);
      await tx(() => repo.insertDeliveries([p]));
      await tx(() => repo.recordHealth(w.id, "failed", NOW, iso(NOW)));
      const current = (await repo.get(store.companyId, "test", w.id))!;
      await tx(() => repo.disableAutomatically(current, 1, NOW + 1000));
      expect(await repo.get(store.companyId, "test", w.id)).toMatchObject({ status: "disabled", updatedAt: iso(NOW + 1000) });
      expect((await repo.delivery(w.id, p.id))!.status).toBe("failed");
      expect((await repo.delivery(w.id, p.id))!.lastError).toContain("disabled automatically");
      // A unit of work that fails takes the disabling back with it.
      const v = await made();
      const before = (await repo.get(store.companyId, "test", v.id))!;
      await expect(
        tx(async () => {
          await repo.disableAutomatically(before, 1, NOW);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await repo.get(store.companyId, "test", v.id)).toEqual(before);
    });
  });

  describe("webhook deliveries retention", () => {
    let store: OpenedStore;
    beforeAll(async () => {
      store = await engine.open(() => NOW);
    });
    afterAll(() => store.close());

    test("done and unchanged before the cutoff, in insert order up to the first young one; pending never; the counters stay", async () => {
      const repo = store.repositories.webhooks;
      const tx = <T>(fn: () => Promise<T>) => store.store.transaction(fn);
      const at = iso(NOW);
      const w: NewWebhook = { id: newId("whk", NOW), companyId: store.companyId, environment: "test", name: "r", url: "https://r.example/", events: ["*"], status: "active", description: null, secretSealed: "s", activeFromSeq: 0, createdAt: at, updatedAt: at };
      await tx(() => repo.insert(w));
      let k = 0;
      const d = (created: number, updated: number, status: NewDelivery["status"]): NewDelivery => ({
        id: `dlv_0000000000000000000000r${String(k++).padStart(3, "0")}`,
        webhookId: w.id,
        companyId: w.companyId,
        environment: "test",
        eventId: null,
        eventSeq: k,
        eventType: "transfer.created",
        body: "{}",
        signature: null,
        status,
        attempts: status === "pending" ? 0 : 1,
        maxAttempts: 3,
        httpStatus: null,
        responseTimeMs: null,
        lastError: null,
        nextRetryAt: null,
        sentAt: null,
        createdAt: iso(created),
        updatedAt: iso(updated),
      });
      const cutoff = NOW;
      const oldSent = d(cutoff - 5000, cutoff - 4000, "sent");
      const oldPending = d(cutoff - 5000, cutoff - 5000, "pending");
      const oldButTouched = d(cutoff - 4000, cutoff + 10, "failed");
      const oldFailed = d(cutoff - 3000, cutoff - 2000, "failed");
      const young = d(cutoff, cutoff, "sent");
      const oldAfterYoung = d(cutoff - 1000, cutoff - 1000, "sent");
      await tx(() => repo.insertDeliveries([oldSent, oldPending, oldButTouched, oldFailed, young, oldAfterYoung]));
      const prunable = await repo.prunableDeliveries(iso(cutoff), 100);
      expect(prunable).toEqual([oldSent.id, oldFailed.id]);
      expect(await repo.prunableDeliveries(iso(cutoff), 1)).toEqual([oldSent.id]);
      expect(await repo.prunableDeliveries(iso(cutoff - 10_000), 100)).toEqual([]);
      const before = (await repo.get(store.companyId, "test", w.id))!;
      // A pending delivery named for deletion stays (it is still owed).
      await tx(() => repo.deleteDeliveries([...prunable, oldPending.id]));
      expect(await repo.delivery(w.id, oldSent.id)).toBeUndefined();
      expect(await repo.delivery(w.id, oldFailed.id)).toBeUndefined();
      expect(await repo.delivery(w.id, oldPending.id)).toEqual(oldPending);
      expect(await repo.delivery(w.id, young.id)).toEqual(young);
      const after = (await repo.get(store.companyId, "test", w.id))!;
      expect({ total: after.deliveryCount, sent: after.sentCount, failed: after.failedCount }).toEqual({ total: before.deliveryCount, sent: before.sentCount, failed: before.failedCount });
      expect(after.deliveryCount).toBe(6);
    });
  });
}
