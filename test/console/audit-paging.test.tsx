// The Audit screen reads past its first page: older entries come with the API's cursor (`m`, or moving past the
// last loaded entry), the title says how many are loaded and whether more exist; the checkpoint line stays.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, one, mount, frame, keys, until, KEY, ME_OWNER } from "./stub.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const ME_AUDITOR = {
  ...ME_OWNER,
  key: { ...ME_OWNER.key, scopes: [...ME_OWNER.key.scopes, "audit:read"] },
  permissions: [...ME_OWNER.permissions, "audit:view"],
};

const entry = (n: number) => ({ id: `aud_${n}`, action: `act.n${n}`, entityType: "Case", entityId: `cas_${n}`, actor: { type: "member", memberId: "mem_b", apiKeyId: null }, detail: {}, environment: "test", createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString() });

test("audit: m reads the next older page with the cursor; the title counts what is loaded and says when all is", async () => {
  const checkpoint = { origin: "o", treeSize: 3, rootHash: "8JgfwKYnkREbsCAQztqq/6quo9conBna/cTWA0aLA0Y=", timestamp: "2026-12-01T21:51:14.500Z", keyId: "ee6ab866e09a9df7" };
  stub = new Stub(ME_AUDITOR)
    .on("GET", "/api/v2/audit-log", (s) => (s.query.get("cursor") === "c1" ? list([entry(2), entry(1)], { cursor: null, hasMore: false, total: 4 }) : list([entry(4), entry(3)], { cursor: "c1", hasMore: true, total: 4 })))
    .on("GET", "/api/v2/audit-log/checkpoints/latest", one(checkpoint));
  const r = mount(stub, "audit");
  await frame(r, (f) => f.includes("act.n4") && f.includes("2 loaded of 4 · more older (m)") && f.includes("Checkpoint  3 entries"));
  expect(r.lastFrame()).not.toContain("act.n1");
  await keys(r, "m");
  await frame(r, (f) => f.includes("act.n1") && f.includes("act.n2") && f.includes("act.n4") && f.includes("4 loaded of 4 · all loaded"));
  expect(stub.requests("GET", "/api/v2/audit-log").filter((s) => s.query.get("cursor") === "c1").length).toBe(1);
  await keys(r, "m");
  await Bun.sleep(100);
  expect(stub.requests("GET", "/api/v2/audit-log").filter((s) => s.query.get("cursor")).length).toBe(1);
});

test("audit: moving past the last loaded entry loads older ones, for the :member filter in force", async () => {
  stub = new Stub(ME_AUDITOR).on("GET", "/api/v2/audit-log", (s) =>
    s.query.get("cursor") === "c1" ? list([entry(1)], { cursor: null, hasMore: false, total: 2 }) : list([entry(2)], { cursor: "c1", hasMore: true, total: 2 }),
  );
  const r = mount(stub, "audit");
  await frame(r, (f) => f.includes("act.n2") && f.includes("1 loaded of 2"));
  await keys(r, ":", ..."member mem_b", KEY.enter);
  await until(() => stub.requests("GET", "/api/v2/audit-log").some((s) => s.query.get("memberId") === "mem_b"));
  await frame(r, (f) => f.includes("by mem_b") && f.includes("1 loaded of 2"));
  await keys(r, KEY.down);
  await frame(r, (f) => f.includes("act.n1") && f.includes("2 loaded of 2 · all loaded"));
  const older = stub.requests("GET", "/api/v2/audit-log").find((s) => s.query.get("cursor") === "c1")!;
  expect(older.query.get("memberId")).toBe("mem_b");
});
