// GET /api/v2/events/stream (issue 18): the webhook events as Server-Sent Events, filtered by the key's environment and
// read scopes, resumable by Last-Event-ID from the persisted sequence. The fan-out lives in event-stream.ts.
import { Type } from "@sinclair/typebox";
import { ClientAddresses } from "../adapters/net/client-address.ts";
import { apiError } from "../domain/errors.ts";
import { parseResumePoint, STREAM_GRANTS, streamGrants, streamSettings, type ResumePoint, type StreamAccess } from "../domain/events.ts";
import { EVENT_TYPES } from "../domain/webhooks.ts";
import type { Logger } from "../adapters/log.ts";
import type { EventRepository } from "../ports/events.ts";
import type { TenancyRepository } from "../ports/tenancy.ts";
import type { EventIds } from "../adapters/crypto/event-ids.ts";
import type { Wakeups } from "../ports/cluster.ts";
import type { StreamRegistry } from "../ports/event-streams.ts";
import { authenticate, resolveCompany, type AuthContext } from "./auth.ts";
import { EventStreamHub, StreamRefused } from "./event-stream.ts";
import type { ApiKit, RouteContext, RouteSpec } from "./kit.ts";
import type { QueryParam } from "./query.ts";

export interface EventRouteDeps {
  /** The events port, from the composition root (the stream reads the shared sequence through it). */
  repositories: { readonly events: EventRepository };
  runtime: { onEvent(fn: (seq: number) => void): () => void };
  /** Several nodes (PostgreSQL): hints of other nodes' commits; absent or null on one node (SQLite). */
  wakeups?: Wakeups | null;
  /** Several nodes (PostgreSQL): every node's open streams, for the caps; absent or null on one node (SQLite). */
  streamRegistry?: StreamRegistry | null;
  tenancy: TenancyRepository;
  log: Logger;
  ready(): boolean;
  config: { env?: Record<string, string | undefined>; appDomain?: string };
  /** Event IDs per company and environment (the shared sequence, enciphered). */
  eventIds: EventIds;
  /** The time a heartbeat's re-check of a session (or a key's expiry) is judged at. */
  clock: () => number;
}

/** How long a client refused for too many open streams is asked to wait. */
const RETRY_AFTER_SECONDS = 5;

const lastEventIdParam: QueryParam<ResumePoint> = {
  schema: Type.String({ pattern: "^(0|[A-Za-z0-9_-]{22})$", description: "Resume after this event id (0: from the first event kept), for clients that cannot send the Last-Event-ID header (the header wins)" }),
  parse(raw) {
    const r = parseResumePoint(raw, "lastEventId");
    return "point" in r ? { value: r.point } : { error: r.issue.message };
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
    events: deps.repositories.events,
    onEvent: (fn) => deps.runtime.onEvent(fn),
    wakeups: deps.wakeups ?? null,
    registry: deps.streamRegistry ?? null,
    ready: () => deps.ready(),
    logger: deps.log,
    settings,
    ids: deps.eventIds,
  });
  const handler = async (c: RouteContext<typeof query>): Promise<Response> => {
    let point: ResumePoint | null = c.query.lastEventId ?? null;
    const header = c.request.headers.get("last-event-id");
    if (header !== null) {
      const r = parseResumePoint(header, "Last-Event-ID");
      if ("issue" in r) throw apiError("INVALID_QUERY", { message: `Last-Event-ID ${r.issue.message}`, details: { issues: [r.issue] } });
      point = r.point;
    }
    const path = header !== null ? "Last-Event-ID" : "lastEventId";
    const refuse = (message: string): never => {
      const issue = { path, message };
      throw apiError("INVALID_QUERY", { message: `${path} ${message}`, details: { issues: [issue] } });
    };
    let resumeAfter: number | null = null;
    if (point !== null) {
      // The ID deciphers to the seq only under this company's and environment's key; nothing about the shared
      // sequence (its newest seq, what retention removed) is told in a refusal, so an ID cannot be probed for it.
      const seq = "start" in point ? 0 : hub.seqOf(c.auth.company.id, c.auth.environment, point.id);
      if (seq === null || seq > (await hub.newestSeq())) refuse("is not the id of an event received on this stream (another environment, company or database?)");
      resumeAfter = seq!;
      // Retention (CARAVAN_EVENTS_RETENTION) pruned events before this point: resuming there would skip them.
      if (resumeAfter < (await hub.prunedThrough())) refuse("is older than the events kept (events before it were removed after the retention window): reconnect without a resume point");
    }
    const request = c.request;
    const companyId = c.auth.company.id;
    const keyId = c.auth.key.id;
    let body: ReadableStream<Uint8Array>;
    try {
      body = await hub.openStream(
        {
          companyId,
          environment: c.auth.environment,
          keyId,
          grants: streamGrants(holds(c.auth)),
          // Each heartbeat re-reads the key: a revoked key, a suspended company or a lost grant ends the stream.
          recheck: () => {
            const judge = (auth: AuthContext) => {
              const grants = streamGrants(holds(auth));
              return auth.key.id !== keyId || auth.company.id !== companyId || grants.length === 0 ? null : grants;
            };
            try {
              // A session is re-checked as a request would be (ended, expired, another source); an open stream is a use.
              const company = resolveCompany(request, deps.tenancy, deps.config.appDomain);
              const check = { now: deps.clock(), source: clients.of(request) };
              if (company instanceof Promise) return company.then((co) => authenticate(request, co, deps.tenancy, check)).then(judge, () => null);
              const auth = authenticate(request, company, deps.tenancy, check);
              return auth instanceof Promise ? auth.then(judge, () => null) : judge(auth);
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
