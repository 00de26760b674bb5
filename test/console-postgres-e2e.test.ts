// The operator console against a server on PostgreSQL: `caravan serve` with CARAVAN_DATABASE_URL on a fresh database
// of the test cluster (./support/pg-server.ts), the screening_c and provider_b sandboxes, and `caravan console` in a
// real terminal (tmux, read back with capture-pane), as test/console-e2e.test.ts drives it on SQLite. A rule holds a
// transfer created through the API; the held list shows it live, its detail the checks, the rule and the case; the
// officer approves the case by keystrokes and the transfer leaves held; an analyst sees the case's title masked.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { hasTmux, terminal } from "./support/tmux.ts";
import { startPgServer, type PgServer } from "./support/pg-server.ts";
import { startProviderBPeer, type ProviderBPeer } from "../src/sandbox/provider_b/index.ts";
import { randomSeedBase64 } from "../src/adapters/providers/provider_b/crypto.ts";
import { startScreeningCSandbox, type ScreeningCSandbox } from "../src/sandbox/screening_c/index.ts";
import { VIKTOR } from "./support/persons.ts";
import { postHeldTransfer, setUpHeldScene, VIKTOR_ADDR } from "./support/console-scene.ts";
import postgres from "postgres";

// A PostgreSQL cluster, a server, sandboxes and terminals on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const { tmux, press, until, openConsole } = terminal("caravan-console-pg");
let S: PgServer;
let peer: ProviderBPeer;
let vc: ScreeningCSandbox;
let owner: { key: string; memberEmail: string };
let analyst: string;
let customerId: string;
let heldId: string;
const seed = randomSeedBase64();

async function transferState(id: string): Promise<string> {
  const r = await S.call(`/api/v2/transfers/${id}`, { key: owner.key });
  expect(r.status).toBe(200);
  return r.body.data.state;
}

beforeAll(async () => {
  if (!hasTmux) throw new Error("tmux is required for the console's end-to-end test (Debian package tmux; .ci/run installs it)");
  vc = await startScreeningCSandbox();
  peer = await startProviderBPeer({
    vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { viktor: [VIKTOR] }, wallets: [{ address: VIKTOR_ADDR, customer: "viktor" }] }],
  });
  S = await startPgServer({
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    CARAVAN_SCREENING_C_URLS: `eu=${vc.url},us=${vc.url},apac=${vc.url}`,
  });
  // Members and keys made with the CLI against the same PostgreSQL database while the server runs.
  owner = await S.newKey("owner");
  analyst = (await S.newKey("analyst")).key;
  const live = (await S.newKey("owner", "live")).key;
  await S.cli("companies", "profile", "--slug", "default", "--country", "NL");
  ({ customerId } = await setUpHeldScene({ call: S.call, owner: owner.key, live, serverUrl: S.server.url, peer, seed, entityId: "CARAVAN-PG" }));
});

afterAll(async () => {
  if (!hasTmux) return;
  try {
    tmux("kill-server");
  } catch {
    /* no session left */
  }
  if (S) expect(await S.stop()).toBe(0);
  await Promise.all([peer?.stop(), vc?.stop()]);
});

describe("caravan console against a server on PostgreSQL", () => {
  test("the status line names the server, the member and the role; the event stream is live", async () => {
    openConsole("officer", S.server.url, owner.key);
    const s = await until("officer", (s) => s.includes(owner.memberEmail.slice(0, 20)) && s.includes("live"));
    expect(s).toContain(S.server.url.replace("http://", ""));
    expect(s).toContain("owner");
    expect(s).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  test("a transfer held by a rule, created through the API, appears on Held transfers (pushed by the event stream)", async () => {
    await press("officer", "2");
    await until("officer", (s) => s.includes("no held transfers"));
    heldId = await postHeldTransfer(S.call, owner.key, customerId, "1");
    for (let i = 0; i < 300 && (await transferState(heldId)) !== "held"; i++) await Bun.sleep(20);
    expect(await transferState(heldId)).toBe("held");
    const s = await until("officer", (s) => s.includes(heldId.slice(-8)), 10_000);
    expect(s).toMatch(/1 ETH held\s+Viktor Krasnov/);
  });

  test("its detail shows the screening check, the rule that matched and the linked case", async () => {
    await press("officer", "Enter");
    const s = await until("officer", (s) => s.includes("rule matched") && s.includes("CASE-TEST-"));
    expect(s).toContain(heldId);
    expect(s).toContain("screening_c precheck");
    expect(s).toContain("Watch-list name hit");
  });

  test("an analyst's console shows the case title as *** (personal data masked by the server on PostgreSQL)", async () => {
    openConsole("analyst", S.server.url, analyst);
    await until("analyst", (s) => s.includes("analyst") && s.includes("live"));
    await press("analyst", "3");
    const s = await until("analyst", (s) => s.includes("CASE-TEST-"));
    expect(s.split("\n").find((l) => l.includes("CASE-TEST-"))).toContain("***");
    expect(s).not.toContain("Watch-list");
  });

  test("the officer approves the case by keystrokes: the transfer leaves held, in PostgreSQL as on screen", async () => {
    await press("officer", "c");
    await until("officer", (s) => s.includes("Title") && s.includes("Watch-list name hit"));
    await press("officer", "o");
    await until("officer", (s) => s.includes(`1. approve: resumes transfer ${heldId}`));
    await press("officer", "1");
    await until("officer", (s) => s.includes("Resolution note"));
    for (const ch of "cleared") await press("officer", ch);
    await press("officer", "Enter");
    await until("officer", (s) => s.includes("Confirm? y / n"));
    await press("officer", "y");
    const s = await until("officer", (s) => s.includes(`transfer ${heldId} queued`));
    expect(s).toContain("resolved approved");
    await until("officer", (s) => /the transfer moved: /.test(s));
    expect(await transferState(heldId)).not.toBe("held");
    // The server's rows in PostgreSQL: the case closed approved, the transfer out of held.
    const sql = postgres(S.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const [t] = await sql.unsafe("SELECT state FROM transfers WHERE id = $1", [heldId]);
      expect(t.state).not.toBe("held");
      const cases: Record<string, unknown>[] = [...(await sql.unsafe("SELECT status, resolution FROM cases WHERE case_number LIKE 'CASE-TEST-%'"))];
      expect(cases).toEqual([{ status: "closed", resolution: "approved" }]);
    } finally {
      await sql.end({ timeout: 5 });
    }
    await press("officer", "Escape");
    await press("officer", "2");
    await until("officer", (s) => s.includes(`${heldId} is not in this list`));
  });
});
