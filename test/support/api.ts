// An HTTP client for end-to-end tests: CLI keys on the server's database (the CLI's commands run in this process,
// ./cli.ts), JSON calls, envelope checks.
import { expect } from "bun:test";
import { runCliInProcess, withMember } from "./cli.ts";
import { base32Decode, totp } from "../../src/domain/members/totp.ts";

export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface CallInit {
  method?: string;
  key?: string;
  /** A member's console session token, sent as `Authorization: Bearer`. */
  session?: string;
  /** A JSON body (either name). */
  json?: unknown;
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
  host?: string;
}

/** `url()` is read at call time, so a client can be made before its server starts. */
export function apiClient(db: string, url: () => string) {
  async function cli(...args: string[]): Promise<string> {
    const r = await runCliInProcess(args, { CARAVAN_DB: db });
    if (r.code !== 0) throw new Error(`cli ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout.trim();
  }

  /** `members create` with a fresh email for the role (a member is made on purpose, never by `keys create`). */
  async function newMember(role: string, email = `${role.replace(/_/g, "-")}-${crypto.randomUUID().slice(0, 8)}@members.test`): Promise<{ id: string; email: string; role: string }> {
    const out = await cli("members", "create", "--email", email, "--role", role, "--json");
    return JSON.parse(out.split("\n").at(-1)!);
  }

  /**
   * `keys create … --json`: the last line's JSON (key, id, memberId, memberEmail, ...). Given `--role` without
   * `--member`, a member of that role is made first (as an operator would, with `members create`).
   */
  async function newKey(...args: string[]): Promise<{ key: string; id: string; memberId: string; memberEmail: string; scopes: string[] }> {
    const out = await cli("keys", "create", ...(await withMember(args, { CARAVAN_DB: db })), "--json");
    return JSON.parse(out.split("\n").at(-1)!);
  }

  /**
   * A member's console session the way an officer gets one: `members setup` prints a setup code on the host, the
   * member sets a passphrase (getting the TOTP secret) and confirms with a first code. `login` signs in again later
   * (another environment): its code is the next time step's, so it is not the one the setup spent.
   */
  async function newSession(
    member: { email: string } | string,
    environment: "test" | "live" = "test",
    opts: { host?: string; company?: string; headers?: Record<string, string> } = {},
  ): Promise<{ token: string; sessionId: string; memberId: string; email: string; passphrase: string; secret: string; login(env: "test" | "live"): Promise<string>; nextCode(): string }> {
    const email = typeof member === "string" ? (await newMember(member)).email : member.email;
    const setup = JSON.parse((await cli("members", "setup", "--email", email, ...(opts.company ? ["--company", opts.company] : []), "--json")).split("\n").at(-1)!);
    const passphrase = "correct horse battery staple";
    const started = await call("/api/v2/sessions/setup", { method: "POST", host: opts.host, headers: opts.headers, json: { email, setupCode: setup.setupCode, passphrase } });
    if (started.status !== 200) throw new Error(`setup failed: ${started.text}`);
    const secret: string = started.body.data.totpSecret;
    const confirmed = await call("/api/v2/sessions/setup/confirm", { method: "POST", host: opts.host, headers: opts.headers, json: { email, setupCode: setup.setupCode, code: totp(base32Decode(secret), Date.now()), environment } });
    if (confirmed.status !== 201) throw new Error(`confirm failed: ${confirmed.text}`);
    // A code is accepted once per 30 s step, one step ahead at most: the next unused step, waiting for it if need be.
    let last = Math.floor(Date.now() / 30_000);
    /** The code of the next step not yet spent (what a member types at the console's sign-in). */
    const nextCode = () => {
      last = Math.max(last + 1, Math.floor(Date.now() / 30_000) - 1);
      return totp(base32Decode(secret), last * 30_000);
    };
    const login = async (env: "test" | "live") => {
      while (last + 1 > Math.floor(Date.now() / 30_000) + 1) await Bun.sleep(1_000);
      const r = await call("/api/v2/sessions", { method: "POST", host: opts.host, headers: opts.headers, json: { email, passphrase, code: nextCode(), environment: env } });
      if (r.status !== 201) throw new Error(`sign-in failed: ${r.text}`);
      return r.body.data.token as string;
    };
    return { token: confirmed.body.data.token, sessionId: confirmed.body.data.session.id, memberId: confirmed.body.data.member.id, email, passphrase, secret, login, nextCode };
  }

  async function call(path: string, init: CallInit = {}): Promise<Answer> {
    const headers = new Headers(init.headers);
    if (init.key !== undefined) headers.set("x-api-key", init.key);
    if (init.session !== undefined) headers.set("authorization", `Bearer ${init.session}`);
    if (init.host) headers.set("host", init.host);
    let body: string | undefined;
    const value = init.json !== undefined ? init.json : init.body;
    if (init.raw !== undefined) body = init.raw;
    else if (value !== undefined) body = JSON.stringify(value);
    if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    const res = await fetch(url() + path, { method: init.method ?? "GET", headers, body });
    const text = await res.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  return { cli, newKey, newMember, newSession, call };
}

/** A success envelope with the status given (200 unless told): `meta.apiVersion` 2 and an ISO 8601 `meta.timestamp`. */
export function expectOk(r: Answer, status = 200): void {
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`);
  expect(r.body.meta.apiVersion).toBe(2);
  expect(r.body.meta.timestamp).toMatch(ISO_MS);
}

/** The error envelope: `{error, code, details?, meta}` with the status and code given. */
export function expectError(r: Answer, status: number, code: string): void {
  expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
  expect(typeof r.body.error).toBe("string");
  expect(r.body.meta.apiVersion).toBe(2);
  expect(r.body.meta.timestamp).toMatch(ISO_MS);
}
