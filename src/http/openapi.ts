// OpenAPI 3.1 generated from the route registry and the API contract (`src/api/`): the same TypeBox schemas that
// validate request bodies, and the answers' schemas that the contract test checks real answers against.
import type { TSchema } from "@sinclair/typebox";
import type { ApiKit, RouteInfo } from "./kit.ts";
import { ErrorEnvelope, Meta, ROUTES, type RouteContract } from "../api/index.ts";
import { ERRORS, type ErrorCode } from "../domain/errors.ts";
import { requirementsOf, type Access, type Requirement, type ScopedAccess } from "./auth.ts";
import { PROVIDER_B_CALLBACKS } from "../domain/provider_b/endpoints.ts";
import { NOT_CARRIED } from "./callbacks/not-carried.ts";
import { EVENTS as PROVIDER_E_CALLBACK_EVENTS } from "./callbacks/provider_e.ts";

/** Any success: `{ data, meta }` (a route with its own answer schema names it). */
const envelope = { type: "object", required: ["data", "meta"], properties: { data: {}, meta: Meta } };

/**
 * A JSON Schema of a TypeBox schema: TypeBox's own markers (symbols) are not JSON and drop out, and a choice of text
 * values (a union of string constants) reads as the usual `{ type: "string", enum: [...] }`.
 */
const plain = (s: TSchema): Record<string, unknown> =>
  JSON.parse(JSON.stringify(s), (_key, v) => {
    if (v && typeof v === "object" && Array.isArray(v.anyOf) && v.anyOf.length > 0 && v.anyOf.every((b: any) => typeof b?.const === "string" && Object.keys(b).every((k) => k === "const" || k === "type"))) {
      const { anyOf, ...rest } = v;
      return { type: "string", enum: anyOf.map((b: { const: string }) => b.const), ...rest };
    }
    return v;
  });

/** A plain example built from a schema, for a write route with a schema and no example of its own. */
export function exampleOf(s: unknown, depth = 0): unknown {
  if (!s || typeof s !== "object" || depth > 6) return null;
  const x = s as Record<string, any>;
  if (x.examples?.length) return x.examples[0];
  if (x.default !== undefined) return x.default;
  if (x.const !== undefined) return x.const;
  if (Array.isArray(x.enum)) return x.enum[0];
  const branch = x.anyOf ?? x.oneOf;
  if (Array.isArray(branch)) return exampleOf(branch.find((b: any) => b?.type !== "null") ?? branch[0], depth + 1);
  switch (x.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const k of x.required ?? Object.keys(x.properties ?? {}).slice(0, 1)) out[k] = exampleOf(x.properties?.[k], depth + 1);
      return out;
    }
    case "array":
      return [exampleOf(x.items, depth + 1)];
    case "string":
      return "text";
    case "integer":
    case "number":
      return x.minimum ?? 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}

/** Routes outside the API-key pipeline (health, provider callbacks), listed so the document names every route. */
export interface OtherRoute {
  method: string;
  path: string;
  summary: string;
  tags: string[];
  /** How the caller is authenticated, in words (callbacks: the provider's own rules, Part 3). */
  authentication: string;
  /** A callback of a provider Caravan cannot carry yet: always refused. */
  notCarried?: true;
}

const PROVIDER_E_SUMMARIES: Record<string, string> = {
  "permission-request": "an originating VASP's permission request (IVMS101 encrypted for the company's key): an incoming transfer",
  "address-validation": "is this address a verified wallet of an active, verified customer? (answered signed)",
  txid: "the originator's transaction ID: completes an incoming transfer the company accepted",
  cancel: "the originator cancels an incoming transfer: rejected",
  cdd: "an information request, answer or unasked information about a transfer",
  permission: "the beneficiary VASP's decision on an outgoing transfer; its URL, with the transfer ID and a token, goes in each permission request (not listed in callbackPaths)",
};
/** The events the provider_e callback routes serve (one route each), described. */
const PROVIDER_E_EVENTS = PROVIDER_E_CALLBACK_EVENTS.map((event) => ({ event, summary: PROVIDER_E_SUMMARIES[event] ?? event }));

/** Every route outside the API-key pipeline: health and each provider's callbacks (Part 3 "Callback paths"). */
export function systemRoutes(): OtherRoute[] {
  const trp = "/api/system/trp";
  return [
    { method: "GET", path: "/healthz", summary: "200 {status: ok} once migrations are applied and the actors run; 503 {status: starting} before; 503 {status: storage_unavailable} while the storage refuses writes", tags: ["meta"], authentication: "none" },
    {
      method: "POST",
      path: `${trp}/provider_a/{environment}/{providerId}`,
      summary: "provider_a callback: webhook events (read back from the provider, recorded as processed after success)",
      tags: ["callbacks"],
      authentication: "Standard Webhooks signature with webhookSecret, timestamp within five minutes",
    },
    ...PROVIDER_B_CALLBACKS.map((c) => ({
      method: c.method,
      path: `${trp}/provider_b/{environment}/connections/{providerId}/${c.path}`,
      summary: `provider_b callback: ${c.label}`,
      tags: ["callbacks"],
      authentication: "source address (PROVIDER_B_ALLOWED_IPS), sender headers, crypto_box payloads",
    })),
    ...PROVIDER_E_EVENTS.map((e) => ({
      method: "POST",
      path: `${trp}/provider_e/{environment}/{providerId}/${e.event}`,
      summary: `provider_e callback: ${e.summary}`,
      tags: ["callbacks"],
      authentication:
        e.event === "permission"
          ? "the transfer ID and token of the URL, the decision signed by the beneficiary VASP and matching the provider's signed status"
          : "the environment's provider_e credentials; each event checked against the transfer's status read from the provider, signed with bridgePublicKey",
    })),
    {
      method: "POST",
      path: `${trp}/provider_d/{environment}/{providerId}`,
      summary:
        "provider_d (TRP v3) callback: `?t=i&ta=<token>` a transfer inquiry at our Travel Address (answered `{approved}`, `{rejected}` or `{version}`), `?resolution=<token>` the decision on our acknowledged inquiry, `?confirmation=<token>` the `{txid}` or `{canceled}` of a transfer we approved (204)",
      tags: ["callbacks"],
      authentication:
        "mutual TLS: the client certificate (Caravan's TRP listener, or a trusted proxy's X-Client-Cert / X-Forwarded-Client-Cert) issued by an accepted CA and owned by a known counterparty, checked before the body; then api-version 3.x and a UUID request-identifier",
    },
    ...["version", "uptime", "extensions", "identity"].map((what) => ({
      method: "GET",
      path: `${trp}/provider_d/{environment}/{providerId}/${what}`,
      summary: `provider_d (TRP discoverability): /${what}`,
      tags: ["callbacks"],
      authentication: "none: public facts of the endpoint",
    })),
    ...NOT_CARRIED.map((c) => ({
      method: c.method,
      path: c.template,
      summary: `${c.provider} callback (${c.label}): refused with 503 {error: Provider unavailable, code: PROVIDER_NOT_SUPPORTED} while Caravan cannot carry ${c.provider} transfers`,
      tags: ["callbacks"],
      authentication: "none taken: nothing is processed",
      notCarried: true as const,
    })),
  ];
}

/** A Server-Sent Events route (the event stream): its events and the resume header. */
interface SseDoc {
  events: string[];
  header: { name: string; description: string };
}

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const RETRY_AFTER = { "Retry-After": { description: "Seconds after which a retry may succeed", schema: { type: "integer", minimum: 1 } } };

function describeStream(op: Record<string, unknown>, sse: SseDoc, params: unknown[]): void {
  params.push({ name: sse.header.name, in: "header", required: false, description: sse.header.description, schema: { type: "string", pattern: "^(0|[A-Za-z0-9_-]{22})$" } });
  op["x-scopes-filter"] = "transfer.* and compliance.* events need transfers:read (role transfers:view); case.* events need cases:read (role cases:view)";
  (op.responses as Record<string, unknown>)["200"] = {
    description:
      "An endless text/event-stream: each message is `id: <seq>`, `event: <type>`, `data: <the webhook body JSON {event, timestamp, data}>`; `: ping` comment lines every 15 s; closed when the client falls 1 MiB behind (resume with Last-Event-ID)",
    content: {
      "text/event-stream": {
        schema: { type: "string" },
        "x-events": sse.events,
        "x-data-schema": { type: "object", required: ["event", "timestamp", "data"], properties: { event: { enum: sse.events }, timestamp: { type: "string", format: "date-time" }, data: { type: "object" } } },
      },
    },
  };
}

const words = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/**
 * The operation's ID, derived from its method and path so it never drifts and is unique by construction: the method,
 * then each path segment in PascalCase (a parameter as `By<Name>`), without the `/api/v2` (or `/api`) prefix.
 * `POST /api/v2/transfers/:id/information-requests` → `postTransfersByIdInformationRequests`.
 */
export function operationIdOf(method: string, path: string): string {
  const segments = path.replace(/^\/api\/v2(?=\/|$)/, "").replace(/^\/api(?=\/)/, "").split("/").filter(Boolean);
  return method.toLowerCase() + segments.map((seg) => (/^[:{]/.test(seg) ? `By${words(seg.replace(/[:{}]/g, ""))}` : words(seg))).join("");
}

/**
 * The error answers of one status: the codes it carries (with the catalogue's message), typed by their `code`; where
 * the route also passes on a provider's own code, `code` is any text.
 */
function errorResponse(status: number, codes: readonly ErrorCode[], providerCodes: boolean): Record<string, unknown> {
  const said = codes.map((c) => `\`${c}\`: ${ERRORS[c].message}`);
  if (providerCodes) said.push("or the provider's own refusal code, passed on");
  const code = providerCodes ? { type: "string" } : { type: "string", enum: [...codes] };
  const out: Record<string, unknown> = {
    description: said.join("; "),
    content: { "application/json": { schema: { allOf: [ERROR_REF, { type: "object", required: ["code"], properties: { code } }] } } },
  };
  if (status === 429 || status === 503) out.headers = RETRY_AFTER;
  return out;
}

/** What the key needs, in the order it is checked, with each refusal (`x-requirements`); and a sentence of it. */
function describeAccess(op: Record<string, unknown>, access: Access | undefined): void {
  if (!access) {
    op.security = [];
    return;
  }
  if ("anyValidKey" in access) {
    op.security = [{ ApiKey: [] }];
    op["x-scope"] = "any valid key";
    op["x-requirements"] = [];
    return;
  }
  const entries: readonly ScopedAccess[] = "anyOf" in access ? access.anyOf : [access];
  const lists = entries.map((e) => requirementsOf(e));
  // One security requirement per alternative: OpenAPI reads a list of them as "any one of".
  op.security = lists.map((list) => ({ ApiKey: list.filter((r) => r.kind === "scope").map((r) => r.name) }));
  // A dashboard power: a member's console session (docs/api.md, "Keys and sessions"); an API key is refused.
  if (entries.some((a) => a.officer)) (op.security = [{ Session: [] }]), (op["x-officer-session-required"] = true);
  op["x-scope"] = entries.map((a) => (a.officer ? "a member's console session (no API key)" : a.scope)).join(" or ");
  op["x-permission"] = entries.map((a) => a.permission).join(" or ");
  if (entries.every((a) => a.liveOnly)) op["x-live-key-required"] = true;
  const listed = lists.map((list) => list.map((r) => ({ [r.kind]: r.name, refusal: r.code })));
  op["x-requirements"] = listed.length === 1 ? listed[0] : { anyOf: listed };
  const conditional = entries.flatMap((e) => e.conditional ?? []);
  if (conditional.length) op["x-conditional-requirements"] = conditional.map((c) => ({ permission: c.permission, when: c.when, refusal: "INSUFFICIENT_PERMISSION" }));
  const say = (list: Requirement[]) => {
    const scopes = list.filter((r) => r.kind === "scope").map((r) => `${r.name} (else ${r.code})`);
    const perms = list.filter((r) => r.kind === "permission").map((r) => `${r.name} (else ${r.code})`);
    const rest = list.filter((r) => r.kind === "feature" || r.kind === "live").map((r) => `${r.kind === "live" ? "a live key" : `the plan feature ${r.name}`} (else ${r.code})`);
    const officer = list.some((r) => r.kind === "officer") ? ["a member's console session, never an API key (else OFFICER_SESSION_REQUIRED)"] : [];
    return [...officer, ...(scopes.length ? [`the key's scopes ${scopes.join(", ")}`] : []), `the role's permissions ${perms.join(", ")}`, ...rest].join("; then ");
  };
  const also = conditional.map((c) => `${c.permission} when ${c.when} (else INSUFFICIENT_PERMISSION)`);
  op.description = `Needs, checked in this order (the first missing one is refused): ${lists.map(say).join(" — or — ")}.${also.length ? ` Also the role's ${also.join("; ")}.` : ""}`;
}

/** Every response of a pipeline route: each success status, then each refusal status with its codes. */
function describeResponses(op: Record<string, unknown>, r: RouteInfo, contract: RouteContract | undefined): void {
  const responses: Record<string, unknown> = {};
  const media = contract?.media ?? "application/json";
  for (const [status, s] of r.answers.successes) {
    const schema = media === "application/json" ? (s.answer ? plain(s.answer) : { $ref: "#/components/schemas/Envelope" }) : { type: "string", format: "binary" };
    responses[String(status)] = { description: s.description, content: { [media]: { schema } } };
  }
  for (const [status, codes] of [...r.answers.refusals].sort((a, b) => a[0] - b[0])) responses[String(status)] = errorResponse(status, codes, r.answers.providerCodes.has(status));
  op.responses = responses;
}

/** The fixed answers of routes outside the API-key pipeline. */
function otherResponses(o: OtherRoute): Record<string, unknown> {
  const nul = { description: "A NUL character (U+0000) in path or query (VALIDATION_ERROR)", content: { "application/json": { schema: ERROR_REF } } };
  if (o.path === "/healthz")
    return {
      "200": { description: "Ready: migrations applied and the actors run", content: { "application/json": { schema: { type: "object", required: ["status"], properties: { status: { const: "ok" } } } } } },
      "400": nul,
      "503": { description: "Starting (or stopping): not ready to serve", content: { "application/json": { schema: { type: "object", required: ["status"], properties: { status: { const: "starting" } } } } } },
    };
  const notFound = { description: "No such callback for the company: another environment, provider ID or host", content: { "application/json": { schema: { type: "object" } } } };
  if (o.notCarried)
    return {
      "404": notFound,
      "503": { description: "Caravan cannot carry this provider's transfers yet: nothing is processed", content: { "application/json": { schema: { type: "object", required: ["error", "code"], properties: { error: { type: "string" }, code: { const: "PROVIDER_NOT_SUPPORTED" }, message: { type: "string" } } } } } },
    };
  return {
    "200": { description: "Processed: the provider's own answer format (see the provider's page in docs/providers/)" },
    "404": notFound,
    "4XX": { description: "Refused in the provider's own format: not authenticated, unreadable, over the size or rate limit" },
    "5XX": { description: "Temporarily unable to process; the provider retries" },
  };
}

/** Where the API is served: the same origin as this document (paths start with /api/v2); with CARAVAN_APP_DOMAIN, each company's host. */
function serversOf(appDomain: string | undefined): unknown[] {
  const here = { url: "/", description: "The origin this document was fetched from (every path starts with /api/v2)" };
  if (!appDomain) return [here];
  return [
    here,
    { url: `https://{company}.${appDomain}`, description: "A company's host: its slug under the application domain", variables: { company: { default: "default", description: "The company's slug" } } },
  ];
}

export function openApiDocument(kit: ApiKit, others: readonly OtherRoute[] = [], options: { appDomain?: string } = {}) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const o of others) {
    const params = [...o.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    (paths[o.path] ??= {})[o.method.toLowerCase()] = {
      operationId: operationIdOf(o.method, o.path),
      summary: o.summary,
      tags: o.tags,
      parameters: params,
      security: [],
      "x-authentication": o.authentication,
      responses: otherResponses(o),
    };
  }
  for (const r of kit.routes) {
    const oaPath = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const params: unknown[] = [];
    for (const m of r.path.matchAll(/:([A-Za-z_]+)/g)) params.push({ name: m[1], in: "path", required: true, schema: { type: "string" } });
    for (const [name, p] of Object.entries(r.spec.query ?? {})) params.push({ name, in: "query", required: false, schema: (p as { schema: unknown }).schema });
    const contract = ROUTES[`${r.method} ${r.path}`];
    for (const [name, h] of Object.entries(contract?.headers ?? {})) params.push({ name, in: "header", required: false, description: h.description, schema: plain(h.schema) });
    if (r.path.startsWith("/api/v2/")) params.push({ $ref: "#/components/parameters/RequestId" });
    const op: Record<string, unknown> = {
      operationId: operationIdOf(r.method, r.path),
      summary: r.spec.summary,
      tags: r.spec.tags,
      parameters: params,
    };
    describeAccess(op, r.spec.access);
    describeResponses(op, r, contract);
    const publicAuth = (r.spec as { "x-authentication"?: string })["x-authentication"];
    if (publicAuth) op["x-authentication"] = publicAuth;
    const body = r.spec.body ?? contract?.body;
    if (body && !contract?.none) {
      const schema = plain(body);
      op.requestBody = { required: true, content: { "application/json": { schema, example: contract?.example ?? exampleOf(schema) } } };
    } else if (contract?.none) op["x-request-body"] = "none";
    const sse = (r.spec as { sse?: SseDoc }).sse;
    if (sse) describeStream(op, sse, params);
    (paths[oaPath] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Caravan Travel Rule API",
      version: "2",
      description: "Every route Caravan serves: /api/v2 with an API key (x-api-key), and the routes outside it (health, provider callbacks). Generated from the route registry the server runs.",
    },
    servers: serversOf(options.appDomain),
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "An API key (crv_test_… or crv_live_…); the scopes listed per operation are the key's scopes it needs" },
        Session: { type: "http", scheme: "bearer", description: "A member's console session token (crv_sess_…)" },
      },
      parameters: {
        RequestId: { name: "x-request-id", in: "header", required: false, description: "Optional: your own request ID; an unexpected error (500) is logged with it, so an operator can find the request", schema: { type: "string" } },
      },
      schemas: { Envelope: envelope, Error: plain(ErrorEnvelope) },
    },
    paths,
  };
}

// The contract's error codes are the catalogue's, both ways: a code added to one and not the other fails `bun run check`.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const ERROR_CODES_AGREE: Same<import("../domain/errors.ts").ErrorCode, import("../api/errors.ts").ErrorCode> = true;
