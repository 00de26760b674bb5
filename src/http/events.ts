// GET /api/v2/events/stream (issue 18): the webhook events as Server-Sent Events, filtered by the key's environment and
// read scopes, resumable by Last-Event-ID from the persisted sequence. The fan-out lives in event-stream.ts.
import { Type } from "@sinclair/typebox";
import { ClientAddresses } from "../adapters/net/client-address.ts";
import { apiError } from "../domain/errors.ts";
import { parseResumePoint, STREAM_GRANTS, streamGrants, streamSettings, type StreamAccess } from "../domain/events.ts";
import { EVENT_TYPES } from "../domain/webhooks.ts";
import type { Logger } from "../adapters/log.ts";
import type { Storage } from "../adapters/storage/index.ts";
import type { Tenancy } from "../adapters/storage/repos/tenancy.ts";
import { authenticate, resolveCompany, type AuthContext } from "./auth.ts";
import { EventStreamHub, StreamRefused } from "./event-stream.ts";
import type { ApiKit, RouteContext, RouteSpec } from "./kit.ts";
import type { QueryParam } from "./query.ts";

export interface EventRouteDeps {
  storage: Storage;
  runtime: { onEvent(fn: (seq: number) => void): () => void };
  tenancy: Tenancy;
  log: Logger;
  ready(): boolean;
  config: { env?: Record<string, string | undefined>; appDomain?: string };
  /** The time a heartbeat's re-check of a session (or a key's expiry) is judged at. */
  clock: () => number;
}

/** How long a client refused for too many open streams is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

const lastEventIdParam: QueryParam<number> = {
  schema: Type.String({ pattern: "^[0-9]{1,15}$", description: "Resume after this event id, for clients that cannot send the Last-Event-ID header (the header wins)" }),
  parse(raw) {
    const r = parseResumePoint(raw, "lastEventId");
    return "seq" in r ? { value: r.seq } : { error: r.issue.message };
  },
};
const query = { lastEventId: lastEventIdParam };

const holds = (auth: AuthContext) => (g: StreamAccess) => auth.key.scopes.has(g.scope) && auth.can(g.permission);

const [firstGrant, ...moreGrants] = STREAM_GRANTS;

/**
 * The route's documented shape; the OpenAPI document reads `sse` to show text/event-stream. Either read grant opens
 * the stream; a key holding neither gets the first one's refusal (transfers:read, named).
 */
const spec: RouteSpec<typeof query> & { sse: unknown } = {
  summary: "Live events (Server-Sent Events): the webhook event bodies of the key's environment that its read scopes cover; resumable with Last-Event-ID",
  access: { anyOf: [firstGrant, ...moreGrants] },
  query,
  tags: ["events"],
  sse: {
    events: EVENT_TYPES.filter((t) => t !== "test.ping"),
    header: { name: "Last-Event-ID", description: "The id of the last event received: the stream resumes after it, nothing lost or repeated" },
  },
};

export function eventRoutes(kit: ApiKit, deps: EventRouteDeps) {
  const clients = ClientAddresses.fromEnv(deps.config.env);
  const settings = streamSettings(deps.config.env ?? {});
  const hub = new EventStreamHub({
    storage: deps.storage,
    onEvent: (fn) => deps.runtime.onEvent(fn),
    ready: () => deps.ready(),
    logger: deps.log,
    settings,
  });
  const handler = (c: RouteContext<typeof query>): Response => {
    let resumeAfter = c.query.lastEventId ?? null;
    const header = c.request.headers.get("last-event-id");
    if (header !== null) {
      const r = parseResumePoint(header, "Last-Event-ID");
      if ("issue" in r) throw apiError("INVALID_QUERY", { message: `Last-Event-ID ${r.issue.message}`, details: { issues: [r.issue] } });
      resumeAfter = r.seq;
    }
    if (resumeAfter !== null) {
      const newest = hub.newestSeq();
      if (resumeAfter > newest) {
        const issue = { path: header !== null ? "Last-Event-ID" : "lastEventId", message: `is after the newest event (${newest}): not an event of this service` };
        throw apiError("INVALID_QUERY", { message: `${issue.path} ${issue.message}`, details: { issues: [issue] } });
      }
      // Retention (CARAVAN_EVENTS_RETENTION) pruned the events up to `pruned`: resuming before it would skip them.
      const pruned = hub.prunedThrough();
      if (resumeAfter < pruned) {
        const issue = { path: header !== null ? "Last-Event-ID" : "lastEventId", message: `is older than the events kept (events up to ${pruned} were removed after the retention window): reconnect without a resume point` };
        throw apiError("INVALID_QUERY", { message: `${issue.path} ${issue.message}`, details: { issues: [issue] } });
      }
    }
    const request = c.request;
    const companyId = c.auth.company.id;
    const keyId = c.auth.key.id;
    let body: ReadableStream<Uint8Array>;
    try {
      body = hub.openStream(
        {
          companyId,
          environment: c.auth.environment,
          keyId,
          grants: streamGrants(holds(c.auth)),
          // Each heartbeat re-reads the key: a revoked key, a suspended company or a lost grant ends the stream.
          recheck: () => {
            try {
              // A session is re-checked as a request would be (ended, expired, another source); an open stream is a use.
              const auth = authenticate(request, resolveCompany(request, deps.tenancy, deps.config.appDomain), deps.tenancy, { now: deps.clock(), source: clients.of(request) });
              const grants = streamGrants(holds(auth));
              return auth.key.id !== keyId || auth.company.id !== companyId || grants.length === 0 ? null : grants;
            } catch {
              return null;
            }
          },
        },
        resumeAfter,
        request,
      );
    } catch (e) {
      if (e instanceof StreamRefused)
        throw apiError("RATE_LIMITED", { message: `Too many open event streams: ${e.message}`, headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } });
      throw e;
    }
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        // Reverse proxies (nginx) pass each event on at once instead of buffering the response.
        "x-accel-buffering": "no",
      },
    });
  };

  return kit.group("/api/v2/events", (r) => r.get("/stream", spec, handler));
}
