// provider_e reads its signed directory only through the connection's actor: fetched and verified once, then kept for
// up to a minute. A search, the submission that follows and the callbacks of that transfer (the counterparty's signed
// decision) use the kept copy; the next search within the minute fetches nothing; an incoming request from a VASP
// already kept fetches nothing, while one from a VASP added since makes exactly one fresh fetch.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { person } from "../support/persons.ts";

setDefaultTimeout(60_000);

const OWNED = "0x" + "5d".repeat(20);
const DIRECTORY = "/bridge/vasp";
const dir = tempDir();
let P: Suite;

beforeAll(async () => {
  P = await startProviderESuite(dir, { allow: "*", bridge: { vasps: [{ code: "OWNERVASP", name: "Owner Exchange", addresses: [OWNED] }, { code: "OTHERVASP", name: "Other Exchange" }] } });
});
afterAll(async () => {
  await P?.stop();
});

const directoryReads = (from: number) => P.bridge.requests.slice(from).filter((r) => r.path === DIRECTORY).length;

/** A transfer sent and answered (the counterparty's signed decision came back through the permission callback). */
async function sendOne(): Promise<number> {
  const from = P.bridge.requests.length;
  const id = await P.create(OWNED);
  const t = await P.until(id, (x) => (x.state === "awaiting_counterparty" && x.status.theirs === "accepted") || x.state === "failed");
  expect(t.state).toBe("awaiting_counterparty");
  expect(t.status.theirs).toBe("accepted");
  expect(t.beneficiary.vaspId).toBe("OWNERVASP");
  expect(P.bridge.requests.slice(from).some((r) => r.path === "/bridge/transaction/permission-request")).toBe(true);
  return directoryReads(from);
}

const incomingFrom = (from: string) => ({ from, originatorPersons: [person("Roe", "Richard", "DE")], beneficiaryPersons: [person("Doe", "Jane")], originatorAddress: "0x" + "11".repeat(20), beneficiaryAddress: ORIGIN_ADDR });

test("a search, its submission and the counterparty's signed decision read the signed directory once", async () => {
  expect(await sendOne()).toBe(1);
});

/**
 * Makes the connection keep a copy fetched just now (an incoming request from a VASP added to the directory since:
 * looked up once in a fresh copy), so what follows runs well within its minute.
 */
async function freshCopy(code: string): Promise<void> {
  P.bridge.addVasp({ code, name: `${code} Exchange` });
  const from = P.bridge.requests.length;
  expect((await P.bridge.sendPermissionRequest(incomingFrom(code))).status).toBe(200);
  expect(directoryReads(from)).toBe(1);
}

test("the next search within the minute and its callbacks fetch no directory: they use the kept, verified copy", async () => {
  await freshCopy("FRESHVASP1");
  const asked = P.bridge.stats.asked;
  expect(await sendOne()).toBe(0);
  // The search asked every candidate of the kept copy (the VASP added since among them), and the owner once more
  // before the submission.
  expect(P.bridge.stats.asked - asked).toBe(4);
});

test("an incoming request from a VASP in the kept copy fetches no directory", async () => {
  await freshCopy("FRESHVASP2");
  const from = P.bridge.requests.length;
  const r = await P.bridge.sendPermissionRequest(incomingFrom("OTHERVASP"));
  expect(r.status).toBe(200);
  expect(directoryReads(from)).toBe(0);
});

test("an incoming request from a VASP added since the copy was kept fetches it once, fresh, and is verified with it; the next one fetches nothing", async () => {
  await freshCopy("NEWVASP01");
  const again = P.bridge.requests.length;
  expect((await P.bridge.sendPermissionRequest(incomingFrom("NEWVASP01"))).status).toBe(200);
  expect(directoryReads(again)).toBe(0);
});

test("a kept copy is used only while the directory is dated within five minutes: an older one is fetched again before the search", async () => {
  // The bridge serves a directory signed 4 min 57 s ago: fresh when fetched, past five minutes a few seconds later.
  P.bridge.setDirectoryFault({ agedMs: 5 * 60_000 - 3_000 });
  try {
    await freshCopy("AGEDVASP1");
    await Bun.sleep(3_500);
    expect(await sendOne()).toBeGreaterThanOrEqual(1);
  } finally {
    P.bridge.setDirectoryFault(null);
  }
});
