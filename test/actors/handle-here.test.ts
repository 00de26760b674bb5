// A command handled in this process by a runtime that is not started (ActorRuntime.handleHere, the CLI's way to the
// actors, src/cli/runtime.ts): the kind's own handler, its unit of work committed in one transaction.
import { test, expect, beforeAll, afterAll } from "bun:test";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { Tenancy } from "../../src/adapters/storage/repos/tenancy.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { tempDir } from "../support/tmp.ts";

let storage: Storage;
let companyId: string;
const mailSealer = new Sealer(randomBytes(32));
const clock = () => Date.parse("2026-03-01T10:00:00.000Z");

/** A synchronous kind that writes a row, sends a message, emits an event and answers; it refuses "no" with nothing. */
const probe: ActorKind<Record<string, never>, { say: string }> = {
  kind: "probe",
  initialState: () => ({}),
  handle(ctx, msg) {
    if (msg.say === "no") return void ctx.reply({ ok: false, code: "REFUSED" });
    ctx.write(() => void storage.stmt("INSERT INTO database_meta (key, value) VALUES (?, ?)").run(`probe:${ctx.id}`, msg.say));
    ctx.tell("other:1", { heard: msg.say });
    ctx.emit({ companyId, environment: "test", type: "probe.said", entityType: "Probe", entityId: ctx.id, data: { say: msg.say } });
    ctx.reply({ ok: true, id: ctx.id });
  },
};

const meta = (key: string) => (storage.stmt("SELECT value FROM database_meta WHERE key = ?").get(key) as { value: string } | undefined)?.value;
const mail = () => storage.stmt("SELECT actor, body FROM actor_messages WHERE actor = 'other:1'").all() as { actor: string; body: string }[];
const events = () => storage.stmt("SELECT type, entity_id FROM events WHERE type = 'probe.said'").all() as { type: string; entity_id: string }[];

beforeAll(async () => {
  storage = await openStorage(join(tempDir(), "cli-actors.db"));
  companyId = (await new Tenancy(storage, clock).requireCompany("default")).id;
});
afterAll(() => storage.close());

/** A runtime as the CLI builds one: the kinds registered, the mailbox sealer, never started. */
function runtimeWith(...kinds: ActorKind<any, any>[]): ActorRuntime {
  const r = new ActorRuntime(storage, { clock, sealer: mailSealer });
  for (const k of kinds) r.register(k);
  return r;
}

test("the handler's answer comes back; its write, its sealed message for the server and its event are committed", async () => {
  const r = await runtimeWith(probe).handleHere<{ ok: boolean; id: string }>("probe:a1", { say: "hello" });
  expect(r).toEqual({ ok: true, id: "a1" });
  expect(meta("probe:a1")).toBe("hello");
  const rows = mail();
  expect(rows.length).toBe(1);
  expect(rows[0].body).not.toContain("hello"); // sealed as the runtime seals mailbox bodies
  expect(JSON.parse(mailSealer.open(rows[0].body, "other:1"))).toEqual({ heard: "hello" });
  expect(events()).toEqual([{ type: "probe.said", entity_id: "a1" }]);
});

test("a refusal commits nothing it did not record", async () => {
  const r = await runtimeWith(probe).handleHere<{ ok: boolean; code?: string }>("probe:a2", { say: "no" });
  expect(r).toEqual({ ok: false, code: "REFUSED" });
  expect(meta("probe:a2")).toBeUndefined();
  expect(mail().length).toBe(1);
});

test("an address of a kind not registered, a handler that checkpoints, or a handler that throws → refused, nothing committed", async () => {
  await expect(runtimeWith(probe).handleHere("case:x", { say: "x" })).rejects.toThrow("no actor kind case is registered here");
  const calling: ActorKind<Record<string, never>, { say: string }> = {
    kind: "calling",
    initialState: () => ({}),
    async handle(ctx, msg) {
      ctx.write(() => void storage.stmt("INSERT INTO database_meta (key, value) VALUES (?, ?)").run("calling", msg.say));
      await ctx.checkpoint(); // "record what will be sent, then send": a handler that calls out belongs to the server
      ctx.reply({ ok: true });
    },
  };
  await expect(runtimeWith(calling).handleHere("calling:1", { say: "x" })).rejects.toThrow("a handler that checkpoints runs in the server");
  expect(meta("calling")).toBeUndefined();
  const throwing: ActorKind<Record<string, never>, { say: string }> = {
    kind: "throwing",
    initialState: () => ({}),
    handle(ctx) {
      ctx.tell("other:1", { heard: "never" });
      throw new Error("boom");
    },
  };
  await expect(runtimeWith(throwing).handleHere("throwing:1", { say: "x" })).rejects.toThrow("boom");
  expect(mail().length).toBe(1);
});

test("an asynchronous handler (one that awaits the store's reads) is handled here, its writes committed", async () => {
  const reading: ActorKind<Record<string, never>, { say: string }> = {
    kind: "reading",
    initialState: () => ({}),
    async handle(ctx, msg) {
      await Promise.resolve();
      ctx.write(() => void storage.stmt("INSERT INTO database_meta (key, value) VALUES (?, ?)").run("reading", msg.say));
      ctx.reply({ ok: true });
    },
  };
  expect(await runtimeWith(reading).handleHere("reading:1", { say: "y" })).toEqual({ ok: true });
  expect(meta("reading")).toBe("y");
});

test("the state is the actor's own: read under the write lock, sealed and saved with the rest", async () => {
  const counter: ActorKind<{ n: number }, { add: number }> = {
    kind: "counter",
    initialState: () => ({ n: 0 }),
    handle(ctx, msg) {
      ctx.state.n += msg.add;
      ctx.reply({ n: ctx.state.n });
    },
  };
  // Two runtimes, as two CLI runs (or the CLI beside a server): the second reads what the first committed.
  expect(await runtimeWith(counter).handleHere("counter:c1", { add: 2 })).toEqual({ n: 2 });
  expect(await runtimeWith(counter).handleHere("counter:c1", { add: 3 })).toEqual({ n: 5 });
  const row = storage.stmt("SELECT state FROM actor_state WHERE address = 'counter:c1'").get() as { state: string };
  expect(row.state.startsWith("v1:")).toBe(true); // sealed, not the JSON
  expect(JSON.parse(mailSealer.open(row.state, "state:counter:c1"))).toEqual({ n: 5 });
});

test("a started runtime is asked, not handled here", async () => {
  const r = runtimeWith(probe);
  await r.start();
  try {
    await expect(r.handleHere("probe:a3", { say: "x" })).rejects.toThrow("runtime that is not started");
  } finally {
    await r.stop();
  }
});
