// The dead-letters screen (`:dead-letters`): the list (actor, attempts, last error, when), Enter for one, and `r`
// replaying it after a confirmation that names it, offered only to a signed-in member whose role may replay
// (dead-letters:replay); a compliance officer's session and an API key see the list but are never offered it.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup, render } from "ink-testing-library";
import { createElement } from "react";
import { App, streamConnector } from "../../src/console/app.tsx";
import { ApiClient } from "../../src/console/client.ts";
import { Stub, list, one, refuse, mount, frame, keys, until, KEY, ME_OWNER } from "./stub.ts";

setDefaultTimeout(30_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

const SESSION = `crv_sess_${"b".repeat(64)}`;
const OWNER = { ...ME_OWNER, member: { id: "mem_owner", email: "owner@example.com", role: "owner" }, permissions: [...ME_OWNER.permissions, "audit:view", "keys:manage", "members:manage", "dead-letters:replay"] };
const OFFICER = { ...ME_OWNER, permissions: [...ME_OWNER.permissions, "audit:view"] };
const ID = "dl_Q2FyYXZhbkRlYWRMZXR0ZXIx";
const letters = [
  { id: ID, actor: "customer:cus_01jd0000000000000000000001", attempts: 5, lastError: "Error: the sanctions list could not be read", createdAt: "2026-12-01T10:00:00.000Z", diedAt: "2026-12-01T10:00:05.123Z" },
  { id: "dl_Q2FyYXZhbkRlYWRMZXR0ZXIy", actor: "transfer:trf_01jd0000000000000000000002", attempts: 5, lastError: "Error: cannot digest it", createdAt: "2026-12-01T09:00:00.000Z", diedAt: "2026-12-01T09:00:01.000Z" },
];

function mountSession(me: unknown) {
  stub = new Stub(me).on("GET", "/api/v2/dead-letters", list(letters));
  const client = new ApiClient({ url: stub.url, session: SESSION });
  return render(createElement(App, { client, connect: streamConnector(stub.url, SESSION), initial: "overview" }));
}

const open = async (r: ReturnType<typeof render>) => {
  await frame(r, (f) => f.includes("Overview"));
  await keys(r, ":", "dead-letters", KEY.enter);
  return frame(r, (f) => f.includes("Dead letters · 2") && f.includes("cannot digest it"));
};

test("an owner's session: :dead-letters lists them; Enter shows one; r asks naming it, y replays it through the API", async () => {
  const r = mountSession(OWNER);
  stub.on("POST", `/api/v2/dead-letters/${ID}/replay`, one({ id: ID, actor: letters[0]!.actor, replayedAt: "2026-12-01T11:00:00.000Z" }));
  const f = await open(r);
  expect(f).toMatch(/customer:cus_01jd0000000000000000000001\s+5\s+12-01 10:00 Error: the sanctions list could not be/);
  expect(f).toContain("r replay");
  expect(stub.requests("GET", "/api/v2/dead-letters")[0]!.headers.get("authorization")).toBe(`Bearer ${SESSION}`);
  await keys(r, KEY.enter);
  const detail = await frame(r, (x) => x.includes("Last error  Error: the sanctions list could not be read"));
  expect(detail).toContain(`${ID} · customer:cus_01jd0000000000000000000001`);
  expect(detail).toContain("Parked      2026-12-01T10:00:05.123Z");
  expect(detail).toContain("r puts it back in its actor's mailbox");
  await keys(r, "r");
  await frame(r, (x) => x.includes(`Replay ${ID} to customer:cus_01jd0000000000000000000001 (5 attempts`));
  expect(stub.requests("POST", /dead-letters/)).toHaveLength(0);
  await keys(r, "y");
  await frame(r, (x) => x.includes(`✓ replayed ${ID} (customer:cus_01jd0000000000000000000001)`));
  const posts = stub.requests("POST", `/api/v2/dead-letters/${ID}/replay`);
  expect(posts).toHaveLength(1);
  expect(posts[0]!.headers.get("authorization")).toBe(`Bearer ${SESSION}`);
});

test("the confirmation can be declined: n replays nothing; a refusal is shown in the API's words", async () => {
  const r = mountSession(OWNER);
  stub.on("POST", `/api/v2/dead-letters/*/replay`, refuse(404, "DEAD_LETTER_NOT_FOUND", "No dead letter with this ID in the company's environment"));
  await open(r);
  await keys(r, "r");
  await frame(r, (x) => x.includes(`Replay ${ID}`));
  await keys(r, "n");
  await frame(r, (x) => !x.includes(`Replay ${ID}`) && x.includes("Dead letters · 2"));
  expect(stub.requests("POST", /dead-letters/)).toHaveLength(0);
  await keys(r, KEY.down, "r");
  await frame(r, (x) => x.includes("Replay dl_Q2FyYXZhbkRlYWRMZXR0ZXIy to transfer:trf_01jd0000000000000000000002"));
  await keys(r, "y");
  await frame(r, (x) => x.includes("✕ DEAD_LETTER_NOT_FOUND: No dead letter with this ID"));
  expect(stub.requests("POST", "/api/v2/dead-letters/dl_Q2FyYXZhbkRlYWRMZXR0ZXIy/replay")).toHaveLength(1);
});

test("a compliance officer's session sees them but is not offered r; the detail says replaying is an owner's", async () => {
  const r = mountSession(OFFICER);
  const f = await open(r);
  expect(f).not.toContain("r replay");
  await keys(r, "r");
  await keys(r, KEY.enter);
  const detail = await frame(r, (x) => x.includes("Last error  Error: the sanctions list"));
  expect(detail).toContain("Replaying is an owner's");
  await keys(r, "r");
  await Bun.sleep(200);
  expect(r.lastFrame()).not.toContain(`Replay ${ID}`);
  expect(stub.requests("POST", /dead-letters/)).toHaveLength(0);
});

test("with an API key (even an owner's permissions) the list shows but r is never offered", async () => {
  stub = new Stub(OWNER).on("GET", "/api/v2/dead-letters", list(letters));
  const r = mount(stub, "dead-letters");
  const f = await frame(r, (x) => x.includes("Dead letters · 2") && x.includes("cannot digest it"));
  expect(f).not.toContain("r replay");
  await keys(r, "r");
  await Bun.sleep(200);
  expect(r.lastFrame()).not.toContain(`Replay ${ID}`);
  await until(() => stub.requests("GET", "/api/v2/dead-letters").length > 0);
  expect(stub.requests("POST", /dead-letters/)).toHaveLength(0);
});
