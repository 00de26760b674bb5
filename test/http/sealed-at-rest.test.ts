// Everything personal is sealed at rest: after the demo's flows (provider_b, provider_a and provider_e, outgoing and
// incoming, screening holds and cases) neither the database file nor its WAL holds any person's name in plaintext;
// the database, its WAL and SHM, the master key file and a backup are private to their owner (mode 0600).
import { test, expect, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { runDemo } from "../../src/demo.ts";
import { tempDir } from "../support/tmp.ts";
import { runCli } from "../support/server.ts";
import { actorStates } from "../support/actor-state.ts";

// The demo's servers and sandboxes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "demo.db");

/**
 * Every person the demo's flows carry: our customers, the counterparties' customers on the three networks, the
 * watch-listed beneficiary. Six letters or more, so that none turns up by chance inside ciphertext or keys.
 */
const NAMES = ["van Dyke", "Mensah", "Krasnov", "Viktor", "Larsen", "Ingrid", "Nordmann"];

const modeOf = (file: string) => statSync(file).mode & 0o777;

/** The names found in a file's bytes (as UTF-8 text, the way SQLite stores TEXT). */
function namesIn(file: string): string[] {
  if (!existsSync(file)) return [];
  const bytes = readFileSync(file).toString("latin1");
  return NAMES.filter((n) => bytes.includes(n));
}

test("after the demo's flows, no person's name is in the database or its WAL, and the files are mode 0600", async () => {
  const lines: string[] = [];
  const settle = async (done: () => boolean, rounds = 600) => {
    for (let i = 0; i < rounds && !done(); i++) await Bun.sleep(100);
  };
  const seen = (re: RegExp) => re.test(lines.join("\n"));
  const demo = await runDemo({ port: 0, dbPath: db, count: 10, intervalMs: 300, log: (l) => lines.push(l) });
  let walChecked = false;
  try {
    await demo.done;
    // The flows that carry persons: provider_a (Harbour, Lighthouse's Ola Nordmann screened), provider_e's
    // information request, incoming transfers on all three networks.
    await settle(() => seen(/→ accepted via provider_a to Lighthouse Custody/) && seen(/incoming trf_\S+ \(provider_a\) → completed/) && seen(/reply cdd_\S+ → sent/));
    expect(seen(/→ accepted via provider_a to Lighthouse Custody/)).toBe(true);
    expect(seen(/incoming trf_\S+ \(provider_a\) → completed/)).toBe(true);
    // The names were really used: the sealed actor states, opened with the key, hold the screened counterparty.
    const opened = JSON.stringify([...actorStates(db).values()]);
    expect(NAMES.filter((n) => opened.includes(n)).length).toBeGreaterThan(0);
    // While the server runs, recent commits live in the WAL.
    expect(existsSync(`${db}-wal`)).toBe(true);
    expect(namesIn(`${db}-wal`)).toEqual([]);
    expect(namesIn(db)).toEqual([]);
    walChecked = true;
    for (const f of [db, `${db}-wal`, `${db}-shm`, join(dir, "master.key")]) expect({ f, mode: modeOf(f).toString(8) }).toEqual({ f, mode: "600" });
  } finally {
    await demo.stop();
  }
  expect(walChecked).toBe(true);
  expect(namesIn(db)).toEqual([]);
  expect(namesIn(`${db}-wal`)).toEqual([]);
  // A backup is the same data in one file: private too, and no name in it either.
  const copy = join(dir, "backup.db");
  const r = await runCli(["backup", "--to", copy], { CARAVAN_DB: db });
  expect(r.code).toBe(0);
  expect(modeOf(copy).toString(8)).toBe("600");
  expect(namesIn(copy)).toEqual([]);
});
