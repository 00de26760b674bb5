// OpenAPI 3.1 generated from the route registry and the same TypeBox schemas that validate requests.
import type { ApiKit } from "./kit.ts";
import { BODY_DOCS, exampleOf } from "./openapi-bodies.ts";
import { PROVIDER_B_CALLBACKS } from "../domain/provider_b/endpoints.ts";
import { NOT_CARRIED } from "./callbacks/not-carried.ts";
import { EVENTS as PROVIDER_E_CALLBACK_EVENTS } from "./callbacks/provider_e.ts";

const envelope = {
  type: "object",
  required: ["data", "meta"],
  properties: {
    data: {},
    meta: {
      type: "object",
      required: ["apiVersion", "timestamp"],
      properties: { apiVersion: { const: 2 }, timestamp: { type: "string", format: "date-time" }, piiMasked: { type: "boolean" } },
    },
  },
};

const errorEnvelope = {
  type: "object",
  required: ["error", "code", "meta"],
  properties: { error: { type: "string" }, code: { type: "string" }, details: { type: "object" }, meta: envelope.properties.meta },
};

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
      responses: {
        "200": { description: "Success", content: { "application/json": { schema: { $ref: "#/components/schemas/Envelope" } } } },
        default: { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
      },
    };
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
    } else op.security = [];
    const docs = BODY_DOCS[`${r.method} ${r.path}`];
    const schema = r.spec.body ?? docs?.schema;
    if (schema && !docs?.none) op.requestBody = { required: true, content: { "application/json": { schema, example: docs?.example ?? exampleOf(schema) } } };
    else if (docs?.none) op["x-request-body"] = "none";
    const sse = (r.spec as { sse?: SseDoc }).sse;
    if (sse) describeStream(op, sse, params);
    (paths[oaPath] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: { title: "Caravan Travel Rule API", version: "2" },
    components: {
      securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "x-api-key" } },
      schemas: { Envelope: envelope, Error: errorEnvelope },
    },
    paths,
  };
}
