// provider_b callback records (Part 3, idempotency): claims by environment, sender and transferId, the five-minute release, release on failure.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ProviderBRequests } from "../../src/adapters/storage/repos/provider-b-requests.ts";
import { IN_PROGRESS_RELEASE_MS } from "../../src/domain/provider_b/decisions.ts";

let storage: Storage;
let repo: ProviderBRequests;
const t0 = Date.parse("2026-01-02T03:04:05.000Z");
const key = { companyId: "cmp_1", environment: "test" as const, sender: "code:kimchi", transferId: "4b1c" };

beforeAll(async () => {
  storage = await openStorage(":memory:");
  repo = new ProviderBRequests(storage);
});
afterAll(() => storage.close());

test("a claim is new once; the same content in progress, then reclaimable after five minutes; other content is a duplicate", async () => {
  const first = await repo.claim(key, "transfer", "h1", t0);
  expect(first.decision).toBe("new");
  expect(first.request).toMatchObject({ state: "in_progress", contentHash: "h1", kind: "transfer" });
  expect(first.request.id).toMatch(/^pbr_[0-9a-z]{26}$/);
  expect((await repo.claim(key, "transfer", "h1", t0 + 1000)).decision).toBe("in_progress");
  expect((await repo.claim(key, "transfer", "h2", t0 + 1000)).decision).toBe("duplicate");
  expect((await repo.claim(key, "transfer_data", "h1", t0 + IN_PROGRESS_RELEASE_MS - 1)).decision).toBe("in_progress");
  const again = await repo.claim(key, "transfer", "h1", t0 + IN_PROGRESS_RELEASE_MS);
  expect(again.decision).toBe("reclaim");
  expect(again.request.id).toBe(first.request.id);
  // Reclaiming restarts the five minutes.
  expect((await repo.claim(key, "transfer", "h1", t0 + IN_PROGRESS_RELEASE_MS + 1000)).decision).toBe("in_progress");
  await repo.finish(first.request.id, "sealed-answer", "trf_1", t0 + IN_PROGRESS_RELEASE_MS + 2000);
  const replay = await repo.claim(key, "transfer", "h1", t0 + 3_600_000);
  expect(replay.decision).toBe("replay");
  expect(replay.request).toMatchObject({ state: "done", answerSealed: "sealed-answer", transferRef: "trf_1" });
  expect((await repo.claim(key, "transfer", "h2", t0 + 3_600_000)).decision).toBe("duplicate");
});

test("records are by environment and sender", async () => {
  expect((await repo.claim({ ...key, environment: "live" }, "transfer", "h9", t0)).decision).toBe("new");
  expect((await repo.claim({ ...key, sender: "code:other" }, "transfer", "h9", t0)).decision).toBe("new");
});

test("a failed processing is released: the next identical request processes it again at once, under the same ID", async () => {
  const k = { ...key, transferId: "released" };
  const c = await repo.claim(k, "transfer", "h", t0);
  await repo.release(c.request.id, t0 + 10);
  const next = await repo.claim(k, "transfer", "h", t0 + 20);
  expect(next.decision).toBe("reclaim");
  expect(next.request.id).toBe(c.request.id);
  // A finished record is never released.
  await repo.finish(c.request.id, "a", null, t0 + 30);
  await repo.release(c.request.id, t0 + 40);
  expect((await repo.claim(k, "transfer", "h", t0 + 50)).decision).toBe("replay");
});

test("the unique index refuses a second record for the same key", async () => {
  const k = { ...key, transferId: "unique" };
  await repo.claim(k, "transfer", "h", t0);
  expect(() =>
    storage
      .stmt("INSERT INTO provider_b_requests (id, company_id, environment, sender, transfer_id, kind, content_hash, state, started_at, created_at, updated_at) VALUES ('pbr_x', ?, ?, ?, ?, 'transfer', 'h', 'in_progress', 'x', 'x', 'x')")
      .run(k.companyId, k.environment, k.sender, k.transferId),
  ).toThrow();
});
