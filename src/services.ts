// The composition root: opens storage, starts the actor runtime, serves HTTP. main.ts and tests call it.
import { openStorage, type Storage } from "./adapters/storage/index.ts";
import { listen, type RunningServer } from "./adapters/server/index.ts";
import { createLogger, type Logger, type LogLevel } from "./adapters/log.ts";
import { ActorRuntime } from "./actors/runtime.ts";
import { createApp } from "./http/app.ts";
import { RateLimiter } from "./http/ratelimit.ts";
import { Tenancy } from "./adapters/storage/repos/tenancy.ts";
import { AuditLog } from "./adapters/storage/repos/audit.ts";
import { loadMasterKey, type MasterKey } from "./adapters/crypto/master-key.ts";
import { Sealer } from "./adapters/crypto/envelope.ts";
import { customerActor } from "./actors/customer.ts";
import { transferActor } from "./actors/transfer.ts";
import { Transfers } from "./adapters/storage/repos/transfers.ts";
import { Proofs } from "./adapters/storage/repos/proofs.ts";
import { createPricing, FxConfigError, type Pricing } from "./adapters/fx/index.ts";
import { loadCatalog } from "./adapters/assets/catalog.ts";
import type { Catalog } from "./domain/assets/catalog.ts";
import { AssetPolicy } from "./adapters/storage/repos/assets.ts";
import { ProviderSettings } from "./adapters/storage/repos/provider-settings.ts";
import { noProviders, SWEEPS, type ProviderRegistry, type SweepName } from "./adapters/providers/registry.ts";
import { SettingsRegistry } from "./adapters/providers/index.ts";
import { providerFetch } from "./adapters/providers/outbound.ts";
import { providerB } from "./adapters/providers/provider_b/adapter.ts";
import { connectionActor, connectionAddress } from "./actors/connection.ts";
import type { DirectoryRead } from "./adapters/providers/types.ts";
import { createTester, defaultTester, type ConnectionTester } from "./adapters/providers/tester.ts";
import { DEFAULT_RATE_LIMITS, parseRateLimits, type RateLimit } from "./domain/ratelimit.ts";
import { createWebhookServices, registerWebhooks, WebhookConfigError, type WebhookServices } from "./webhooks/setup.ts";

export interface ServiceConfig {
  dbPath: string;
  host: string;
  port: number;
  logLevel?: LogLevel | "silent";
  concurrency?: number;
  migrationsFolder?: string;
  busyTimeoutMs?: number;
  /** With it, the Host `<slug>.<appDomain>` selects the company. */
  appDomain?: string;
  rateLimits?: Record<string, RateLimit>;
  env?: Record<string, string | undefined>;
}

export interface Services {
  readonly storage: Storage;
  readonly runtime: ActorRuntime;
  readonly log: Logger;
  readonly clock: () => number;
  readonly config: ServiceConfig;
  readonly tenancy: Tenancy;
  readonly audit: AuditLog;
  readonly limiter: RateLimiter;
  readonly masterKey: MasterKey;
  /** AES-256-GCM for personal data at rest. */
  readonly pii: Sealer;
  /** AES-256-GCM for credentials and secrets at rest. */
  readonly secrets: Sealer;
  readonly cursorKey: Uint8Array;
  readonly nameIndexKey: Uint8Array;
  readonly providers: ProviderRegistry;
  readonly pricing: Pricing;
  readonly catalog: Catalog;
  readonly policy: AssetPolicy;
  /** Provider and integration settings: sealed credentials per environment, one enabled switch per company. */
  readonly providerSettings: ProviderSettings;
  /** Connection tests of the settings API, one per adapter that has one. */
  readonly connectionTester: ConnectionTester;
  /** Webhook delivery: the SSRF-guarded deliverer, the auto-disable rule, kicks for subscription actors. */
  readonly webhooks: WebhookServices;
  ready(): boolean;
}

export interface RunningService extends Services {
  readonly server: RunningServer;
  readonly url: string;
  stop(): Promise<void>;
}

export function configFromEnv(env: Record<string, string | undefined>): ServiceConfig {
  const port = env.PORT === undefined || env.PORT === "" ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be 0..65535, got "${env.PORT}"`);
  return {
    dbPath: env.CARAVAN_DB || "./data/caravan.db",
    host: env.HOST || "127.0.0.1",
    port,
    logLevel: (env.CARAVAN_LOG as LogLevel | "silent" | undefined) ?? "info",
    concurrency: env.CARAVAN_ACTOR_CONCURRENCY ? Number(env.CARAVAN_ACTOR_CONCURRENCY) : undefined,
    migrationsFolder: env.CARAVAN_MIGRATIONS || undefined,
    busyTimeoutMs: env.CARAVAN_BUSY_TIMEOUT_MS ? Number(env.CARAVAN_BUSY_TIMEOUT_MS) : undefined,
    appDomain: env.CARAVAN_APP_DOMAIN || undefined,
    rateLimits: rateLimitsFrom(env.CARAVAN_RATE_LIMITS),
    env,
  };
}

function rateLimitsFrom(text: string | undefined): Record<string, RateLimit> {
  if (!text) return { ...DEFAULT_RATE_LIMITS };
  try {
    return { ...DEFAULT_RATE_LIMITS, ...parseRateLimits(text) };
  } catch (e) {
    throw new ConfigError(`CARAVAN_RATE_LIMITS: ${(e as Error).message}`);
  }
}

/** The provider registry over the saved settings, with the adapters that exist, and their connection tests. */
function wireProviders(s: Services, env: Record<string, string | undefined>): void {
  const outbound = providerFetch(env);
  const adapters = { provider_b: providerB };
  const mutable = s as { -readonly [K in keyof Services]: Services[K] };
  // Each provider connection's actor keeps what was read from the peer (directory, keys, health).
  mutable.providers = new SettingsRegistry(
    s.providerSettings,
    adapters,
    outbound,
    (companyId, environment, provider) =>
      s.runtime.ask<DirectoryRead>(connectionAddress(companyId, environment, provider), { type: "directory", companyId, environment, provider }, { timeoutMs: 20_000 }),
    (companyId, environment, provider) =>
      s.runtime.ask<{ waitMs: number }>(connectionAddress(companyId, environment, provider), { type: "permit", companyId, environment, provider }, { timeoutMs: 20_000 }),
  );
  s.runtime.register(connectionActor(() => s.providers));
  mutable.connectionTester = createTester({
    provider_b: (e, credentials) => providerB.testConnection!(e, { credentials: { ...credentials }, fetch: outbound as unknown as typeof fetch, now: s.clock() }),
  });
}

/** Every actor kind the service runs. */
function registerActors(s: Services): void {
  const transfers = new Transfers(s.storage);
  s.runtime.register(
    customerActor({
      pii: s.pii,
      nameIndexKey: s.nameIndexKey,
      activeTransferIds: (companyId, env, customerId) => transfers.activeForCustomer(companyId, env, customerId),
    }),
  );
  s.runtime.register(
    transferActor({
      pii: s.pii,
      providers: s.providers,
      priceUsd: async ({ companyId, environment, assetId, amount }) => {
        const asset = s.catalog.assets.find((a) => a.id === assetId);
        if (!asset) return null;
        return (await s.pricing.value({ companyId, environment, asset, amount, currency: "USD" })).value;
      },
    }),
  );
  for (const [name, pattern] of Object.entries(SWEEPS) as [SweepName, string][]) s.runtime.sweep(name, pattern, (now) => s.providers.sweep?.(name, now));
  // Proofs past their expiry stop counting: their customer's actor recomputes `verified` (every 5 s).
  s.runtime.sweep("wallet-proof-expiry", "*/5 * * * * *", async (now) => {
    for (const d of new Proofs(s.storage).dueForExpiry(now))
      await s.runtime.tell(`customer:${d.customer_id}`, { type: "expireWalletProofs", walletId: d.wallet_id, companyId: d.company_id, environment: d.environment, actor: { type: "system" } });
  });
  registerWebhooks(s.webhooks, s);
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  const log = createLogger(config.logLevel ?? "info");
  const clock = Date.now;
  const storage = await openStorage(config.dbPath, { migrationsFolder: config.migrationsFolder, busyTimeoutMs: config.busyTimeoutMs });
  let masterKey: MasterKey;
  try {
    masterKey = loadMasterKey(config.dbPath, config.env ?? {});
  } catch (e) {
    storage.close();
    throw e;
  }
  let pricing: Pricing;
  try {
    pricing = createPricing(storage, config.env ?? {}, clock);
  } catch (e) {
    storage.close();
    throw e instanceof FxConfigError ? new ConfigError(e.message) : e;
  }
  const runtime = new ActorRuntime(storage, { clock, concurrency: config.concurrency, log, sealer: new Sealer(masterKey.derive("mailbox")) });
  let webhooks: WebhookServices;
  try {
    webhooks = createWebhookServices(runtime, config.env ?? {});
  } catch (e) {
    storage.close();
    throw e instanceof WebhookConfigError ? new ConfigError(e.message) : e;
  }
  let ready = false;
  const secrets = new Sealer(masterKey.derive("secrets"));
  const services: Services = {
    storage,
    runtime,
    log,
    clock,
    config,
    tenancy: new Tenancy(storage, clock),
    audit: new AuditLog(storage),
    limiter: new RateLimiter(config.rateLimits ?? DEFAULT_RATE_LIMITS, clock),
    masterKey,
    pii: new Sealer(masterKey.derive("pii")),
    secrets,
    cursorKey: masterKey.derive("cursor"),
    nameIndexKey: masterKey.derive("name-index"),
    providers: noProviders,
    connectionTester: defaultTester,
    pricing,
    catalog: loadCatalog(),
    policy: new AssetPolicy(storage, clock),
    providerSettings: new ProviderSettings(storage, secrets),
    webhooks,
    ready: () => ready,
  };
  wireProviders(services, config.env ?? {});
  registerActors(services);
  const app = createApp(services);
  runtime.start();
  let server: RunningServer;
  try {
    server = await listen((req) => app.fetch(req), { hostname: config.host, port: config.port });
  } catch (e) {
    await runtime.stop();
    storage.close();
    throw new ConfigError(`cannot listen on ${config.host}:${config.port}: ${(e as Error).message}`);
  }
  ready = true;
  let stopped: Promise<void> | undefined;
  return {
    ...services,
    server,
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`,
    stop() {
      stopped ??= (async () => {
        ready = false;
        await server.stop();
        // Attempts on the wire finish (10 s at most) and their results commit before the runtime stops.
        await webhooks.deliverer.drain();
        await runtime.stop();
        storage.close();
      })();
      return stopped;
    },
  };
}
