// A screening that could not run (vendor unreachable) never reads as a hit nor as screened: the list's verdict, the
// detail's banner, the parties, the check and the rule say "did not run"; approving it through its case asks whether
// to screen again (the default) or to go on unscreened, confirmed by typing the transfer's ID (sent as
// approveUnscreened). Keys in, frames and requests out.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, mount, frame, keys, KEY } from "./stub.ts";
import { transferItem, transferDetail, caseItem, caseDetail } from "./fixtures.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const T1 = "trf_01aaaaaaaaaaaaaaaaaaaaaaaa";
const flat = (s: string) => s.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
const at = new Date().toISOString();
const failed = { id: "chk_1", integration: "screening_c", displayName: "screening_c", type: "sanctions", stage: "precheck", status: "error", error: "NETWORK_ERROR", response: null, durationMs: 22, requestedAt: at };
const rule = { id: "rul_1", name: "Watch-list name hit", category: "sanctions", action: "require_review", severity: "high" };

function world() {
  return new Stub()
    .on("GET", "/api/v2/transfers", list([transferItem(T1, { compliance: { checks: [{ name: "screening_c", status: "failed", response: null }] } })]))
    .on("GET", `/api/v2/transfers/${T1}`, one(transferDetail(T1, { compliance: { status: "pending", total: 1, checks: [failed] } })))
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 9, { transferIds: [T1], type: "compliance_review", title: "Screening could not run: transfer held unscreened at precheck (rule Watch-list name hit)" })]))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 9, { transferIds: [T1], ruleId: "rul_1", rule })))
    .on("GET", "/api/v2/rules/rul_1", one({ ...rule, conditions: [{ type: "if", query: "content.data.total_hits", integrationId: "int_1", integrationName: "screening_c", operator: "gt", value: "0", action: "require_review" }] }))
    .on("POST", "/api/v2/cases/cas_1/resolve", one(caseDetail("cas_1", 9, { status: "closed", resolution: "approved" }), { transferAction: { transferId: T1, result: "queued" } }));
}

test("the list says the verdict was not run; the detail says SCREENING DID NOT RUN, the name could not be checked, the rule held it for lack of an answer", async () => {
  stub = world();
  const r = mount(stub, "transfers");
  const f = await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("a approve"));
  expect(f.split("\n").find((l) => l.includes("aaaaaaaa"))).toMatch(/held\s+not run/);
  await keys(r, KEY.enter);
  const d = flat(await frame(r, (f) => f.includes("SCREENING DID NOT RUN") && f.includes("held because screening did not run")));
  expect(d).toContain("SCREENING DID NOT RUN: screening_c: the vendor could not be reached (NETWORK_ERROR). Not a match and not cleared");
  expect(d).toContain("name could not be checked");
  expect(d).not.toContain("name not screened");
  expect(d).toContain("did not run: the vendor could not be reached (NETWORK_ERROR); nothing was matched or cleared");
  expect(d).not.toContain("no branch is met");
});

test("a on an unscreened hold: Enter screens again (no approveUnscreened); approving unscreened needs the transfer's ID typed", async () => {
  stub = world();
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa") && f.includes("a approve"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("SCREENING DID NOT RUN"));
  await keys(r, "a");
  await frame(r, (f) => f.includes("screen it again first"));
  await keys(r, KEY.enter); // screen again
  await frame(r, (f) => f.includes("Resolution note for"));
  await keys(r, KEY.enter);
  const c = flat(await frame(r, (f) => f.includes("Confirm? y / n")));
  expect(c).toContain("its screening did not run, so it is screened again first");
  await keys(r, "y");
  await frame(r, (f) => f.includes("resolved approved"));
  expect(stub.requests("POST", "/api/v2/cases/cas_1/resolve")[0].body).toEqual({ resolution: "approved" });

  // Unscreened, with a wrong ID typed: nothing is sent.
  await keys(r, "a");
  await frame(r, (f) => f.includes("approve it UNSCREENED"));
  await keys(r, "2");
  await frame(r, (f) => f.includes(`Type the transfer ID ${T1}`));
  await keys(r, "trf_wrong", KEY.enter, KEY.enter);
  await frame(r, (f) => f.includes("Confirm? y / n") && flat(f).includes("UNSCREENED"));
  await keys(r, "y");
  await frame(r, (f) => f.includes("the ID typed is not"));
  expect(stub.requests("POST", "/api/v2/cases/cas_1/resolve")).toHaveLength(1);

  // With the ID typed: sent with approveUnscreened.
  await keys(r, "a");
  await frame(r, (f) => f.includes("approve it UNSCREENED"));
  await keys(r, "2");
  await frame(r, (f) => f.includes(`Type the transfer ID ${T1}`));
  await keys(r, T1, KEY.enter, KEY.enter);
  const u = flat(await frame(r, (f) => f.includes("Confirm? y / n") && flat(f).includes("UNSCREENED")));
  expect(u).toContain(`Approve transfer ${T1}`);
  expect(u).toContain("WITHOUT being screened, recorded in the audit log under your name");
  await keys(r, "y");
  for (let i = 0; i < 100 && stub.requests("POST", "/api/v2/cases/cas_1/resolve").length < 2; i++) await Bun.sleep(20);
  expect(stub.requests("POST", "/api/v2/cases/cas_1/resolve")[1].body).toEqual({ resolution: "approved", approveUnscreened: true });
});
