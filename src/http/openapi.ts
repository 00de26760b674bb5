// OpenAPI 3.1 generated from the route registry and the API contract (`src/api/`): the same TypeBox schemas that
// validate request bodies, and the answers' schemas that the contract test checks real answers against.
import type { TSchema } from "@sinclair/typebox";
import type { ApiKit } from "./kit.ts";
import { ErrorEnvelope, Meta, ROUTES } from "../api/index.ts";
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
    { method: "GET", path: "/healthz", summary: "200 {status: ok} once migrations are applied and the actors run; 503 {status: starting} before", tags: ["meta"], authentication: "none" },
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
    ...NOT_CARRIED.map((c) => ({
      method: c.method,
      path: c.template,
      summary: `${c.provider} callback (${c.label}): refused with 503 {error: Provider unavailable, code: PROVIDER_NOT_SUPPORTED} while Caravan cannot carry ${c.provider} transfers`,
      tags: ["callbacks"],
      authentication: "none taken: nothing is processed",
    })),
  ];
}

/** A Server-Sent Events route (the event stream): its events and the resume header. */
interface SseDoc {
  events: string[];
  header: { name: string; description: string };
}

function describeStream(op: Record<string, unknown>, sse: SseDoc, params: unknown[]): void {
  params.push({ name: sse.header.name, in: "header", required: false, description: sse.header.description, schema: { type: "string", pattern: "^[0-9]{1,15}$" } });
  op["x-scopes-filter"] = "transfer.* and compliance.* events need transfers:read (role transfers:view); case.* events need cases:read (role cases:view)";
  op.responses = {
    "200": {
      description:
        "An endless text/event-stream: each message is `id: <seq>`, `event: <type>`, `data: <the webhook body JSON {event, timestamp, data}>`; `: ping` comment lines every 15 s; closed when the client falls 1 MiB behind (resume with Last-Event-ID)",
      content: {
        "text/event-stream": {
          schema: { type: "string" },
          "x-events": sse.events,
          "x-data-schema": { type: "object", required: ["event", "timestamp", "data"], properties: { event: { enum: sse.events }, timestamp: { type: "string", format: "date-time" }, data: { type: "object" } } },
        },
      },
    },
    "429": { description: "Too many open streams for the company (RATE_LIMITED, Retry-After)", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    default: { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
  };
}

export function openApiDocument(kit: ApiKit, others: readonly OtherRoute[] = []) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const o of others) {
    const params = [...o.path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    (paths[o.path] ??= {})[o.method.toLowerCase()] = {
      summary: o.summary,
      tags: o.tags,
      parameters: params,
      security: [],
      "x-authentication": o.authentication,
      responses: { default: { description: "See the summary" } },
    };
  }
  for (const r of kit.routes) {
    const oaPath = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const params: unknown[] = [];
    for (const m of r.path.matchAll(/:([A-Za-z_]+)/g)) params.push({ name: m[1], in: "path", required: true, schema: { type: "string" } });
    for (const [name, p] of Object.entries(r.spec.query ?? {})) params.push({ name, in: "query", required: false, schema: (p as { schema: unknown }).schema });
    const op: Record<string, unknown> = {
      summary: r.spec.summary,
      tags: r.spec.tags,
      parameters: params,
      responses: {} as Record<string, unknown>,
    };
    const contract = ROUTES[`${r.method} ${r.path}`];
    const answer = contract?.answer ? plain(contract.answer) : { $ref: "#/components/schemas/Envelope" };
    (op.responses as Record<string, unknown>)[String(contract?.status ?? 200)] = { description: "Success", content: { "application/json": { schema: answer } } };
    (op.responses as Record<string, unknown>).default = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
    const access = r.spec.access;
    if (access && "anyValidKey" in access) {
      op.security = [{ ApiKey: [] }];
      op["x-scope"] = "any valid key";
    } else if (access && "anyOf" in access) {
      // One entry suffices: "transfers:read or cases:read".
      op.security = [{ ApiKey: [] }];
      op["x-scope"] = access.anyOf.map((a) => a.scope).join(" or ");
      op["x-permission"] = access.anyOf.map((a) => a.permission).join(" or ");
      if (access.anyOf.every((a) => a.liveOnly)) op["x-live-key-required"] = true;
    } else if (access) {
      op.security = [{ ApiKey: [] }];
      op["x-scope"] = access.scope;
      op["x-permission"] = access.permission;
      if (access.liveOnly) op["x-live-key-required"] = true;
      // A dashboard power: a member's console session (docs/api.md, "Keys and sessions"); an API key is refused.
      if (access.officer) (op.security = [{ Session: [] }]), (op["x-officer-session-required"] = true);
    } else op.security = [];
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
    info: { title: "Caravan Travel Rule API", version: "2" },
    components: {
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "x-api-key" }, Session: { type: "http", scheme: "bearer", description: "A member's console session token (crv_sess_…)" } },
      schemas: { Envelope: envelope, Error: plain(ErrorEnvelope) },
    },
    paths,
  };
}

// The contract's error codes are the catalogue's, both ways: a code added to one and not the other fails `bun run check`.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const ERROR_CODES_AGREE: Same<import("../domain/errors.ts").ErrorCode, import("../api/errors.ts").ErrorCode> = true;
