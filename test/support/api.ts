// An HTTP client for end-to-end tests: CLI keys on the server's database (the CLI's commands run in this process,
// ./cli.ts), JSON calls, envelope checks.
import { expect } from "bun:test";
import { runCliInProcess } from "./cli.ts";

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

  /** `keys create … --json`: the last line's JSON (key, id, memberId, memberEmail, ...). */
  async function newKey(...args: string[]): Promise<{ key: string; id: string; memberId: string; memberEmail: string; scopes: string[] }> {
    const out = await cli("keys", "create", ...args, "--json");
    return JSON.parse(out.split("\n").at(-1)!);
  }

  async function call(path: string, init: CallInit = {}): Promise<Answer> {
    const headers = new Headers(init.headers);
    if (init.key !== undefined) headers.set("x-api-key", init.key);
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

  return { cli, newKey, call };
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
