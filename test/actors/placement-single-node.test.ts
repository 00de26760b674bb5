// The cluster port's single node (SQLite's answer): it holds every shard from its first tick, its fence never
// refuses, and a runtime placed by it handles every actor as an unplaced one does.
import { test, expect } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { SingleNodeCluster } from "../../src/adapters/storage/single-node.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { ClusterNode, clusterNodeOptionsFromEnv, validNodeId } from "../../src/actors/placement.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { DuplicateNodeError, SHARDS, shardOf } from "../../src/ports/cluster.ts";
import { tempDir } from "../support/tmp.ts";

test("the single node holds every shard, refuses a second registration, and its fence lets every commit through", async () => {
  let now = 1_800_000_000_000;
  const cluster = new SingleNodeCluster();
  const node = new ClusterNode(cluster, { nodeId: "solo", clock: () => now, tickMs: 0 });
  await node.join();
  expect(node.leases().length).toBe(SHARDS);
  expect(node.current()).toBe(true);
  expect(await new ClusterNode(cluster, { nodeId: "other", tickMs: 0 }).join().catch((e: unknown) => e)).toBeInstanceOf(DuplicateNodeError);
  expect(node.leads()).toBe(true); // the single node leads from its first tick
  now += 3_600_000; // a single node's leases never lapse
  await node.tick();
  expect(node.owns("log:x")).toBe(true);
  expect(node.leads()).toBe(true);
  expect(await cluster.leader(now)).toEqual({ nodeId: "solo", epoch: 1, expiresAt: expect.any(Number) });

  const storage = await openStorage(join(tempDir(), "single-node.db"));
  const kind: ActorKind<{ n: number }, null> = { kind: "log", initialState: () => ({ n: 0 }), handle: (ctx) => void ctx.state.n++ };
  const runtime = new ActorRuntime(storage, { clock: () => now, placement: node });
  await runtime.register(kind).start();
  for (let i = 0; i < 5; i++) await runtime.tell(`log:${i % 2}`, null);
  await runtime.idle();
  expect(runtime.stats().processed).toBe(5);
  expect(runtime.stats().fenced).toBe(0);
  await runtime.stop();
  await node.leave();
  expect(node.leases().length).toBe(0);
  expect(node.leads()).toBe(false);
  storage.close();
});

test("shards: a stable hash of the address; node IDs are short names", () => {
  expect(shardOf("transfer:t_1")).toBe(shardOf("transfer:t_1"));
  const spread = new Set(Array.from({ length: 1000 }, (_, i) => shardOf(`transfer:t_${i}`)));
  expect(spread.size).toBe(SHARDS);
  expect(shardOf("a", 7)).toBeLessThan(7);
  expect(validNodeId("node-1.eu_west")).toBe(true);
  expect(validNodeId("")).toBe(false);
  expect(validNodeId("a b")).toBe(false);
  expect(() => new ClusterNode(new SingleNodeCluster(), { nodeId: "no/slash" })).toThrow("node ID must be");
});

test("CARAVAN_NODE_ID and CARAVAN_LEASE_MS: checked, with defaults", () => {
  expect(clusterNodeOptionsFromEnv({})).toEqual({ nodeId: undefined, leaseMs: undefined });
  expect(clusterNodeOptionsFromEnv({ CARAVAN_NODE_ID: " eu-1 ", CARAVAN_LEASE_MS: "20000" })).toEqual({ nodeId: "eu-1", leaseMs: 20_000 });
  expect(() => clusterNodeOptionsFromEnv({ CARAVAN_NODE_ID: "eu 1" })).toThrow("CARAVAN_NODE_ID must be");
  expect(() => clusterNodeOptionsFromEnv({ CARAVAN_LEASE_MS: "500" })).toThrow("CARAVAN_LEASE_MS must be");
  expect(new ClusterNode(new SingleNodeCluster(), { tickMs: 0 }).nodeId).toMatch(/^node-[0-9a-f]{12}$/);
});
