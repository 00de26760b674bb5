// A transfer's own history tells its story from the audit log: what was done, in time order, in words, by whom
// (the member's email when the session may list members, else the ID), with the case one key away (H).
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, mount, frame, keys, until, KEY, ME_OWNER } from "./stub.ts";
import { ApiClient } from "../../src/console/client.ts";
import { transferItem, transferDetail, caseItem, caseDetail } from "./fixtures.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const T1 = "trf_01aaaaaaaaaaaaaaaaaaaaaaaa";
const SESSION = `crv_sess_${"b".repeat(64)}`;
const flat = (s: string) => s.replace(/[│╭╮╰╯─]/g, " ").replace(/\s+/g, " ");
const ME = {
  ...ME_OWNER,
  key: { ...ME_OWNER.key, scopes: [...ME_OWNER.key.scopes, "audit:read", "console:session"] },
  permissions: [...ME_OWNER.permissions, "audit:view", "members:manage"],
};
const at = (m: number) => new Date(Date.UTC(2026, 11, 1, 10, m)).toISOString();
const aud = (id: string, action: string, entityType: string, entityId: string, memberId: string | null, m: number, detail: Record<string, unknown> = {}) => ({
  id, action, entityType, entityId, actor: { type: memberId ? "member" : "system", memberId, apiKeyId: memberId ? "key_1" : null }, detail, environment: "test", createdAt: at(m),
});

function stubWith(me: unknown) {
  return new Stub(me)
    .on("GET", "/api/v2/transfers", list([transferItem(T1, { state: "held" })]))
    .on("GET", `/api/v2/transfers/${T1}`, one(transferDetail(T1, { createdAt: at(0), messages: [] })))
    .on("GET", "/api/v2/cases", list([caseItem("cas_1", 1, { transferIds: [T1], status: "resolved" })]))
    .on("GET", "/api/v2/cases/cas_1", one(caseDetail("cas_1", 1, { transferIds: [T1], status: "resolved" })))
    .on("GET", "/api/v2/members", list([{ id: "mem_ruth", email: "ruth@example.com", role: "compliance_officer", status: "active", signInReady: true, openSessions: 1, createdAt: at(0) }]))
    .on("GET", "/api/v2/audit-log", (s) => {
      if (s.query.get("entityType") === "Transfer" && s.query.get("entityId") === T1)
        return list([
          aud("aud_4", "transfer.rejected", "Transfer", T1, "mem_ruth", 30, { reason: "COMPLIANCE_POLICY", caseId: "cas_1" }),
          aud("aud_3", "transfer.held", "Transfer", T1, null, 20, { stage: "precheck", rules: ["rul_1"] }),
          aud("aud_2", "transfer.retried", "Transfer", T1, "mem_zed", 10),
          aud("aud_1", "transfer.created", "Transfer", T1, null, 0, { state: "submitted" }),
        ]);
      if (s.query.get("entityType") === "Case" && s.query.get("entityId") === "cas_1")
        return list([aud("aud_5", "case.str_drafted", "Case", "cas_1", "mem_ruth", 31, { reportId: "rpt_1", transferId: T1 })]);
      return list([]);
    });
}

test("transfer history: the audit entries in time order and in words, naming who; H opens the case it names", async () => {
  stub = stubWith(ME);
  const r = mount(stub, "transfers", { client: new ApiClient({ url: stub.url, session: SESSION }) });
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Linked case"));
  await until(() => stub.requests("GET", "/api/v2/audit-log").some((s) => s.query.get("entityId") === T1 && s.query.get("entityType") === "Transfer"));
  await keys(r, " ", " ", " ");
  const d = flat(await frame(r, (f) => flat(f).includes("suspicion report rpt_1 drafted")));
  const order = ["Caravan: created (submitted)", "mem_zed: retried (queued again)", "Caravan: held at precheck", "ruth@example.com: rejected for the compliance policy", "ruth@example.com: suspicion report rpt_1 drafted (Reports shows it)"];
  for (const o of order) expect(d).toContain(o);
  const pos = order.map((o) => d.indexOf(o));
  expect([...pos].sort((a, b) => a - b)).toEqual(pos);
  expect(d).toContain("case cas_1 (H opens it)");
  await keys(r, "H");
  await frame(r, (f) => f.includes("CASE-TEST-2026-000001"));
});

test("transfer history: without members:manage who is shown by member ID", async () => {
  stub = stubWith({ ...ME, permissions: ME.permissions.filter((p) => p !== "members:manage") });
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Linked case"));
  await keys(r, " ", " ", " ");
  const d = flat(await frame(r, (f) => flat(f).includes("rejected for the compliance policy")));
  expect(d).toContain("mem_ruth: rejected for the compliance policy");
  expect(stub.requests("GET", "/api/v2/members").length).toBe(0);
});

test("transfer history: a key without audit:read asks nothing of the audit log and the history says why it cannot name who", async () => {
  stub = stubWith(ME_OWNER);
  const r = mount(stub, "transfers");
  await frame(r, (f) => f.includes("aaaaaaaa"));
  await keys(r, KEY.enter);
  await frame(r, (f) => f.includes("Linked case"));
  await keys(r, " ", " ", " ");
  const d = flat(await frame(r, (f) => flat(f).includes("(who did what:")));
  expect(d).toContain("audit:read");
  expect(stub.requests("GET", "/api/v2/audit-log").length).toBe(0);
});
