// The console shows provider_d (TRP) transfers like any other: the console runs against the real server (no stub),
// where the sandbox TRP peer approved one outgoing transfer to its Travel Address and rejected another. The transfers
// list (filter "all") names both with their state and the peer as counterparty; the detail says the Travel Rule
// status in words (ours / theirs), the rejection's reason, and the counterparty VASP.
import { afterAll, afterEach, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { createElement } from "react";
import { cleanup, render } from "ink-testing-library";
import { App, streamConnector } from "../../src/console/app.tsx";
import { ApiClient } from "../../src/console/client.ts";
import { frame, keys, KEY } from "./stub.ts";
import { tempDir } from "../support/tmp.ts";
import { startProviderDSuite, type DSuite } from "../support/provider_d.ts";
import { shortId } from "../../src/console/screens/Transfers.tsx";

setDefaultTimeout(60_000);

const dir = tempDir();
let d: DSuite;
let approved: string;
let rejected: string;
beforeAll(async () => {
  d = await startProviderDSuite(dir);
  d.peer.setBehaviour("approve");
  approved = await d.create(d.peer.travelAddress("acct-1"));
  await d.until(approved, (x) => x.state === "awaiting_counterparty");
  d.peer.setBehaviour("reject");
  rejected = await d.create(d.peer.travelAddress("acct-2"));
  await d.until(rejected, (x) => x.state === "rejected");
});
afterEach(() => cleanup());
afterAll(async () => {
  await d?.stop();
});

const flat = (s: string) => s.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
const rowOf = (f: string, id: string) => f.split("\n").find((l) => l.includes(shortId(id).slice(-8))) ?? "";

/** Presses f until the list's title names the filter (a key Ink read before the screen listened is pressed again). */
async function stepFilter(r: { lastFrame(): string | undefined; stdin: { write(s: string): void } }, name: string) {
  for (let i = 0; i < 5; i++) {
    await keys(r, "f");
    const got = await frame(r, (f) => f.includes(`Transfers · ${name}`), 2_000).catch(() => null);
    if (got) return;
  }
  throw new Error(`the filter never became ${name}: ${r.lastFrame()}`);
}

test("a provider_d transfer in the transfers list and its detail: state, the TRP peer as counterparty, the Travel Rule status in words", async () => {
  const client = new ApiClient({ url: d.S.url, key: d.owner });
  const r = render(createElement(App, { client, connect: streamConnector(d.S.url, d.owner), initial: "transfers" }));
  await frame(r, (f) => f.includes("Transfers · held") && f.includes("no held transfers") && f.includes("● live"), 15_000);
  // f steps the state filter: held → failed → all (each step seen before the next key).
  await stepFilter(r, "failed");
  await stepFilter(r, "all");
  const f = await frame(r, (f) => f.includes("Transfers · all") && f.includes(shortId(approved).slice(-8)) && f.includes(shortId(rejected).slice(-8)), 15_000);
  // At the test renderer's 100 columns the state column is cut ("awaiting…"); the detail names it whole.
  expect(rowOf(f, approved)).toMatch(/out\s+1\.5 ETH\s+awaiting\S*\s+approved\s+Sandbox TRP Peer/);
  expect(rowOf(f, rejected)).toMatch(/1\.5 ETH\s+rejected/);
  expect(rowOf(f, rejected)).toContain("Sandbox TRP Peer");
  // The newest (the rejected one) is selected first; its detail, then the approved one's.
  await keys(r, KEY.enter);
  const rej = flat(await frame(r, (f) => f.includes(`${rejected} · outgoing · rejected`), 15_000));
  expect(rej).toContain("Travel Rule our answer pending · the counterparty's rejected");
  expect(rej).toContain("Rejected for COUNTERPARTY_REJECTED");
  expect(rej).toContain("Sandbox TRP Peer");
  await keys(r, KEY.esc);
  await frame(r, (f) => f.includes("Transfers · all"), 15_000);
  await keys(r, "j");
  await keys(r, KEY.enter);
  const ok = flat(await frame(r, (f) => f.includes(`${approved} · outgoing · awaiting_counterparty`), 15_000));
  expect(ok).toContain("Travel Rule our answer accepted · the counterparty's accepted");
  expect(ok).toContain("Sandbox TRP Peer");
  expect(ok).toContain("t report tx hash");
});
