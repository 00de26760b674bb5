// The screening service: one integration's check of a checkpoint's subjects, with the environment's credentials, the
// enabled switch, the circuit breaker (integration actor) and a bounded number of concurrent vendor calls. Never throws.
import type { Environment } from "../../domain/types.ts";
import { INTEGRATION_NAMES, type IntegrationName } from "../../domain/providers/catalog.ts";
import type { OutboundFetch } from "../providers/outbound.ts";
import type { ConnectionTests } from "../providers/tester.ts";
import type { Logger } from "../log.ts";
import type { CheckResult, ScreeningAdapter, ScreeningSubject } from "./types.ts";

export type { CheckResult, Party, ScreeningAdapter, ScreeningContext, ScreeningSubject, SubjectScreening } from "./types.ts";

export interface ScreeningService {
  /** One integration's check of these subjects at a checkpoint: credentials of the environment, the breaker
   *  (a `skipped` check with no request while open), a bounded number of concurrent calls per integration and
   *  environment (a slow vendor never blocks other integrations or the rest of the service). Never throws. */
  check(companyId: string, environment: Environment, integration: IntegrationName, subjects: ScreeningSubject[]): Promise<CheckResult>;
  adapter(name: IntegrationName): ScreeningAdapter | undefined;
}

/**
 * Integrations whose checks go through the circuit breaker. Part 3 gives screening_c one; screening_d has none in the
 * spec, so each of its checks calls the vendor (still bounded by the call slots and its 10 s timeout). See docs/screening.md.
 */
export const BREAKER_INTEGRATIONS: ReadonlySet<IntegrationName> = new Set<IntegrationName>(["screening_c"]);

/** Vendor calls in flight at once per company, environment and integration; more wait for a slot (within the call's timeout). */
export const MAX_CONCURRENT_CALLS = 8;

export interface ScreeningDeps {
  adapters: Partial<Record<IntegrationName, ScreeningAdapter>>;
  /** The saved settings: the company's enabled switch and the environment's decrypted credentials (null when none). */
  settings: {
    enabled(companyId: string, name: IntegrationName): Promise<boolean>;
    credentials(companyId: string, env: Environment, name: IntegrationName): Promise<Record<string, string> | null>;
  };
  /** The address of the actor keeping an integration's breaker, per company and environment (the composition root
   *  passes the integration actor kind's own addressing, so this service knows no actor module). */
  breakerAddress(companyId: string, environment: Environment, name: IntegrationName): string;
  /** The actor runtime, to ask each integration actor for its breaker. */
  runtime: {
    ask<R = unknown>(to: string, body: unknown, opts?: { timeoutMs?: number }): Promise<R>;
    tell(to: string, body: unknown): Promise<number>;
  };
  /** The SSRF-guarded outbound client. */
  fetch: OutboundFetch;
  clock: () => number;
  log?: Logger;
  maxConcurrentCalls?: number;
  /** Default BREAKER_INTEGRATIONS. */
  breakerFor?: ReadonlySet<IntegrationName>;
}

/** A small counting semaphore whose waiters give up when their request's signal aborts (its timeout). */
class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}

  get idle(): boolean {
    return this.used === 0 && this.waiting.length === 0;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (this.used < this.max) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.used++;
        resolve();
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason ?? new Error("aborted"));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  release(): void {
    this.used--;
    this.waiting.shift()?.();
  }
}

export function createScreeningService(deps: ScreeningDeps): ScreeningService {
  const max = deps.maxConcurrentCalls ?? MAX_CONCURRENT_CALLS;
  const breakerFor = deps.breakerFor ?? BREAKER_INTEGRATIONS;
  const log = deps.log ?? (() => {});
  const slots = new Map<string, Slots>();

  /** The outbound client of one check: every call takes a slot of its company, environment and integration, and is counted. */
  function limitedFetch(key: string, counter: { requests: number }): OutboundFetch {
    return async (url, init) => {
      let s = slots.get(key);
      if (!s) slots.set(key, (s = new Slots(max)));
      await s.acquire(init.signal);
      counter.requests++;
      try {
        // The slot is held until the answer has arrived; the body is read by the adapter under the same signal.
        return await deps.fetch(url, init);
      } finally {
        s.release();
        if (s.idle) slots.delete(key);
      }
    };
  }

  /**
   * Breakers known open, by integration actor address, until when: a check skipped while the breaker is open costs no
   * ask (nor a commit). The integration actor keeps the state (durable); this is only what it last answered.
   */
  const openUntil = new Map<string, number>();

  async function permitted(address: string): Promise<boolean> {
    const until = openUntil.get(address);
    if (until !== undefined) {
      if (deps.clock() < until) return false;
      openUntil.delete(address);
    }
    try {
      const r = await deps.runtime.ask<{ allowed: boolean; openUntil?: number | null }>(address, { type: "permit" }, { timeoutMs: 5_000 });
      if (r.allowed === false && typeof r.openUntil === "number") {
        // Bounded: one entry per company, environment and integration with an open breaker.
        if (openUntil.size >= 10_000) openUntil.clear();
        openUntil.set(address, r.openUntil);
      }
      return r.allowed !== false;
    } catch (e) {
      // The breaker protects the vendor; a runtime that cannot answer (stopping, overloaded) must not stop screening.
      log("warn", "integration breaker unavailable; check let through", { address, error: e instanceof Error ? e.name : "unknown" });
      return true;
    }
  }

  return {
    adapter: (name) => deps.adapters[name],

    async check(companyId, environment, integration, subjects) {
      const started = deps.clock();
      const result = (status: CheckResult["status"], error: string): CheckResult => ({ integration, status, screenings: [], error, durationMs: deps.clock() - started });
      try {
        const adapter = deps.adapters[integration];
        if (!adapter) return result("error", "NOT_AVAILABLE");
        // A disabled integration fails the check without a request (enabling alone screens nothing either: rules decide).
        if (!(await deps.settings.enabled(companyId, integration))) return result("error", "INTEGRATION_DISABLED");
        let credentials: Record<string, string> | null;
        try {
          credentials = await deps.settings.credentials(companyId, environment, integration);
        } catch {
          // Saved under another master key: unusable, and said without detail.
          return result("error", "CREDENTIALS_UNREADABLE");
        }
        const accepted = subjects.filter((s) => adapter.accepts(s));
        const address = deps.breakerAddress(companyId, environment, integration);
        const breaker = breakerFor.has(integration);
        // Nothing to screen asks nothing of the vendor, so it neither consults nor moves the breaker.
        if (breaker && accepted.length > 0 && !(await permitted(address))) return result("skipped", "CIRCUIT_OPEN");
        const counter = { requests: 0 };
        const key = `${companyId}:${environment}:${integration}`;
        const r = await adapter.screen(accepted, { environment, credentials, fetch: limitedFetch(key, counter), now: deps.clock() });
        // Only checks that reached the vendor move the breaker: a missing key or a bad setting says nothing about the vendor.
        if (breaker && counter.requests > 0)
          await deps.runtime.tell(address, { type: "outcome", ok: r.status === "success", at: deps.clock() }).catch((e) => {
            log("warn", "integration breaker outcome not recorded", { address, error: e instanceof Error ? e.name : "unknown" });
          });
        return { ...r, integration, durationMs: deps.clock() - started };
      } catch (e) {
        log("error", "screening check failed", { integration, environment, error: e instanceof Error ? e.name : "unknown" });
        return result("error", "INTERNAL_ERROR");
      }
    },
  };
}

/** Before the service is wired: every check fails without a request. */
export const noScreening: ScreeningService = {
  check: async (_companyId, _environment, integration) => ({ integration, status: "error", screenings: [], error: "NOT_AVAILABLE", durationMs: 0 }),
  adapter: () => undefined,
};

/** The connection test of every integration the service has an adapter for (Part 2 `POST /api/v2/integrations/:name/test`). */
export function screeningConnectionTests(service: ScreeningService, fetch: OutboundFetch, clock: () => number): ConnectionTests {
  const tests: ConnectionTests = {};
  for (const name of INTEGRATION_NAMES) {
    const adapter = service.adapter(name);
    if (adapter) tests[name] = (environment, credentials) => adapter.testConnection({ environment, credentials: { ...credentials }, fetch, now: clock() });
  }
  return tests;
}
