// The console's only way to the service: JSON calls over HTTP and the live event stream (SSE), never a throw to the screen.
// Answers are typed by the API contract (src/api/), the one module of the service the console imports.
import { KEY_REFUSALS, apiPaths, withQuery, type EventBody, type QueryValue } from "../api/index.ts";

export { withQuery };

/** An answer's `meta`: `apiVersion`, `timestamp`, a list's paging, and what a route adds (`transferAction`, `message`). */
export interface AnswerMeta {
  apiVersion?: number;
  timestamp?: string;
  piiMasked?: boolean;
  cursor?: string | null;
  hasMore?: boolean;
  total?: number;
  limit?: number;
  [extra: string]: unknown;
}

export type ApiOk<T> = { ok: true; status: number; data: T; meta: AnswerMeta };
export type ApiFail = { ok: false; status: number; error: string; code: string; details?: unknown };
export type ApiResult<T = unknown> = ApiOk<T> | ApiFail;

/** How the last call went: the status line shows it; `refused` stops nothing (a key can be re-enabled). */
export type Health = { kind: "ok" } | { kind: "unreachable"; message: string } | { kind: "refused"; code: string; message: string };

export interface ClientOptions {
  /** The server's origin, or the origins of several nodes of one service separated by commas (see `nodeUrls`). */
  url: string;
  /** An API key (reads and a key's actions), or… */
  key?: string;
  /** …a member's console session token: the officer's powers (filing, promoting, keys and members). */
  session?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const AUTH_CODES: ReadonlySet<string> = new Set(KEY_REFUSALS);

/** One line for a network failure: never a stack trace. */
export function describeNetworkError(url: string, e: unknown): string {
  const name = e instanceof Error ? e.name : "";
  if (name === "TimeoutError" || name === "AbortError") return `no answer from ${url} (timed out)`;
  const msg = e instanceof Error ? e.message.split("\n")[0] : String(e);
  return `cannot reach ${url}${msg ? ` (${msg.slice(0, 80)})` : ""}`;
}

/**
 * `--url http://a:8080,http://b:8080`: the nodes of one service, in the order to try them. The console talks to the
 * first; a call that cannot reach the node it talks to moves it to the next (round the list). A read is then sent
 * again to the next node at once; a change is not (the lost request may have been made), it is answered unreachable
 * and the next call goes to the next node. The event stream moves the same way and resumes by its Last-Event-ID.
 */
export function nodeUrls(url: string): string[] {
  const list = url
    .split(",")
    .map((u) => u.trim().replace(/\/+$/, ""))
    .filter((u) => u !== "");
  return list.length > 0 ? list : [url];
}

/** The credential's header: `x-api-key` for a key, `Authorization: Bearer` for a member's session. */
export function credentialHeaders(o: { key?: string; session?: string }): Record<string, string> {
  if (o.session) return { authorization: `Bearer ${o.session}` };
  return o.key ? { "x-api-key": o.key } : {};
}

export class ApiClient {
  /** Every node's origin (one unless --url named several); `url` is the one talked to now. */
  readonly urls: readonly string[];
  private current = 0;
  private reportedUrl = "";
  private readonly credential: Record<string, string>;
  /** True when the console acts as a signed-in member (a session), false with an API key. */
  readonly signedIn: boolean;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private listeners = new Set<(h: Health) => void>();
  health: Health = { kind: "ok" };

  constructor(o: ClientOptions) {
    this.urls = nodeUrls(o.url);
    this.reportedUrl = this.url;
    this.credential = credentialHeaders(o);
    this.signedIn = !!o.session;
    this.fetchFn = o.fetch ?? fetch;
    this.timeoutMs = o.timeoutMs ?? 10_000;
  }

  /** The origin the console talks to now. */
  get url(): string {
    return this.urls[this.current]!;
  }

  /** After a network failure on `url`: the next node's origin is talked to from now on (no change with one). */
  private next(): void {
    this.current = (this.current + 1) % this.urls.length;
  }

  /** A network failure's line, naming the node that is tried next when there are several. */
  private unreachable(url: string, e: unknown): string {
    const message = describeNetworkError(url, e);
    return this.urls.length > 1 ? `${message}; next: ${this.url}` : message;
  }

  onHealth(fn: (h: Health) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private report(h: Health): void {
    // A move to another node is news too (the status line names the node talked to), even when the health is the same.
    const same = h.kind === this.health.kind && JSON.stringify(h) === JSON.stringify(this.health) && this.reportedUrl === this.url;
    this.health = h;
    this.reportedUrl = this.url;
    if (!same) for (const l of this.listeners) l(h);
  }

  get<T = unknown>(path: string, query?: Record<string, QueryValue>): Promise<ApiResult<T>> {
    return this.request<T>("GET", withQuery(path, query));
  }

  send<T = unknown>(method: "POST" | "PATCH" | "PUT" | "DELETE", path: string, body?: unknown): Promise<ApiResult<T>> {
    return this.request<T>(method, path, body);
  }

  /** A raw answer (PDF download): bytes and headers, or the API's refusal. */
  async download(path: string): Promise<{ ok: true; bytes: Uint8Array; headers: Headers } | ApiFail> {
    const url = this.url;
    try {
      const res = await this.fetchFn(url + path, { headers: { ...this.credential }, signal: AbortSignal.timeout(60_000) });
      if (!res.ok) return this.failure(res.status, await res.text());
      this.report({ kind: "ok" });
      return { ok: true, bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
    } catch (e) {
      this.next();
      const message = this.unreachable(url, e);
      this.report({ kind: "unreachable", message });
      return { ok: false, status: 0, code: "UNREACHABLE", error: message };
    }
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
    const headers: Record<string, string> = { ...this.credential, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    let text: string;
    for (let tried = 1; ; tried++) {
      const url = this.url;
      try {
        res = await this.fetchFn(url + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        text = await res.text();
        break;
      } catch (e) {
        this.next();
        // A read goes to the next node at once; a change does not: the request lost on the way may have been made.
        if (method === "GET" && tried < this.urls.length) continue;
        const message = this.unreachable(url, e);
        this.report({ kind: "unreachable", message });
        return { ok: false, status: 0, code: "UNREACHABLE", error: message };
      }
    }
    if (!res.ok) return this.failure(res.status, text);
    this.report({ kind: "ok" });
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      return { ok: false, status: res.status, code: "BAD_ANSWER", error: `the server at ${this.url} did not answer JSON` };
    }
    // The caller names the answer's type from the contract; the server's answers are checked against it by the contract test.
    // GET /webhooks/:id answers the subscription itself (Part 2), not an envelope.
    if (parsed && typeof parsed === "object" && "data" in parsed) {
      const env = parsed as { data: T; meta?: AnswerMeta };
      return { ok: true, status: res.status, data: env.data, meta: env.meta ?? {} };
    }
    return { ok: true, status: res.status, data: parsed as T, meta: {} };
  }

  private failure(status: number, text: string): ApiFail {
    let body: { code?: unknown; error?: unknown; details?: unknown } | null = null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === "object") body = parsed;
    } catch {
      /* not JSON: a proxy or an old server */
    }
    const code = typeof body?.code === "string" ? body.code : `HTTP_${status}`;
    const error = typeof body?.error === "string" ? body.error : `HTTP ${status} from ${this.url}`;
    if (status === 401 || (status === 403 && code === "TENANT_SUSPENDED") || AUTH_CODES.has(code)) this.report({ kind: "refused", code, message: error });
    else this.report({ kind: "ok" });
    return { ok: false, status, code, error, details: body?.details };
  }
}


/** One event of the stream: `{event, timestamp, data}` as webhooks carry it, with the sequence it was sent under. */
export interface StreamEvent {
  id: string | null;
  type: string;
  timestamp?: string;
  data: Record<string, unknown>;
}

/**
 * live: the stream is open; connecting: (re)opening it; polling: the server refused the stream (older server,
 * missing scope), the console polls instead; offline: the server cannot be reached, retrying with backoff.
 */
export type StreamState =
  | { kind: "connecting"; attempt: number }
  | { kind: "live" }
  | { kind: "polling"; reason: string }
  | { kind: "offline"; message: string; retryInMs: number };

export interface StreamOptions {
  /** The server's origin, or several nodes' separated by commas (`nodeUrls`): a failed connection moves to the next. */
  url: string;
  key?: string;
  session?: string;
  fetch?: typeof fetch;
  /** Backoff after a failure: base doubled per attempt, capped. */
  backoffMs?: { base: number; max: number };
  /** No byte (event or `: ping`) for this long: the connection is taken as dead and reopened. */
  idleMs?: number;
  /** How long to wait before asking again for a stream the server refused. */
  refusedRetryMs?: number;
}

/** Parses SSE text incrementally: feed chunks, get complete events. */
export class SseParser {
  private buf = "";
  private id: string | null = null;
  private type = "";
  private data: string[] = [];
  lastEventId: string | null = null;

  feed(chunk: string): { id: string | null; type: string; data: string }[] {
    this.buf += chunk;
    const out: { id: string | null; type: string; data: string }[] = [];
    for (;;) {
      const nl = this.buf.search(/\r\n|\r|\n/);
      if (nl < 0) break;
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + (this.buf.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        if (this.data.length) {
          if (this.id !== null) this.lastEventId = this.id;
          out.push({ id: this.id ?? this.lastEventId, type: this.type || "message", data: this.data.join("\n") });
        }
        this.id = null;
        this.type = "";
        this.data = [];
        continue;
      }
      if (line.startsWith(":")) continue; // heartbeat / comment
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "id") this.id = value;
      else if (field === "event") this.type = value;
      else if (field === "data") this.data.push(value);
    }
    return out;
  }
}

/** The live stream with reconnection: resumes with `Last-Event-ID`, backs off while the server is gone. */
export class EventStream {
  private readonly o: Required<Omit<StreamOptions, "fetch">> & { fetch: typeof fetch };
  private stopped = false;
  private abort: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private attempt = 0;
  private readonly urls: string[];
  private current = 0;
  lastEventId: string | null = null;
  state: StreamState = { kind: "connecting", attempt: 0 };

  constructor(
    opts: StreamOptions,
    private readonly onEvent: (e: StreamEvent) => void,
    private readonly onState: (s: StreamState) => void,
  ) {
    this.urls = nodeUrls(opts.url);
    this.o = {
      url: this.urls[0]!,
      key: opts.key ?? "",
      session: opts.session ?? "",
      fetch: opts.fetch ?? fetch,
      backoffMs: opts.backoffMs ?? { base: 500, max: 10_000 },
      idleMs: opts.idleMs ?? 45_000,
      refusedRetryMs: opts.refusedRetryMs ?? 30_000,
    };
  }

  /** The origin the stream connects to (the next node's after a failed connection, when there are several). */
  get url(): string {
    return this.urls[this.current]!;
  }

  start(): this {
    void this.loop();
    return this;
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    if (this.timer) clearTimeout(this.timer);
  }

  private set(s: StreamState): void {
    this.state = s;
    this.onState(s);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timer = setTimeout(resolve, ms);
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const next = await this.once();
      if (this.stopped) return;
      await this.sleep(next);
    }
  }

  /** One connection; returns how long to wait before the next. */
  private async once(): Promise<number> {
    this.set({ kind: "connecting", attempt: this.attempt });
    const abort = new AbortController();
    this.abort = abort;
    let idle: ReturnType<typeof setTimeout> | null = null;
    const touch = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => abort.abort(), this.o.idleMs);
    };
    try {
      const headers: Record<string, string> = { ...credentialHeaders(this.o), accept: "text/event-stream" };
      if (this.lastEventId !== null) headers["last-event-id"] = this.lastEventId;
      touch();
      const res = await this.o.fetch(`${this.url}${apiPaths.eventStream()}`, { headers, signal: abort.signal });
      if (!res.ok || !res.body) {
        let reason = `HTTP ${res.status}`;
        try {
          const b = JSON.parse(await res.text());
          if (b?.code) reason = `${b.code}${b.error ? `: ${b.error}` : ""}`;
        } catch {
          /* not JSON */
        }
        this.attempt = 0;
        // The stream is refused (404 older server, 403 scope, 401 key): poll instead and ask again later.
        this.set({ kind: "polling", reason });
        return this.o.refusedRetryMs;
      }
      this.attempt = 0;
      this.set({ kind: "live" });
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        touch();
        for (const raw of parser.feed(decoder.decode(value, { stream: true }))) {
          if (raw.id !== null) this.lastEventId = raw.id;
          let body: Partial<EventBody> | null;
          try {
            body = JSON.parse(raw.data);
          } catch {
            continue;
          }
          this.onEvent({ id: raw.id, type: body?.event ?? raw.type, timestamp: body?.timestamp, data: body?.data ?? {} });
        }
      }
      // The server closed the stream (restart, slow-client cut-off): reopen at once, resuming.
      return this.backoff(true);
    } catch (e) {
      if (this.stopped) return 0;
      const url = this.url;
      // Several nodes: the next connection goes to the next one, resuming after the last event this one sent.
      this.current = (this.current + 1) % this.urls.length;
      return this.backoff(false, describeNetworkError(url, e));
    } finally {
      if (idle) clearTimeout(idle);
    }
  }

  private backoff(clean: boolean, message?: string): number {
    if (clean) {
      this.attempt = 0;
      return 100;
    }
    const { base, max } = this.o.backoffMs;
    const wait = Math.min(max, base * 2 ** this.attempt);
    this.attempt++;
    this.set({ kind: "offline", message: message ?? "disconnected", retryInMs: wait });
    return wait;
  }
}
