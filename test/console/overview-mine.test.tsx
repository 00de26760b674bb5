// Enter on "Open cases assigned to me" on the Overview opens the Cases screen's mine view, not a view or case kept
// from an earlier visit.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, mount, frame, keys, KEY } from "./stub.ts";
import { caseItem, caseDetail } from "./fixtures.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

test("Enter on 'assigned to me' opens the mine view, closing a case left open in the open view", async () => {
  stub = new Stub()
    .on("GET", "/api/v2/cases", (q) => (q.query.get("assigneeId") === "me" ? list([caseItem("cas_9", 9)]) : list([caseItem("cas_1", 1)])))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 1)))
    .on("GET", "/api/v2/cases/cas_9", one(caseDetail("cas_9", 9)));
  const r = mount(stub, "cases");
  await frame(r, (f) => f.includes("Cases · open") && f.includes("CASE-TEST-2026-000001") && f.includes("● live"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Title "));
  await keys(r, "1");
  await frame(r, (f) => f.includes("Overview ·"));
  await keys(r, "j", "j", KEY.enter);
  const f = await frame(r, (f) => f.includes("Cases · mine") && f.includes("CASE-TEST-2026-000009"));
  expect(f).not.toContain("Title ");
  // Digits and Tab switch screens from the Cases screen, with a case open too.
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Title ") && f.includes("CASE-TEST-2026-000009"));
  await keys(r, KEY.tab);
  await frame(r, (f) => f.includes("Webhook subscriptions"));
});
