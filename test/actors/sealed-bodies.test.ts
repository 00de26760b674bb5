// Message bodies are sealed at rest; a body this runtime sealed for its own mailbox is handled from the plaintext it
// kept (not opened again), while a body sealed by another runtime (another process, or before a restart) is opened
// and authenticated as before.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import type { ActorKind } from "../../src/actors/types.ts";
import { tempDir } from "../support/tmp.ts";

// A hang guard on a shared machine, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();
const key = new Uint8Array(32).fill(4);

function countingSealer() {
  const s = new Sealer(key);
  // Bodies only (a state's associated data starts "state:").
  const c = { opens: 0, seals: 0 };
  return {
    c,
    sealer: {
      seal: (plain: string, aad: string) => (aad.startsWith("state:") || c.seals++, s.seal(plain, aad)),
      open: (sealed: string, aad: string) => (aad.startsWith("state:") || c.opens++, s.open(sealed, aad)),
    },
  };
}

const seen: string[] = [];
const kind: ActorKind<Record<string, never>, { text: string }> = {
  kind: "echo",
  initialState: () => ({}),
  handle(_ctx, msg) {
    seen.push(msg.text);
  },
};

test("own tells are handled without opening their bodies; bodies sealed by another runtime are opened", async () => {
  const storage = await openStorage(join(dir, "bodies.db"));
  const a = countingSealer();
  const one = new ActorRuntime(storage, { concurrency: 8, sealer: a.sealer });
  one.register(kind);
  await one.start();
  await Promise.all(Array.from({ length: 5 }, (_, i) => one.tell(`echo:${i}`, { text: `own ${i}` })));
  await one.idle();
  expect(seen.sort()).toEqual(["own 0", "own 1", "own 2", "own 3", "own 4"]);
  expect(a.c.seals).toBe(5); // the bodies were sealed at rest
  expect(a.c.opens).toBe(0);
  await one.stop();

  // Another runtime (not started: as another process would) writes five messages; a fresh runtime handles them.
  const writer = new ActorRuntime(storage, { concurrency: 8, sealer: countingSealer().sealer });
  writer.register(kind);
  await Promise.all(Array.from({ length: 5 }, (_, i) => writer.tell(`echo:${i}`, { text: `theirs ${i}` })));
  const rows = storage.client.prepare("SELECT body FROM actor_messages").all() as { body: string }[];
  expect(rows.length).toBe(5);
  for (const r of rows) expect(r.body.startsWith("v1:")).toBe(true); // sealed at rest, not plaintext
  const b = countingSealer();
  const two = new ActorRuntime(storage, { concurrency: 8, sealer: b.sealer });
  two.register(kind);
  seen.length = 0;
  await two.start();
  for (;;) {
    await two.idle();
    if ((storage.client.prepare("SELECT count(*) AS n FROM actor_messages").get() as { n: number }).n === 0) break;
    await Bun.sleep(10);
  }
  expect(seen.sort()).toEqual(["theirs 0", "theirs 1", "theirs 2", "theirs 3", "theirs 4"]);
  expect(b.c.opens).toBe(5);
  await two.stop();
  await writer.stop();
  storage.close();
});
