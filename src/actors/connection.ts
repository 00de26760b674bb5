// ConnectionActor (`connection:<company>:<env>:<provider>`): owns one provider connection's state read from the peer:
// its directory of VASPs (names, health, public keys), the connection's health, and the count of directory reads.
import type { ActorKind } from "./types.ts";
import type { Environment } from "../domain/types.ts";
import type { Protocol } from "../domain/transfers.ts";
import type { ProviderRegistry } from "../adapters/providers/registry.ts";
import type { DirectoryEntry, DirectoryRead } from "../adapters/providers/types.ts";
import { take } from "../domain/ratelimit.ts";

/** A directory is read from the peer at most this often; transfers in between use the kept copy. */
export const DIRECTORY_MAX_AGE_MS = 60_000;

export interface ConnectionState {
  directory: { fetchedAt: number; datedAt?: number; vasps: DirectoryEntry[] } | null;
  health: "unknown" | "up" | "down";
  lastError: string | null;
  reads: number;
  /** Outbound calls: a token bucket (the connection's rate) and the count granted. */
  bucket: { tokens: number; at: number } | null;
  calls: number;
}

export type ConnectionMsg =
  | { type: "directory"; companyId: string; environment: Environment; provider: Protocol; refresh?: boolean }
  /** Before an outbound call: how long to wait so the connection keeps its rate. */
  | { type: "permit"; companyId: string; environment: Environment; provider: Protocol };

/** Outbound calls per second to one provider connection, with a burst of the same size. */
export const CALLS_PER_SECOND = 20;

export function connectionAddress(companyId: string, env: Environment, provider: Protocol): string {
  return `connection:${companyId}:${env}:${provider}`;
}

export function connectionActor(registry: () => ProviderRegistry): ActorKind<ConnectionState, ConnectionMsg> {
  return {
    kind: "connection",
    initialState: () => ({ directory: null, health: "unknown", lastError: null, reads: 0, bucket: null, calls: 0 }),
    async handle(ctx, msg) {
      const s = ctx.state;
      if (msg.type === "permit") {
        const r = take(s.bucket ?? undefined, { limit: CALLS_PER_SECOND, windowSeconds: 1 }, ctx.now);
        // A call that must wait takes its token now: it is granted at the time told.
        const waitMs = r.ok ? 0 : Math.ceil((1 - r.bucket.tokens) * (1000 / CALLS_PER_SECOND));
        s.bucket = r.ok ? r.bucket : { tokens: r.bucket.tokens - 1, at: ctx.now };
        s.calls++;
        ctx.reply({ waitMs });
        return;
      }
      if (!msg.refresh && s.directory && ctx.now - s.directory.fetchedAt < DIRECTORY_MAX_AGE_MS) {
        const { vasps, fetchedAt, datedAt } = s.directory;
        ctx.reply({ ok: true, vasps, fetchedAt, ...(datedAt !== undefined ? { datedAt } : {}) } satisfies DirectoryRead);
        return;
      }
      const reg = registry();
      const adapter = reg.adapter(msg.provider);
      // The adapter context without `directory`: this actor is where the directory is read.
      const actx = (await (reg as { plainContext?: ProviderRegistry["context"] }).plainContext?.(msg.companyId, msg.environment, msg.provider, ctx.now)) ?? (await reg.context(msg.companyId, msg.environment, msg.provider, ctx.now));
      if (!adapter?.readDirectory || !actx) {
        ctx.reply({ ok: false, code: "NOT_CONFIGURED" } satisfies DirectoryRead);
        return;
      }
      // This actor's own reads use the plain client: a permit asked of itself here would wait on itself.
      const { directory: _ignored, ...plain } = actx;
      const read = await adapter.readDirectory(plain);
      s.reads++;
      s.calls++;
      if (read.ok) {
        s.directory = { fetchedAt: read.fetchedAt, vasps: read.vasps, ...(read.datedAt !== undefined ? { datedAt: read.datedAt } : {}) };
        s.health = "up";
        s.lastError = null;
      } else {
        s.health = "down";
        s.lastError = read.code;
      }
      ctx.reply(read);
    },
  };
}
