// IntegrationActor (`integration:<company>:<env>:<name>`): one screening integration's circuit breaker in one environment
// (Part 3 "screening_c screening"). Its state is durable, so an open breaker stays open across a restart.
import type { ActorKind } from "./types.ts";
import type { Environment } from "../domain/types.ts";
import type { IntegrationName } from "../domain/providers/catalog.ts";
import { CLOSED, permit, record, type BreakerState } from "../domain/screening/breaker.ts";

export interface IntegrationState {
  breaker: BreakerState;
  /** Checks let through and checks skipped because the breaker was open (for the console and tests). */
  permitted: number;
  skipped: number;
}

export type IntegrationMsg =
  /** Before a check calls the vendor: reply `{ allowed, openUntil }`; not allowed while the breaker is open. */
  | { type: "permit" }
  /**
   * A check that called the vendor ended (`ok`: it succeeded) at `at` (ms since epoch: the breaker counts failures by
   * when they happened, not by when this message is handled); reply `{ phase }`.
   */
  | { type: "outcome"; ok: boolean; at?: number };

export function integrationAddress(companyId: string, env: Environment, name: IntegrationName): string {
  return `integration:${companyId}:${env}:${name}`;
}

export function integrationActor(): ActorKind<IntegrationState, IntegrationMsg> {
  return {
    kind: "integration",
    initialState: () => ({ breaker: { ...CLOSED }, permitted: 0, skipped: 0 }),
    handle(ctx, msg) {
      const s = ctx.state;
      switch (msg.type) {
        case "permit": {
          const p = permit(s.breaker, ctx.now);
          s.breaker = p.state;
          if (p.allowed) s.permitted++;
          else s.skipped++;
          // `openUntil` lets the screening service skip without asking again until then (the state stays here).
          ctx.reply({ allowed: p.allowed, openUntil: p.allowed ? null : p.state.openUntil });
          return;
        }
        case "outcome":
          s.breaker = record(s.breaker, msg.ok === true, msg.at ?? ctx.now);
          ctx.reply({ phase: s.breaker.phase });
          return;
        default: {
          const _: never = msg;
          ctx.reply({ error: "unknown message" });
        }
      }
    },
  };
}
