// The provider connection actor keeps the connection's rate: permits before outbound calls, paced once the burst is spent.
import { test, expect, setDefaultTimeout } from "bun:test";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { CALLS_PER_SECOND, connectionActor, connectionAddress } from "../../src/actors/connection.ts";
import { noProviders } from "../../src/adapters/providers/registry.ts";

setDefaultTimeout(60_000);

test("a burst of CALLS_PER_SECOND calls goes at once; the next ones are told to wait, each a step later", async () => {
  const storage = await openStorage(":memory:");
  let now = 1_000_000;
  const runtime = new ActorRuntime(storage, { clock: () => now });
  await runtime.register(connectionActor(() => noProviders)).start();
  const address = connectionAddress("cmp_x", "test", "provider_b");
  const waits: number[] = [];
  for (let i = 0; i < CALLS_PER_SECOND + 3; i++) {
    const r = await runtime.ask<{ waitMs: number }>(address, { type: "permit", companyId: "cmp_x", environment: "test", provider: "provider_b" });
    waits.push(r.waitMs);
  }
  expect(waits.slice(0, CALLS_PER_SECOND)).toEqual(Array(CALLS_PER_SECOND).fill(0));
  const step = 1000 / CALLS_PER_SECOND;
  expect(waits.slice(CALLS_PER_SECOND)).toEqual([step, 2 * step, 3 * step]);
  // A second later the bucket has refilled.
  now += 1000;
  const later = await runtime.ask<{ waitMs: number }>(address, { type: "permit", companyId: "cmp_x", environment: "test", provider: "provider_b" });
  expect(later.waitMs).toBe(0);
  const state = JSON.parse((storage.client.prepare("SELECT state FROM actor_state WHERE address = ?").get(address) as { state: string }).state);
  expect(state.calls).toBe(CALLS_PER_SECOND + 4);
  await runtime.stop();
  storage.close();
});

test("without usable credentials the directory read answers NOT_CONFIGURED", async () => {
  const storage = await openStorage(":memory:");
  const runtime = new ActorRuntime(storage);
  await runtime.register(connectionActor(() => noProviders)).start();
  const r = await runtime.ask(connectionAddress("cmp_x", "test", "provider_b"), { type: "directory", companyId: "cmp_x", environment: "test", provider: "provider_b" });
  expect(r).toEqual({ ok: false, code: "NOT_CONFIGURED" });
  await runtime.stop();
  storage.close();
});
