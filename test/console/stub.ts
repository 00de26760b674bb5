// A tiny API stand-in for the console's component tests: real HTTP on loopback, canned answers per route, every
// request recorded, and an SSE endpoint the test writes events into (or refuses).
import { EventEmitter } from "node:events";
import { render as inkRender } from "ink";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { keyPacedStdin } from "../../src/console/key-pacing.ts";
import { App, streamConnector, type AppProps } from "../../src/console/app.tsx";
import { ApiClient } from "../../src/console/client.ts";
import type { ScreenId } from "../../src/console/keys.ts";

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  body: any;
  headers: Headers;
}
type Answer = { status?: number; body?: unknown; raw?: BodyInit; headers?: Record<string, string> };
type Handler = (r: Seen) => Answer | undefined;

export const meta = (extra: Record<string, unknown> = {}) => ({ apiVersion: 2, timestamp: new Date().toISOString(), ...extra });
export const list = (items: unknown[], extra: Record<string, unknown> = {}) => ({ body: { data: items, meta: meta({ cursor: null, hasMore: false, total: items.length, limit: 50, ...extra }) } });
export const one = (data: unknown, extra: Record<string, unknown> = {}) => ({ body: { data, meta: meta(extra) } });
export const refuse = (status: number, code: string, error: string) => ({ status, body: { error, code, meta: meta() } });

export const ME_OWNER = {
  company: { slug: "default" },
  environment: "test",
  member: { id: "mem_officer", email: "officer@example.com", role: "compliance_officer" },
  key: { id: "key_1", scopes: ["transfers:read", "transfers:write", "cases:read", "cases:write", "rules:read", "webhooks:read", "webhooks:write", "reports:read", "strs:read", "strs:write"] },
  permissions: ["transfers:view", "transfers:update", "cases:view", "cases:update", "cases:assign", "cases:resolve", "webhooks:view", "webhooks:update", "reports:view", "strs:view", "pii:view"],
};
export const ME_ANALYST = {
  ...ME_OWNER,
  member: { id: "mem_analyst", email: "analyst@example.com", role: "analyst" },
  key: { id: "key_2", scopes: ["transfers:read", "cases:read", "cases:write", "transfers:write"] },
  permissions: ["transfers:view", "cases:view"],
};

export class Stub {
  readonly seen: Seen[] = [];
  private routes: { method: string; pattern: RegExp; h: Handler }[] = [];
  private sinks = new Set<ReadableStreamDefaultController<Uint8Array>>();
  streamMode: "open" | "refuse" = "open";
  lastEventIds: (string | null)[] = [];
  server: ReturnType<typeof Bun.serve>;

  constructor(me: unknown = ME_OWNER) {
    this.on("GET", "/api/v2/me", () => one(me));
    this.server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: (req) => this.handle(req) });
  }

  get url() {
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** Later routes win; `path` may hold `*` for one segment. */
  on(method: string, path: string, h: Handler | Answer): this {
    const pattern = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]+")}$`);
    this.routes.unshift({ method, pattern, h: typeof h === "function" ? h : () => h });
    return this;
  }

  requests(method: string, path: string | RegExp): Seen[] {
    return this.seen.filter((s) => s.method === method && (typeof path === "string" ? s.path === path : path.test(s.path)));
  }

  /** Sends one SSE event to every open stream. */
  emit(id: number, event: string, data: Record<string, unknown>) {
    const frame = new TextEncoder().encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify({ event, timestamp: new Date().toISOString(), data })}\n\n`);
    for (const c of this.sinks) c.enqueue(frame);
  }

  /** Ends every open stream (a server restart). */
  drop() {
    for (const c of this.sinks) c.close();
    this.sinks.clear();
  }

  get openStreams() {
    return this.sinks.size;
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const text = req.method === "GET" ? "" : await req.text();
    const seen: Seen = { method: req.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined, headers: req.headers };
    this.seen.push(seen);
    if (url.pathname === "/api/v2/events/stream") {
      this.lastEventIds.push(req.headers.get("last-event-id"));
      if (this.streamMode === "refuse") return Response.json(refuse(404, "NOT_FOUND", "Not found").body, { status: 404 });
      let ctl!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start: (c) => {
          ctl = c;
          this.sinks.add(c);
          c.enqueue(new TextEncoder().encode(": connected\n\n"));
        },
        cancel: () => void this.sinks.delete(ctl),
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    for (const r of this.routes) {
      if (r.method !== req.method || !r.pattern.test(url.pathname)) continue;
      const a = r.h(seen);
      if (!a) continue;
      if (a.raw !== undefined) return new Response(a.raw, { status: a.status ?? 200, headers: a.headers });
      return Response.json(a.body ?? null, { status: a.status ?? 200, headers: a.headers });
    }
    // Anything not set up: an empty list (GET) or a 404, as the real API would for an unknown ID.
    if (req.method === "GET") return Response.json(list([]).body);
    return Response.json(refuse(404, "NOT_FOUND", "Not found").body, { status: 404 });
  }

  stop() {
    this.drop();
    void this.server.stop(true);
  }
}

export function mount(stub: Stub, initial: ScreenId, extra: Partial<AppProps> = {}) {
  const client = new ApiClient({ url: stub.url, key: `crv_test_${"a".repeat(64)}` });
  const r = render(createElement(App, { client, connect: streamConnector(stub.url, "crv_test_" + "a".repeat(64)), initial, ...extra }));
  return { ...r, client };
}

/** A terminal's stdin for Ink: each write is one read, as keys that arrived together come from a real terminal. */
class TerminalIn extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write(data: string) {
    this.data = data;
    this.emit("readable");
  }
  read() {
    const d = this.data;
    this.data = null;
    return d;
  }
  setEncoding() {}
  setRawMode() {}
  ref() {}
  unref() {}
  resume() {}
  pause() {}
}

class TerminalOut extends EventEmitter {
  columns = 100;
  private last: string | undefined;
  write = (f: string) => {
    this.last = f;
    return true;
  };
  lastFrame = () => this.last;
}

/**
 * The console as `caravan console` renders it: Ink reads the terminal through the key-paced stdin. `write` hands it
 * one chunk, which may hold several keys.
 */
export function mountPaced(stub: Stub, initial: ScreenId) {
  const client = new ApiClient({ url: stub.url, key: `crv_test_${"a".repeat(64)}` });
  const stdin = new TerminalIn();
  const stdout = new TerminalOut();
  const app = inkRender(createElement(App, { client, connect: streamConnector(stub.url, "crv_test_" + "a".repeat(64)), initial }), {
    stdin: keyPacedStdin(stdin) as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: new TerminalOut() as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return { stdin, lastFrame: stdout.lastFrame, unmount: () => app.unmount(), client };
}

/** Waits for a frame that satisfies `ok` (bounded: a hang guard, the failure shows the last frame). */
export async function frame(r: { lastFrame(): string | undefined }, ok: (f: string) => boolean, ms = 5_000): Promise<string> {
  const end = Date.now() + ms;
  let f = "";
  while (Date.now() < end) {
    f = r.lastFrame() ?? "";
    if (ok(f)) return f;
    await Bun.sleep(10);
  }
  throw new Error(`no frame matched within ${ms} ms; last frame:\n${f}`);
}

/**
 * Waits until some frame rendered so far satisfies `ok`, however briefly it stood: a flash that the next answer
 * replaces within one poll of `frame` is still seen (bounded: a hang guard).
 */
export async function frameSeen(r: { frames: string[]; lastFrame(): string | undefined }, ok: (f: string) => boolean, ms = 5_000): Promise<string> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const f = r.frames.find(ok);
    if (f !== undefined) return f;
    await Bun.sleep(10);
  }
  throw new Error(`no frame matched within ${ms} ms; last frame:\n${r.lastFrame() ?? ""}`);
}

export async function until(ok: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (ok()) return;
    await Bun.sleep(10);
  }
  throw new Error("condition never held");
}

/** One key at a time, as a terminal sends them. */
export async function keys(r: { stdin: { write(s: string): void } }, ...ks: string[]) {
  for (const k of ks) {
    r.stdin.write(k);
    await Bun.sleep(20);
  }
}

export const KEY = { enter: "\r", esc: "\u001B", down: "\u001B[B", up: "\u001B[A", tab: "\t", backspace: "\u007F", ctrlS: "\u0013" };
