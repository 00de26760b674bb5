// The route kit: one pipeline every API route runs (limits, CSRF, auth, scope, query, body), envelopes and errors.
import { Elysia } from "elysia";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiError, ERRORS, apiError, type Issue } from "../domain/errors.ts";
import { iso } from "../domain/ids.ts";
import type { Logger } from "../adapters/log.ts";
import type { Company, TenancyRepository } from "../ports/tenancy.ts";
import { StorageUnavailableError, type Store, type StoreFault } from "../ports/store.ts";
import { authenticate, authorize, resolveCompany, usesSession, type Access, type AuthContext } from "./auth.ts";
import { readJsonBody } from "./body.ts";
import { parseQuery, type QueryOf, type QueryParam } from "./query.ts";
import type { RateLimiter } from "./ratelimit.ts";
import { routeAnswers, type RouteAnswers } from "./answers.ts";

export const API_VERSION = 2;

export interface KitDeps {
  tenancy: TenancyRepository;
  limiter: RateLimiter;
  clock: () => number;
  log: Logger;
  appDomain?: string;
  /** For `readOnly` routes: authentication and the handler's reads share one read transaction. */
  storage?: Pick<Store, "readTurn" | "faultOf"> & { readonly health?: Store["health"] };
  /**
   * False while the service cannot serve a company yet (starting, or stopping): 503 COMPANY_NOT_READY; or, while the
   * store is in fault (a node that lost its database, whose membership lapsed), the store fault's 503.
   */
  ready?: () => boolean;
  /** The client's address (trusted-proxy rule): a session is bound to the address that signed in. */
  sourceOf?: (req: Request) => string | null;
  /** A store fault met by a request: logged once per class per interval with the runtime's (the log stays readable). */
  reportFault?: (msg: string, e: unknown, fields?: Record<string, unknown>) => void;
}

/** How long a client waits after a 503 for a store fault before trying again. */
export const STORAGE_RETRY_AFTER_S = 5;

/**
 * A write the store could not take (a full disk, an I/O error): a 503 that says so at once, with Retry-After. Whether
 * anything was kept is said plainly: the change is either recorded and finishes by itself, or was not made, or (the
 * connection to a database server lost mid-call) its outcome is unknown.
 */
export function storageUnavailable(e: unknown, faultOf: (e: unknown) => StoreFault | null = (x) => (x instanceof StorageUnavailableError ? x.fault : null)): ApiError | null {
  const fault = faultOf(e);
  if (!fault) return null;
  const queued = e instanceof StorageUnavailableError && e.queued;
  return apiError("SERVICE_UNAVAILABLE", {
    message: queued
      ? "The storage is unavailable: the change is recorded and finishes when the storage takes writes again; read the record before retrying"
      : fault.uncertain
        ? "The storage was lost during the request: the change may or may not have been made; read the record, or retry with the same Idempotency-Key, after Retry-After"
        : "The storage is unavailable: nothing was changed; retry after Retry-After",
    headers: { "Retry-After": String(STORAGE_RETRY_AFTER_S) },
  });
}

type QuerySpec = Record<string, QueryParam<unknown>>;

/**
 * A route: its access, query and body. `body` is a request schema of the API contract (`src/api/`): it documents the
 * body (OpenAPI), and the pipeline checks every body once, before the handler runs: with the route's `read` (the
 * resource's own reader of the contract's body, for its codes such as MISSING_FIELDS), else against the schema
 * itself (VALIDATION_ERROR with `details.issues`). The handler gets `c.body` typed: what `read` returned, else
 * `Static<body>`.
 */
export interface RouteSpec<Q extends QuerySpec = QuerySpec, B extends TSchema | undefined = TSchema | undefined, R = unknown> {
  summary: string;
  access: Access;
  query?: Q;
  body?: B;
  /**
   * The body's reader, run by the pipeline after access and before the handler: the typed value, or a refusal with
   * the resource's codes (it throws). It sees the request's context (the route's parameters, the key, the clock) for
   * checks that need it (a rule's integrations, an identity's date, the resource a change names). It may be
   * asynchronous (a check that reads the store); the handler receives the value it settles to.
   */
  read?: (body: unknown, c: RouteContext<Q>) => R | Promise<R>;
  /** VALIDATION_ERROR is 400 on customers, wallets, transfers and 422 on the Part 2 resources. */
  validationStatus?: 400 | 422;
  /** A per-feature budget (besides the company-wide one), counted per company and environment. */
  rateLimit?: string;
  /** Responses with personal data: masked for roles without pii:view. */
  pii?: boolean;
  tags?: string[];
  /**
   * A GET whose handler only reads: the authentication and the handler's synchronous part run in one read turn of the
   * store (one snapshot, one WAL read lock for them instead of one per statement). Never on a handler that writes.
   */
  readOnly?: true;
}

/** No `read` on a route: the pipeline checks the body against the contract's schema. */
declare const NO_READER: unique symbol;
export type NoReader = typeof NO_READER;

/** The handler's body: what the route's `read` returned (settled), else the contract's static type (checked), else `unknown`. */
export type BodyOf<B, R = NoReader> = [R] extends [NoReader] ? ([B] extends [TSchema] ? Static<B> : unknown) : Awaited<R>;

export interface RouteContext<Q extends QuerySpec = QuerySpec, Body = unknown> {
  request: Request;
  auth: AuthContext;
  params: Record<string, string>;
  query: QueryOf<Q>;
  body: Body;
  now: number;
  /** Returns `value` as is for roles with pii:view, else `mask(value)` and marks the answer `meta.piiMasked`. */
  pii<T>(value: T, mask: (v: T) => T): T;
}

export interface Reply {
  status?: number;
  data: unknown;
  meta?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export const ok = (data: unknown, meta?: Record<string, unknown>): Reply => ({ status: 200, data, meta });
export const created = (data: unknown, meta?: Record<string, unknown>): Reply => ({ status: 201, data, meta });
export const accepted = (data: unknown, meta?: Record<string, unknown>): Reply => ({ status: 202, data, meta });

export interface PageMeta {
  cursor: string | null;
  hasMore: boolean;
  total: number;
  limit: number;
}
export const page = (items: unknown[], m: PageMeta, extra?: Record<string, unknown>): Reply => ({ status: 200, data: items, meta: { ...m, ...extra } });

/**
 * A handler's own validation refusal: VALIDATION_ERROR with `details.issues` and one message naming each issue.
 * 422 on the Part 2 resources (cases, rules, thresholds, providers, webhooks); pass 400 for the Part 1 ones.
 */
export function invalid(issues: Issue[], status: 400 | 422 = 422): never {
  throw apiError("VALIDATION_ERROR", { status, message: issues.map((i) => `${i.path || "body"}: ${i.message}`).join("; "), details: { issues } });
}

/** A route's `read` from a domain check's result: its value, or VALIDATION_ERROR with its issues (see `invalid`). */
export function checked<T>(check: (body: unknown) => { ok: true; value: T } | { ok: false; issues: Issue[] }, status: 400 | 422 = 422): (body: unknown) => T {
  return (body) => {
    const v = check(body);
    if (!v.ok) invalid(v.issues, status);
    return v.value;
  };
}

export interface RouteInfo {
  method: string;
  path: string;
  pattern: RegExp;
  spec: RouteSpec<any, any, any>;
  /** Its success statuses and refusals: what the OpenAPI document lists, and what the kit checks answers against. */
  answers: RouteAnswers;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

function pathPattern(path: string): RegExp {
  const re = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${re}/?$`);
}

/** The headers of every JSON answer; one frozen object, so an answer without headers of its own builds none. */
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
/** One init per common status for answers without headers of their own (Bun copies an init's headers into the Response). */
const PLAIN_INIT = new Map<number, ResponseInit>([200, 201, 202].map((status) => [status, Object.freeze({ status, headers: JSON_HEADERS })]));

export function json(status: number, body: unknown, headers?: Record<string, string>): Response {
  const text = status === 204 ? null : JSON.stringify(body);
  if (headers === undefined) {
    const init = PLAIN_INIT.get(status);
    if (init) return new Response(text, init);
  }
  return new Response(text, { status, headers: headers === undefined ? JSON_HEADERS : { ...JSON_HEADERS, ...headers } });
}

/** `meta.timestamp`: the ISO text of the clock's millisecond, formatted once per millisecond (many answers share one). */
let stampMs = Number.NaN;
let stampText = "";
function stamp(ms: number): string {
  if (ms !== stampMs) {
    stampText = iso(ms);
    stampMs = ms;
  }
  return stampText;
}

/** Per route: the query of a request without a query string (the defaults), parsed once and frozen. */
const emptyQueries = new WeakMap<RouteSpec<any>, unknown>();

/** The route's query parameters; only the query string is needed: no URL object for a request without one. */
function queryOf<Q extends QuerySpec>(spec: RouteSpec<Q, any, any>, request: Request): QueryOf<Q> {
  const qi = request.url.indexOf("?");
  if (qi >= 0) return parseQuery(spec.query, new URL(request.url).searchParams);
  let q = emptyQueries.get(spec) as QueryOf<Q> | undefined;
  if (q === undefined) emptyQueries.set(spec, (q = Object.freeze(parseQuery(spec.query, new URLSearchParams()))));
  return q;
}

/** A handler's context: one object per request, its `pii` a method (no closure per request). */
class Call<Q extends QuerySpec> implements RouteContext<Q> {
  constructor(
    readonly request: Request,
    readonly auth: AuthContext,
    readonly params: Record<string, string>,
    readonly query: QueryOf<Q>,
    readonly body: unknown,
    readonly now: number,
    private readonly state: { masked: boolean },
  ) {}

  pii<T>(value: T, mask: (v: T) => T): T {
    if (this.auth.piiView) return value;
    this.state.masked = true;
    return mask(value);
  }
}

/** What a route outside the credential pipeline (signing in) gets: the host's company, the checked body, the time. */
export interface PublicContext<Body = unknown> {
  request: Request;
  company: Company;
  params: Record<string, string>;
  body: Body;
  now: number;
}
export type PublicHandler<Body = unknown> = (c: PublicContext<Body>) => Reply | Promise<Reply>;
export interface PublicRouteSpec<B extends TSchema | undefined = TSchema | undefined> {
  summary: string;
  body?: B;
  tags?: string[];
  /** How the route is authenticated instead of a key (OpenAPI `x-authentication`). */
  authentication: string;
}

export class ApiKit {
  readonly routes: RouteInfo[] = [];
  /** Answers a route gave that its description does not list, each logged once ("METHOD /path status code"). */
  private readonly undescribed = new Set<string>();

  constructor(private readonly deps: KitDeps) {}

  meta(now = this.deps.clock()) {
    return { apiVersion: API_VERSION, timestamp: stamp(now) };
  }

  errorResponse(e: unknown, requestId?: string, route?: RouteInfo): Response {
    if (e instanceof ApiError) {
      if (route && !route.answers.refusals.get(e.status)?.includes(e.code) && !(route.answers.providerCodes.has(e.status) && !(e.code in ERRORS)))
        this.undescribedAnswer(route, e.status, e.code);
      const body: Record<string, unknown> = { error: e.message, code: e.code };
      if (e.details !== undefined) body.details = e.details;
      body.meta = this.meta();
      return json(e.status, body, e.headers);
    }
    const unavailable = storageUnavailable(e, this.deps.storage?.faultOf);
    if (unavailable) {
      this.deps.reportFault?.("request met a storage fault", e);
      return this.errorResponse(unavailable, requestId);
    }
    // Part 1: a 500 says nothing more; the cause goes to the log only.
    this.deps.log("error", "unexpected error", { requestId, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e), stack: e instanceof Error ? e.stack : undefined });
    return json(500, { error: "Internal server error", code: "INTERNAL_ERROR", meta: this.meta() });
  }

  /** Why the service is not ready: the store's fault when it is in one (SERVICE_UNAVAILABLE), else COMPANY_NOT_READY. */
  private notReady(): unknown {
    const fault = this.deps.storage?.health?.unavailable;
    // Refused before anything ran: nothing was changed, whatever the fault said of the call that met it.
    return fault ? new StorageUnavailableError({ class: fault.class, cause: fault.cause }) : apiError("COMPANY_NOT_READY", { headers: { "Retry-After": "5" } });
  }

  /** Methods declared for a concrete path, for 405 Allow and OPTIONS. */
  allowedMethods(pathname: string): string[] {
    const set = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(pathname)) set.add(r.method);
    if (set.size) set.add("OPTIONS");
    return [...set];
  }

  /** A group of routes under one prefix, as an Elysia plugin. */
  group(prefix: string, build: (r: Router) => void): Elysia<any, any, any, any, any, any, any> {
    const app = new Elysia({ prefix, normalize: false });
    build(new Router(this, app, prefix));
    return app;
  }

  register(method: Method, fullPath: string, spec: RouteSpec<any, any, any>): RouteInfo {
    const info: RouteInfo = { method, path: fullPath, pattern: pathPattern(fullPath), spec, answers: routeAnswers(method, fullPath, spec) };
    this.routes.push(info);
    return info;
  }

  /**
   * A status or code the route's description (the OpenAPI document) does not list: answered as it is, and logged once
   * per route, status and code, so the description is corrected rather than trusted.
   */
  private undescribedAnswer(route: RouteInfo, status: number, code?: string): void {
    const key = `${route.method} ${route.path} ${status} ${code ?? ""}`;
    if (this.undescribed.has(key)) return;
    this.undescribed.add(key);
    this.deps.log("warn", "answer not in the OpenAPI description", { route: `${route.method} ${route.path}`, status, code });
  }

  /**
   * The pipeline. A GET or DELETE whose handler answers synchronously is answered synchronously: no promise, no
   * microtask between the handler and the Response (most reads); a body or an asynchronous handler is awaited.
   */
  run<Q extends QuerySpec>(spec: RouteSpec<Q, any, any>, handler: Handler<Q>, request: Request, params: Record<string, string>, route?: RouteInfo): Response | Promise<Response> {
    const state = { masked: false, route };
    try {
      if (request.method !== "GET" && request.method !== "DELETE") return this.runWithBody(spec, handler, request, params, state);
      let call: { auth: AuthContext; pending: Reply | Response | Promise<Reply | Response> };
      // A session's use is written (renewal, an end): never inside the read snapshot.
      if (spec.readOnly && this.deps.storage && request.method === "GET" && !usesSession(request)) {
        const turn = this.deps.storage.readTurn(() => {
          const auth = this.admit(spec, request);
          // A key not in the cache: its lookup is awaited, then the handler gets a read turn of its own.
          if (auth instanceof Promise) return { admitting: auth };
          return this.call(spec, handler, request, params, auth, queryOf(spec, request), undefined, state);
        });
        if (turn instanceof Promise || "admitting" in turn)
          return this.finishRead(spec, handler, request, params, state, turn).catch((e) => this.errorResponse(e, request.headers.get("x-request-id") ?? undefined, route));
        call = turn;
      } else {
        const auth = this.admit(spec, request);
        if (auth instanceof Promise)
          return auth
            .then((a) => {
              const { pending } = this.call(spec, handler, request, params, a, queryOf(spec, request), undefined, state);
              return Promise.resolve(pending).then((r) => this.present(spec, r, a, state));
            })
            .catch((e) => this.errorResponse(e, request.headers.get("x-request-id") ?? undefined, route));
        call = this.call(spec, handler, request, params, auth, queryOf(spec, request), undefined, state);
      }
      const { pending, auth } = call;
      if (pending instanceof Promise)
        return pending.then((r) => this.present(spec, r, auth, state)).catch((e) => this.errorResponse(e, request.headers.get("x-request-id") ?? undefined, route));
      return this.present(spec, pending, auth, state);
    } catch (e) {
      return this.errorResponse(e, request.headers.get("x-request-id") ?? undefined, route);
    }
  }

  /** A read-only GET that had to wait (for the connection, or for its key's lookup): the rest of `run`, awaited. */
  private async finishRead<Q extends QuerySpec>(
    spec: RouteSpec<Q, any, any>,
    handler: Handler<Q>,
    request: Request,
    params: Record<string, string>,
    state: { masked: boolean; route?: RouteInfo },
    turn: Promise<Called | { admitting: Promise<AuthContext> }> | Called | { admitting: Promise<AuthContext> },
  ): Promise<Response> {
    let t = await turn;
    if ("admitting" in t) {
      const auth = await t.admitting;
      t = await this.deps.storage!.readTurn(() => this.call(spec, handler, request, params, auth, queryOf(spec, request), undefined, state));
    }
    return this.present(spec, await t.pending, t.auth, state);
  }

  private async runWithBody<Q extends QuerySpec>(
    spec: RouteSpec<Q>,
    handler: (c: RouteContext<Q>) => Reply | Response | Promise<Reply | Response>,
    request: Request,
    params: Record<string, string>,
    state: { masked: boolean; route?: RouteInfo },
  ): Promise<Response> {
    try {
      const admitted = this.admit(spec, request);
      const auth = admitted instanceof Promise ? await admitted : admitted;
      const query = queryOf(spec, request);
      const raw = await readJsonBody(request);
      let body: unknown = raw;
      if (spec.read) {
        const read = spec.read(raw, new Call(request, auth, params, query, raw, this.deps.clock(), state));
        // No await where nothing waits.
        body = read instanceof Promise ? await read : read;
      }
      else if (spec.body) this.validateBody(spec, raw);
      const call = this.call(spec, handler, request, params, auth, query, body, state);
      // No await where nothing waits.
      const result = call.pending instanceof Promise ? await call.pending : call.pending;
      return this.present(spec, result, auth, state);
    } catch (e) {
      return this.errorResponse(e, request.headers.get("x-request-id") ?? undefined, state.route);
    }
  }

  /** A route without a credential (sign-in): readiness, company, company budget, body, handler, envelope. */
  async runPublic(spec: PublicRouteSpec<any>, handler: PublicHandler<any>, request: Request, params: Record<string, string>, route?: RouteInfo): Promise<Response> {
    try {
      const { tenancy, limiter, appDomain, ready } = this.deps;
      if (ready && !ready()) throw this.notReady();
      const company = await resolveCompany(request, tenancy, appDomain);
      limiter.check("company", company.id);
      const body = await readJsonBody(request);
      if (spec.body) this.validateBody(spec as unknown as RouteSpec<any, any, any>, body);
      const result = await handler({ request, company, params, body, now: this.deps.clock() });
      const meta: Record<string, unknown> = { apiVersion: API_VERSION, timestamp: stamp(this.deps.clock()) };
      if (result.meta) Object.assign(meta, result.meta);
      const status = result.status ?? 200;
      if (route && !route.answers.successes.has(status)) this.undescribedAnswer(route, status);
      return json(status, { data: result.data, meta }, result.headers);
    } catch (e) {
      return this.errorResponse(e, request.headers.get("x-request-id") ?? undefined, route);
    }
  }

  /** The envelope: `data`, and `meta` with apiVersion, timestamp, the reply's own meta and piiMasked when masked. */
  private present(spec: RouteSpec<any>, result: Reply | Response, auth: AuthContext, state: { masked: boolean; route?: RouteInfo }): Response {
    const status = result.status ?? 200;
    if (state.route && !state.route.answers.successes.has(status)) this.undescribedAnswer(state.route, status);
    if (result instanceof Response) return result;
    const meta: Record<string, unknown> = { apiVersion: API_VERSION, timestamp: stamp(this.deps.clock()) };
    if (result.meta) Object.assign(meta, result.meta);
    if (state.masked || (spec.pii && !auth.piiView)) meta.piiMasked = true;
    return json(status, { data: result.data, meta }, result.headers);
  }

  /**
   * Company, key, company budget, access, the route's own budget. Answered in this turn when the company and the key
   * are in the tenancy's cache (every request after a key's first); a miss, or a session, is awaited.
   */
  private admit(spec: RouteSpec<any, any, any>, request: Request): AuthContext | Promise<AuthContext> {
    const { tenancy, ready } = this.deps;
    // Part 1 Errors, 503 "company not ready": before its actors run (or once they stop) nothing of a company is served.
    if (ready && !ready()) throw this.notReady();
    const company = resolveCompany(request, tenancy, this.deps.appDomain);
    if (company instanceof Promise) return company.then((c) => this.admitFor(spec, request, c));
    return this.admitFor(spec, request, company);
  }

  private admitFor(spec: RouteSpec<any, any, any>, request: Request, company: Company): AuthContext | Promise<AuthContext> {
    const now = this.deps.clock();
    const auth = authenticate(request, company, this.deps.tenancy, { now, source: this.deps.sourceOf ? this.deps.sourceOf(request) : null });
    if (auth instanceof Promise) return auth.then((a) => this.admitted(spec, company, a, now));
    return this.admitted(spec, company, auth, now);
  }

  private admitted(spec: RouteSpec<any, any, any>, company: Company, auth: AuthContext, now: number): AuthContext {
    const { tenancy, limiter } = this.deps;
    // A key's last use, for the console's list: written after this request's read snapshot, at most once a minute.
    if (!auth.session && tenancy.touchDue(auth.key.id, now)) {
      const id = auth.key.id;
      queueMicrotask(() => {
        tenancy.touchKey(id, now).catch(() => {
          /* a busy database: the next use writes it */
        });
      });
    }
    limiter.check("company", company.id);
    authorize(auth, spec.access);
    if (spec.rateLimit) limiter.check(spec.rateLimit, `${company.id}:${auth.environment}`);
    return auth;
  }

  /** The handler (its synchronous part runs here). */
  private call<Q extends QuerySpec>(
    spec: RouteSpec<Q, any, any>,
    handler: Handler<Q>,
    request: Request,
    params: Record<string, string>,
    auth: AuthContext,
    query: QueryOf<Q>,
    body: unknown,
    state: { masked: boolean },
  ): Called {
    const pending = handler(new Call(request, auth, params, query, body, this.deps.clock(), state));
    return { auth, pending };
  }

  private validateBody(spec: RouteSpec<any, any, any>, body: unknown): void {
    const status = spec.validationStatus ?? 400;
    if (body === undefined) throw apiError("VALIDATION_ERROR", { status, message: "A JSON body is required", details: { issues: [{ path: "", message: "a JSON body is required" }] } });
    if (Value.Check(spec.body!, body)) return;
    const issues: Issue[] = [];
    for (const err of Value.Errors(spec.body!, body)) {
      issues.push({ path: err.path.replace(/^\//, "").replace(/\//g, ".") || "(body)", message: err.message });
      if (issues.length >= 50) break;
    }
    throw apiError("VALIDATION_ERROR", { status, message: issues.map((i) => `${i.path}: ${i.message}`).join("; "), details: { issues } });
  }
}

/** A handler called: its principal and its answer, perhaps still pending. */
type Called = { auth: AuthContext; pending: Reply | Response | Promise<Reply | Response> };

/** A handler of a route whose body has the type `Body`. */
export type Handler<Q extends QuerySpec, Body = unknown> = (c: RouteContext<Q, Body>) => Reply | Response | Promise<Reply | Response>;

export class Router {
  constructor(
    private readonly kit: ApiKit,
    private readonly app: Elysia<any, any, any, any, any, any, any>,
    private readonly prefix: string,
  ) {}

  private add<Q extends QuerySpec>(method: Method, path: string, spec: RouteSpec<Q, any, any>, handler: Handler<Q>): this {
    const full = (this.prefix + path).replace(/\/$/, "") || "/";
    const info = this.kit.register(method, full, spec);
    const fn = ({ request, params }: { request: Request; params: Record<string, string> }) => this.kit.run(spec, handler, request, params ?? {}, info);
    const paths = path === "/" || path === "" ? [""] : [path];
    for (const p of paths) this.app.route(method, p, fn as never, { parse: "none" } as never);
    return this;
  }

  get<Q extends QuerySpec>(path: string, spec: RouteSpec<Q>, h: Handler<Q>) {
    return this.add("GET", path, spec, h);
  }
  /** A POST outside the credential pipeline (signing in): see `ApiKit.runPublic`. */
  publicPost<B extends TSchema>(path: string, spec: PublicRouteSpec<B>, h: PublicHandler<Static<B>>): this {
    const full = (this.prefix + path).replace(/\/$/, "") || "/";
    const info = this.kit.register("POST", full, { ...spec, access: undefined, validationStatus: 400, "x-authentication": spec.authentication } as never);
    const fn = ({ request, params }: { request: Request; params: Record<string, string> }) => this.kit.runPublic(spec, h as PublicHandler, request, params ?? {}, info);
    this.app.route("POST", path, fn as never, { parse: "none" } as never);
    return this;
  }
  post<Q extends QuerySpec, B extends TSchema | undefined = undefined, R = NoReader>(path: string, spec: RouteSpec<Q, B, R>, h: Handler<Q, BodyOf<B, R>>) {
    return this.add("POST", path, spec, h as Handler<Q>);
  }
  put<Q extends QuerySpec, B extends TSchema | undefined = undefined, R = NoReader>(path: string, spec: RouteSpec<Q, B, R>, h: Handler<Q, BodyOf<B, R>>) {
    return this.add("PUT", path, spec, h as Handler<Q>);
  }
  patch<Q extends QuerySpec, B extends TSchema | undefined = undefined, R = NoReader>(path: string, spec: RouteSpec<Q, B, R>, h: Handler<Q, BodyOf<B, R>>) {
    return this.add("PATCH", path, spec, h as Handler<Q>);
  }
  delete<Q extends QuerySpec>(path: string, spec: RouteSpec<Q>, h: Handler<Q>) {
    return this.add("DELETE", path, spec, h);
  }
}
