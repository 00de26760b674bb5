// Actor state is sealed at rest when the runtime has a sealer: saved as AES-256-GCM under "state:<address>", read back
// on activation; states saved before (plain JSON) are still read, and sealed once when the runtime starts.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { tempDir } from "../support/tmp.ts";

// A hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const key = crypto.getRandomValues(new Uint8Array(32));

const people: ActorKind<{ names: string[] }, { name: string }> = {
  kind: "people",
  initialState: () => ({ names: [] }),
  handle(ctx, msg) {
    ctx.state.names.push(msg.name);
    ctx.reply({ names: ctx.state.names });
  },
};

const stored = (storage: Awaited<ReturnType<typeof openStorage>>, address: string) =>
  (storage.client.prepare("SELECT state FROM actor_state WHERE address = ?").get(address) as { state: string } | null)?.state ?? null;

test("a state holding a person is stored sealed, bound to its actor's address, and read back after a restart", async () => {
  const db = join(dir, "sealed.db");
  let storage = await openStorage(db);
  let runtime = new ActorRuntime(storage, { sealer: new Sealer(key) }).register(people);
  await runtime.start();
  expect(await runtime.ask("people:a", { name: "Ola Nordmann" })).toEqual({ names: ["Ola Nordmann"] });
  await runtime.stop();
  const text = stored(storage, "people:a")!;
  expect(text.startsWith("v1:")).toBe(true);
  expect(text).not.toContain("Nordmann");
  expect(JSON.parse(new Sealer(key).open(text, "state:people:a"))).toEqual({ names: ["Ola Nordmann"] });
  // Bound to its address: the same ciphertext under another actor does not open.
  expect(() => new Sealer(key).open(text, "state:people:b")).toThrow();
  storage.close();

  storage = await openStorage(db);
  runtime = new ActorRuntime(storage, { sealer: new Sealer(key) }).register(people);
  await runtime.start();
  expect(await runtime.ask("people:a", { name: "Kari Nordmann" })).toEqual({ names: ["Ola Nordmann", "Kari Nordmann"] });
  await runtime.stop();
  storage.close();
});

test("states saved unsealed by an earlier version are read, and sealed when the runtime starts", async () => {
  const db = join(dir, "upgrade.db");
  let storage = await openStorage(db);
  let runtime = new ActorRuntime(storage).register(people); // no sealer: as before
  await runtime.start();
  for (const a of ["x", "y", "z"]) await runtime.ask(`people:${a}`, { name: `Person ${a} Nordmann` });
  await runtime.stop();
  expect(stored(storage, "people:x")).toContain("Nordmann");
  storage.close();

  storage = await openStorage(db);
  runtime = new ActorRuntime(storage, { sealer: new Sealer(key) }).register(people);
  await runtime.start();
  for (const a of ["x", "y", "z"]) {
    const text = stored(storage, `people:${a}`)!;
    expect(text.startsWith("v1:")).toBe(true);
    expect(text).not.toContain("Nordmann");
  }
  expect(await runtime.ask("people:y", { name: "Another" })).toEqual({ names: ["Person y Nordmann", "Another"] });
  await runtime.stop();
  storage.close();
});
