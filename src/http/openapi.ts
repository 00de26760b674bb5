// OpenAPI 3.1 generated from the route registry and the same TypeBox schemas that validate requests.
import type { ApiKit } from "./kit.ts";

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
    if (r.spec.body) op.requestBody = { required: true, content: { "application/json": { schema: r.spec.body } } };
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
