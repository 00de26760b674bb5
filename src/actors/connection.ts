// ConnectionActor (`connection:<company>:<env>:<provider>`): owns one provider connection's state read from the peer:
// its directory of VASPs (names, health, public keys), the connection's health, and the count of directory reads.
import type { ActorKind } from "./types.ts";
import type { Environment } from "../domain/types.ts";
import type { Protocol } from "../domain/transfers.ts";
import type { ProviderRegistry } from "../adapters/providers/registry.ts";
import type { DirectoryEntry, DirectoryRead } from "../adapters/providers/types.ts";

/** A directory is read from the peer at most this often; transfers in between use the kept copy. */
export const DIRECTORY_MAX_AGE_MS = 60_000;

export interface ConnectionState {
  directory: { fetchedAt: number; vasps: DirectoryEntry[] } | null;
  health: "unknown" | "up" | "down";
  lastError: string | null;
  reads: number;
}

export type ConnectionMsg = { type: "directory"; companyId: string; environment: Environment; provider: Protocol; refresh?: boolean };

export function connectionAddress(companyId: string, env: Environment, provider: Protocol): string {
  return `connection:${companyId}:${env}:${provider}`;
}

export function connectionActor(registry: () => ProviderRegistry): ActorKind<ConnectionState, ConnectionMsg> {
  return {
    kind: "connection",
    initialState: () => ({ directory: null, health: "unknown", lastError: null, reads: 0 }),
    async handle(ctx, msg) {
      const s = ctx.state;
      if (!msg.refresh && s.directory && ctx.now - s.directory.fetchedAt < DIRECTORY_MAX_AGE_MS) {
        ctx.reply({ ok: true, vasps: s.directory.vasps, fetchedAt: s.directory.fetchedAt } satisfies DirectoryRead);
        return;
      }
      const reg = registry();
      const adapter = reg.adapter(msg.provider);
      // The adapter context without `directory`: this actor is where the directory is read.
      const actx = reg.context(msg.companyId, msg.environment, msg.provider, ctx.now);
      if (!adapter?.readDirectory || !actx) {
        ctx.reply({ ok: false, code: "NOT_CONFIGURED" } satisfies DirectoryRead);
        return;
      }
      const { directory: _ignored, ...plain } = actx;
      const read = await adapter.readDirectory(plain);
      s.reads++;
      if (read.ok) {
        s.directory = { fetchedAt: read.fetchedAt, vasps: read.vasps };
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
