// Crash after reservation (Part 3, provider_e outgoing: "after reservation no other provider is tried; a failure leaves
// the attempt submission_unknown and the transfer failed, and retry does not resend"): the server is SIGKILLed while
// the permission request is at the bridge unanswered; after a restart the transfer is failed, submission_unknown,
// and neither the restart nor a retry sends the permission request again.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, type Suite } from "../support/provider_e.ts";

setDefaultTimeout(60_000);

const BENE_ADDR = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";
const PR = "/bridge/transaction/permission-request";
const dir = tempDir();
let s: Suite;

beforeAll(async () => {
  s = await startProviderESuite(dir, { allow: "BENEFVASP", bridge: { vasps: [{ code: "BENEFVASP", name: "Bene Exchange", addresses: [BENE_ADDR] }] } });
});

afterAll(async () => {
  await s?.stop();
});

test("SIGKILL while the reserved permission request is in flight: after restart failed with submission_unknown, sent once, retry refused", async () => {
  s.bridge.setRouteFault(PR, { hang: true });
  const id = await s.create(BENE_ADDR);
  // The bridge has the signed permission request and does not answer: the attempt is reserved ("submitting").
  for (let i = 0; i < 300 && !s.bridge.requests.some((r) => r.path === PR); i++) await Bun.sleep(50);
  expect(s.bridge.requests.filter((r) => r.path === PR)).toHaveLength(1);
  await s.restart("SIGKILL");
  s.bridge.setRouteFault(PR, null);
  const t = await s.until(id, (x) => x.state === "failed", 300);
  expect(t.cascade.attempts.at(-1)).toMatchObject({ provider: "provider_e", status: "submission_unknown" });
  expect(t.cascade.attempts.filter((a: { provider: string }) => a.provider === "provider_e")).toHaveLength(1);
  const r = await s.call(`/api/v2/transfers/${id}`, { method: "PATCH", key: s.owner, json: { action: "retry", reason: "after the crash" } });
  expect(r.status).toBe(400);
  expect(r.body.code).toBe("INVALID_REQUEST");
  // A later transfer goes through (the server works), and the crashed one was never sent again.
  const next = await s.create(BENE_ADDR);
  await s.until(next, (x) => x.state === "awaiting_counterparty");
  expect(s.bridge.requests.filter((q) => q.path === PR)).toHaveLength(2);
  expect((await s.until(id, () => true)).state).toBe("failed");
});
