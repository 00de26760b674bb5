// The operator console end to end: the real server, the screening_c and provider_b sandboxes, and `caravan console`
// running in a real terminal (tmux, read back with capture-pane). A rule holds a transfer created through the API;
// the console shows it, the officer resolves its case by keystrokes and sees the transfer move; an analyst's console
// shows the case's personal data masked. In a busy queue (160×45), transfers created over the API while one is
// selected never move the selection: the officer rejects the transfer the detail shows, through its case, and the
// API proves that exactly that transfer (and its case) moved. CONSOLE_CAPTURES=<dir> saves the screens for the docs.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { hasTmux, terminal } from "./support/tmux.ts";
import { runCli, startServer, type ChildServer } from "./support/server.ts";
import { runCliInProcess } from "./support/cli.ts";
import { apiClient } from "./support/api.ts";
import { startProviderBPeer, type ProviderBPeer } from "../src/sandbox/provider_b/index.ts";
import { randomSeedBase64 } from "../src/adapters/providers/provider_b/crypto.ts";
import { startScreeningCSandbox, type ScreeningCSandbox } from "../src/sandbox/screening_c/index.ts";
import { VIKTOR } from "./support/persons.ts";
import { postHeldTransfer, setUpHeldScene, VIKTOR_ADDR } from "./support/console-scene.ts";

// Servers, sandboxes and terminals on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(120_000);

const dir = tempDir();
const db = join(dir, "console.db");
const { tmux, screen, press, pressTogether, until, capture, openConsole: openIn } = terminal("caravan-console-e2e");
let S: ChildServer;
let peer: ProviderBPeer;
let vc: ScreeningCSandbox;
const { newKey, call } = apiClient(db, () => S.url);
let owner: string;
let ownerEmail: string;
let analyst: string;
let customerId: string;
let ruleId: string;
let heldId: string;
const seed = randomSeedBase64();

const openConsole = (session: string, key: string, env = "", size: [number, number] = [80, 24]) => openIn(session, S.url, key, { env, size });

/** A transfer to the watch-listed beneficiary: the rule holds it at precheck and opens a case. */
async function createHeld(amount: string): Promise<string> {
  const id = await postHeldTransfer(call, owner, customerId, amount);
  for (let i = 0; i < 300 && (await transferState(id)) !== "held"; i++) await Bun.sleep(20);
  expect(await transferState(id)).toBe("held");
  return id;
}

beforeAll(async () => {
  // Not skipped when missing: the console's proof needs a real terminal.
  if (!hasTmux) throw new Error("tmux is required for the console's end-to-end test (Debian package tmux; .ci/run installs it)");
  vc = await startScreeningCSandbox();
  peer = await startProviderBPeer({
    vasps: [{ entityId: "VASP-BENE", name: "Bene Exchange", country: "DE", customers: { viktor: [VIKTOR] }, wallets: [{ address: VIKTOR_ADDR, customer: "viktor" }] }],
  });
  expect((await runCliInProcess(["migrate"], { CARAVAN_DB: db })).code).toBe(0);
  const k = await newKey("--env", "test", "--role", "owner");
  owner = k.key;
  ownerEmail = k.memberEmail;
  analyst = (await newKey("--env", "test", "--role", "analyst")).key;
  const live = (await newKey("--env", "live", "--role", "owner")).key;
  // A filing jurisdiction: a case resolved rejected drafts its suspicion report for it.
  expect((await runCliInProcess(["companies", "profile", "--slug", "default", "--country", "NL"], { CARAVAN_DB: db })).code).toBe(0);
  S = await startServer({
    CARAVAN_DB: db,
    CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1",
    PROVIDER_B_ALLOWED_IPS: "127.0.0.1",
    CARAVAN_SCREENING_C_URLS: `eu=${vc.url},us=${vc.url},apac=${vc.url}`,
  });
  ({ customerId, ruleId } = await setUpHeldScene({ call, owner, live, serverUrl: S.url, peer, seed, entityId: "CARAVAN-1" }));
});

afterAll(async () => {
  if (!hasTmux) return;
  try {
    tmux("kill-server");
  } catch {
    /* no session left */
  }
  await S?.stop();
  await Promise.all([peer?.stop(), vc?.stop()]);
});

async function transferState(id: string): Promise<string> {
  const r = await call(`/api/v2/transfers/${id}`, { key: owner });
  expect(r.status).toBe(200);
  return r.body.data.state;
}

describe("caravan console in a terminal", () => {
  test("the status line names the server, environment, member and role; the stream is live", async () => {
    openConsole("officer", owner);
    const s = await until("officer", (s) => s.includes(ownerEmail.slice(0, 20)) && s.includes("live"));
    expect(s).toContain(S.url.replace("http://", ""));
    expect(s).toContain("test");
    expect(s).toContain("owner");
    expect(s).toContain("1 Overview");
    expect(s).not.toMatch(/at .*\.(ts|js):\d+/); // no stack trace
  });

  // The issue asks for "within 2 s"; on a shared, noisy machine a timing bound in a test is a flake, so the bound here
  // is a hang guard and the latency is printed (and recorded in docs/console.md).
  test("a transfer held by a rule appears on Held transfers live (pushed by the event stream)", async () => {
    await press("officer", "2");
    await until("officer", (s) => s.includes("no held transfers"));
    heldId = await postHeldTransfer(call, owner, customerId, "1");
    for (let i = 0; i < 300 && (await transferState(heldId)) !== "held"; i++) await Bun.sleep(20);
    expect(await transferState(heldId)).toBe("held");
    const heldAt = Date.now();
    const s = await until("officer", (s) => s.includes(heldId.slice(-8)), 10_000);
    console.log(`console: held transfer on screen ${Date.now() - heldAt} ms after the API showed it held`);
    expect(s).toMatch(/1 ETH held\s+Viktor Krasnov/); // at 80 columns: amount, state and the counterparty's name
    capture("held-80", s);
  });

  test("the detail shows the checks, the rule that matched and the linked case", async () => {
    await press("officer", "Enter");
    const s = await until("officer", (s) => s.includes("rule matched") && s.includes("CASE-TEST-"));
    capture("detail-80", s);
    expect(s).toContain(heldId);
    expect(s).toContain("screening_c precheck");
    expect(s).toContain("Watch-list name hit");
  });

  test("an analyst's console shows the case title as *** and refuses to resolve", async () => {
    openConsole("analyst", analyst);
    await until("analyst", (s) => s.includes("analyst") && s.includes("live"));
    await press("analyst", "3");
    const s = await until("analyst", (s) => s.includes("CASE-TEST-"));
    const row = s.split("\n").find((l) => l.includes("CASE-TEST-"))!;
    expect(row).toContain("***");
    capture("analyst-cases", s);
    expect(s).not.toContain("Watch-list");
    await press("analyst", "o");
    await until("analyst", (s) => s.includes("not allowed") && s.includes("cases:resolve"));
    // The officer's own list shows the title in clear.
    await press("officer", "c");
    await until("officer", (s) => s.includes("Title") && s.includes("Watch-list name hit") && s.includes("CASE-TEST-"));
  });

  test("resolving the case approved by keystrokes shows meta.transferAction, then transfer_updated, and the transfer leaves held", async () => {
    await press("officer", "o");
    capture("resolve-pick", await until("officer", (s) => s.includes(`1. approve: resumes transfer ${heldId}`)));
    await press("officer", "1"); // approved
    await until("officer", (s) => s.includes("Resolution note"));
    for (const ch of "cleared") await press("officer", ch);
    await press("officer", "Enter");
    await until("officer", (s) => s.includes("Confirm? y / n"));
    await press("officer", "y");
    const s = await until("officer", (s) => s.includes(`transfer ${heldId} queued`));
    expect(s).toContain("resolved approved");
    // A closed case leads with its outcome: the resolution, then the history with the transfer's entry.
    capture("case-resolved", await until("officer", (s) => /the transfer moved: /.test(s)));
    expect(await transferState(heldId)).not.toBe("held");
    await press("officer", "Escape");
    await until("officer", (s) => !s.includes("Resolved    approved")); // the case list again
    await press("officer", "2");
    // The screen comes back as it was left: the detail of the transfer, which has left the held list.
    await until("officer", (s) => s.includes(`${heldId} is not in this list`));
    await press("officer", "Escape");
    await until("officer", (s) => s.includes("no held transfers"));
  });

  test("a resize to 200×60 is followed: the transfer list and its detail side by side", async () => {
    tmux("resize-window", "-t", "officer", "-x", "200", "-y", "60");
    // Keys sent while the terminal is being resized can be lost: wait for the wide layout (the address column) first.
    await until("officer", (s) => s.includes("counterparty address"));
    await press("officer", "f", "f"); // all states
    await until("officer", (s) => s.includes("Transfers · all") && s.includes(heldId.slice(-8)));
    await press("officer", "Enter");
    const s = await until("officer", (s) => s.includes("Amount      1 ETH"));
    const row = s.split("\n").find((l) => l.includes(heldId.slice(-8)) && l.includes(heldId))!;
    expect(row).toBeTruthy(); // the list row and the detail's first line share a line
    expect(s.split("\n").length).toBeGreaterThanOrEqual(60);
  });
});

describe("a busy queue at 160×45: the selection follows the transfer, the action lands on the one shown", () => {
  const ids: Record<string, string> = {};
  /** The list beside the detail shows IDs shortened to their last 8 characters. */
  const sfx = (k: string) => ids[k].slice(-8);
  const listed = (s: string) => s.split("\n").map((l) => /trf_…([0-9a-z]{8})/.exec(l)?.[1]).filter(Boolean);

  test("two held transfers; the officer selects the older one and opens its detail with the evidence", async () => {
    ids.a = await createHeld("1.25");
    ids.b = await createHeld("1.75");
    openConsole("busy", owner, "", [160, 45]);
    await until("busy", (s) => s.includes("live"));
    await press("busy", "2");
    await until("busy", (s) => s.includes(ids.a) && s.includes(ids.b));
    // Newest first: b, a → j selects a. Typed ahead: j and Enter reach the console in one write, and Enter opens the
    // row j moved to.
    await pressTogether("busy", "j", "Enter");
    const s = await until("busy", (s) => s.includes(`${ids.a} · outgoing · held`) && s.includes("▶ fired") && s.includes("CASE-TEST-"));
    // Parties by name, the matched watch-list entry and its list, the branch that fired.
    expect(s).toContain("Beneficiary Viktor Krasnov");
    expect(s).toMatch(/beneficiary "Viktor Krasnov": matched Viktor Krasnov \(SBX1VK0001\) on\s+sandbox-sanctions-list/);
    expect(s).toMatch(/▶ fired if the number of watch-list hits from screening_c is more than 0: hold for\s+review/);
    // Rows tell two held transfers apart: the time and the amount.
    const rowA = s.split("\n").find((l) => l.includes(sfx("a")) && l.includes("1.25 ETH"));
    expect(rowA).toMatch(/\d\d:\d\d:\d\d/);
    capture("busy-detail", s);
    await press("busy", "J");
    capture("busy-raw", await until("busy", (s) => s.includes("compliance.checks as the API answered")));
    await press("busy", "J");
    await until("busy", (s) => s.includes("▶ fired"));
  });

  test("transfers created over the API while it is selected do not move the selection; x rejects it through its case", async () => {
    ids.c = await createHeld("2.5");
    ids.d = await createHeld("3.5");
    const s = await until("busy", (s) => s.includes(sfx("c")) && s.includes(sfx("d")));
    // The newest rows are on top now; the detail still shows a.
    expect(s).toContain(`${ids.a} · outgoing · held`);
    expect(listed(s).slice(0, 4)).toEqual([sfx("d"), sfx("c"), sfx("b"), sfx("a")]);
    capture("busy-inserted", s);
    await press("busy", "x");
    await until("busy", (s) => s.includes("Resolution note for CASE-TEST-"));
    for (const ch of "on the list") await press("busy", ch);
    await press("busy", "Enter");
    const c = await until("busy", (s) => s.includes("Confirm? y / n"));
    const flat = c.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
    expect(flat).toMatch(new RegExp(`Reject transfer ${ids.a} \\(1\\.25 ETH to Viktor Krasnov( at [^)]+)?\\): resolves CASE-TEST-`));
    expect(flat).toContain("as rejected, which rejects the transfer and drafts a suspicion report.");
    capture("busy-confirm", c);
    // One more arrives while the confirmation is open: the action still names a.
    ids.e = await createHeld("4.5");
    await press("busy", "y");
    // The flash says "resolved rejected", then (as soon as the case's history has it) how it ended: the transfer
    // rejected and the report drafted.
    const ended = await until("busy", (s) => /suspicion report rpt_[0-9a-z]+ drafted/.test(s));
    expect(ended).toContain(`✓ ${ids.a} rejected; suspicion report rpt_`);
    // Over the API: exactly a was rejected, through its case; the others are still held.
    for (let i = 0; i < 300 && (await transferState(ids.a)) === "held"; i++) await Bun.sleep(20);
    expect(await transferState(ids.a)).toBe("rejected");
    for (const k of ["b", "c", "d", "e"]) expect(await transferState(ids[k])).toBe("held");
    const cases = await call(`/api/v2/cases?hasTransfer=true&limit=200`, { key: owner });
    const closed = cases.body.data.filter((c: { status: string }) => c.status === "closed");
    const mine = cases.body.data.find((c: { transferIds: string[] }) => c.transferIds.includes(ids.a));
    expect({ status: mine.status, resolution: mine.resolution }).toEqual({ status: "closed", resolution: "rejected" });
    expect(closed.filter((c: { transferIds: string[] }) => ["b", "c", "d", "e"].some((k) => c.transferIds.includes(ids[k])))).toEqual([]);
    // The case's rejection drafted the suspicion report for a.
    let report: { transferId: string } | undefined;
    for (let i = 0; i < 100 && !report; i++) {
      const reports = await call("/api/v2/reports?limit=200", { key: owner });
      report = reports.body.data.find((r: { transferId: string }) => r.transferId === ids.a);
      if (!report) await Bun.sleep(50);
    }
    expect(report?.transferId).toBe(ids.a);
  });

  test("/ filters as you type; :sort amount sorts the queue; y yanks the selected ID; the sort is kept across tabs", async () => {
    await press("busy", "Escape");
    // An Escape followed closely by another key can be read as one (Alt-key): wait for the detail to close.
    await until("busy", (s) => !s.includes("is not in this list"));
    await press("busy", "/");
    for (const ch of "3.5") await press("busy", ch);
    const f = await until("busy", (s) => s.includes("/3.5█") && s.includes(ids.d) && !s.includes(ids.c));
    capture("busy-filter", f);
    await press("busy", "Escape");
    await until("busy", (s) => s.includes(ids.c) && s.includes(ids.e));
    await press("busy", ":");
    for (const ch of "sort amount") await press("busy", ch);
    await press("busy", "Enter");
    const sorted = await until("busy", (s) => s.includes("amount▲"));
    const order = sorted.split("\n").filter((l) => /trf_/.test(l)).map((l) => /trf_[0-9a-z]+/.exec(l)![0]);
    expect(order.indexOf(ids.b)).toBeLessThan(order.indexOf(ids.c));
    expect(order.indexOf(ids.c)).toBeLessThan(order.indexOf(ids.e));
    capture("busy-sorted", sorted);
    await press("busy", "g", "y");
    await until("busy", (s) => s.includes(`✓ copied ${order[0]}`));
    await press("busy", "?");
    capture("busy-help", await until("busy", (s) => s.includes("Keys everywhere")));
    await press("busy", "Escape");
    await until("busy", (s) => !s.includes("Keys everywhere"));
    await press("busy", ":");
    await press("busy", "c");
    capture("busy-command", await until("busy", (s) => s.includes(":c█")));
    await press("busy", "Escape");
    await until("busy", (s) => !s.includes(":c█"));
    await press("busy", "3");
    await until("busy", (s) => s.includes("Cases ·"));
    await press("busy", "2");
    await until("busy", (s) => s.includes("amount▲"));
  });

  test("a paste is one input: pasted on the list it acts on nothing; pasted into the filter it filters at once", async () => {
    // The console turns bracketed paste on, so tmux marks what it pastes (paste-buffer -p). Unmarked, "jx" would be
    // two keys: j moves the selection, x opens the reject prompt.
    const paste = (text: string) => {
      tmux("set-buffer", "-b", "e2e", text);
      tmux("paste-buffer", "-p", "-d", "-b", "e2e", "-t", "busy");
    };
    /** The IDs of the marked (selected) rows: a row's age column moves on by itself. */
    const marked = (s: string) => s.split("\n").filter((l) => l.startsWith("›")).map((l) => /trf_[0-9a-z]+/.exec(l)?.[0]);
    const before = marked(await until("busy", (s) => s.includes("amount▲") && marked(s).length === 1));
    paste("jx");
    await press("busy", "/");
    const s = await until("busy", (s) => s.includes("/█"));
    expect(s).not.toContain("reject transfer");
    expect(marked(s)).toEqual(before);
    paste("3.5");
    await until("busy", (s) => s.includes("/3.5█") && s.includes(ids.d) && !s.includes(ids.c));
    await press("busy", "Escape");
    await until("busy", (s) => s.includes(ids.c));
  });
});
