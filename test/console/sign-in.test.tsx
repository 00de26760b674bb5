// Signing in to the console against a real server (loopback, real SQLite file): the first sign-in with the setup code
// the CLI printed (passphrase, the TOTP secret shown, a first code), the console then as the member's session with the
// officer's screens (keys and members: a key shown once, an invitation's setup code), a refused sign-in said in words
// with nothing kept of what was typed, and sign-out ending the session on the server.
import { test, expect, beforeAll, afterAll, afterEach, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { createElement } from "react";
import { cleanup, render } from "ink-testing-library";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient } from "../support/api.ts";
import { SignedInConsole } from "../../src/console/app.tsx";
import { base32Decode, totp } from "../../src/domain/members/totp.ts";
import { frame, keys, KEY } from "./stub.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "console-sign-in.db");
const { cli, newMember, call } = apiClient(db, () => S.url);
let S: ChildServer;

beforeAll(async () => {
  S = await startServer({ CARAVAN_DB: db });
});
afterAll(async () => {
  await S?.stop();
});
afterEach(() => cleanup());

const mountSignIn = () => render(createElement(SignedInConsole, { url: S.url, noColor: true, initial: "team" }));

test("first sign-in with the CLI's setup code: passphrase, the secret shown, a first code → the console as the owner; keys and members there; :signout ends the session", async () => {
  const owner = await newMember("owner");
  const setup = JSON.parse((await cli("members", "setup", "--email", owner.email, "--json")).split("\n").at(-1)!);
  const r = mountSignIn();
  await frame(r, (f) => f.includes("sign in at") && f.includes("Passphrase"));
  await keys(r, "\u0013"); // ^s: set up with a setup code
  await frame(r, (f) => f.includes("set up sign-in") && f.includes("Setup code"));
  await keys(r, owner.email, KEY.enter, setup.setupCode, KEY.enter, "a passphrase for the test", KEY.enter);
  const shown = await frame(r, (f) => f.includes("Secret"));
  // The passphrase never appears, only dots.
  expect(shown).not.toContain("a passphrase for the test");
  const secret = /Secret\s+([A-Z2-7]+)/.exec(shown)![1];
  await keys(r, totp(base32Decode(secret), Date.now()), KEY.enter, KEY.enter);
  const signedIn = await frame(r, (f) => f.includes(owner.email) && f.includes("API keys"), 10_000);
  expect(signedIn).toContain("owner");
  // A key created here is shown once; the list never shows it again.
  await keys(r, ":", "key test", KEY.enter);
  const made = await frame(r, (f) => /shown once; y copies it\):\s+crv_test_[0-9a-f]{64}/.test(f));
  const key = /crv_test_[0-9a-f]{64}/.exec(made)![0];
  expect((await call("/api/v2/me", { key })).status).toBe(200);
  // An invitation: the setup code shown once.
  await keys(r, "m");
  await frame(r, (f) => f.includes("Members ·"));
  await keys(r, ":", "invite newcomer@members.test analyst", KEY.enter);
  await frame(r, (f) => f.includes("Invited newcomer@members.test (analyst)") && /[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4}/.test(f));
  await frame(r, (f) => f.includes("newcomer@members.test") && f.includes("not set"));
  // Each is the owner's, through this session, in the audit log (read here with the owner's new key).
  const audit = (await call(`/api/v2/audit-log?memberId=${owner.id}`, { key })).body.data as { action: string; actor: { sessionId: string | null } }[];
  const created = audit.find((e) => e.action === "api_key.created")!;
  expect(created.actor.sessionId).toMatch(/^ses_/);
  expect(audit.find((e) => e.action === "member.created")!.actor.sessionId).toBe(created.actor.sessionId);
  // :signout ends the session on the server.
  await keys(r, ":", "signout", KEY.enter);
  const d = new Database(db, { readonly: true });
  try {
    for (let i = 0; i < 100; i++) {
      const row = d.query("SELECT ended_reason FROM member_sessions WHERE id = ?").get(created.actor.sessionId) as { ended_reason: string | null };
      if (row.ended_reason) break;
      await Bun.sleep(20);
    }
    expect((d.query("SELECT ended_reason FROM member_sessions WHERE id = ?").get(created.actor.sessionId) as { ended_reason: string }).ended_reason).toBe("signed_out");
  } finally {
    d.close();
  }
});

test("a refused sign-in: said in words, the passphrase and code cleared, the email kept", async () => {
  const r = mountSignIn();
  await frame(r, (f) => f.includes("Passphrase"));
  await keys(r, "nobody@members.test", KEY.enter, "wrong passphrase", KEY.enter, "123456", KEY.enter, KEY.enter);
  const f = await frame(r, (x) => x.includes("SIGN_IN_FAILED"));
  expect(f).toContain("The email, passphrase or code was not accepted");
  expect(f).toContain("nobody@members.test");
  expect(f).not.toContain("123456");
  expect(f).not.toContain("•");
});
