// provider_e keeps its signed directory with the connection's actor: each beneficiary search reads and verifies it
// again (a VASP added since is a candidate), and the submission that follows uses that verified copy instead of
// reading and verifying it once more.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, type Suite } from "../support/provider_e.ts";

setDefaultTimeout(60_000);

const OWNED = "0x" + "5d".repeat(20);
const dir = tempDir();
let P: Suite;

beforeAll(async () => {
  P = await startProviderESuite(dir, { allow: "*", bridge: { vasps: [{ code: "OWNERVASP", name: "Owner Exchange", addresses: [OWNED] }, { code: "OTHERVASP", name: "Other Exchange" }] } });
});
afterAll(async () => {
  await P?.stop();
});

/** Directory reads from request `from` on, up to the permission request that submission sends. */
function readsUntilSubmission(from: number): number {
  const after = P.bridge.requests.slice(from);
  const sent = after.findIndex((r) => r.path === "/bridge/transaction/permission-request");
  expect(sent).toBeGreaterThanOrEqual(0);
  return after.slice(0, sent).filter((r) => r.path === "/bridge/vasp").length;
}

async function sendOne(): Promise<number> {
  const from = P.bridge.requests.length;
  const id = await P.create(OWNED);
  const t = await P.until(id, (x) => x.state === "awaiting_counterparty" || x.state === "failed");
  expect(t.state).toBe("awaiting_counterparty");
  expect(t.beneficiary.vaspId).toBe("OWNERVASP");
  return readsUntilSubmission(from);
}

test("a search and its submission read the signed directory once (the submission uses the connection's verified copy)", async () => {
  expect(await sendOne()).toBe(1);
});

test("the next search reads the directory again: a VASP added since is a candidate", async () => {
  P.bridge.addVasp({ code: "NEWVASP01" });
  const asked = P.bridge.stats.asked;
  expect(await sendOne()).toBe(1);
  // Three candidates in the search (the new one among them), and the owner asked once more before the submission.
  expect(P.bridge.stats.asked - asked).toBe(4);
});
