// The composition root: opens storage, starts the actor runtime, serves HTTP. main.ts and tests call it.
import type { Storage } from "./adapters/storage/index.ts";
import { engineSettingsFromEnv, openEngine, type Engine, type EngineSettings, type Maintenance } from "./adapters/storage/engine.ts";
import { EventIds } from "./adapters/crypto/event-ids.ts";
import { listen, type RunningServer } from "./adapters/server/index.ts";
import { createLogger, type Logger, type LogLevel } from "./adapters/log.ts";
import { ActorRuntime } from "./actors/runtime.ts";
import { ClusterNode, clusterNodeOptionsFromEnv } from "./actors/placement.ts";
import { DuplicateNodeError, type Wakeups } from "./ports/cluster.ts";
import type { StreamRegistry } from "./ports/event-streams.ts";
import { parseSweepSchedule, SweepScheduleError, type SweepSchedule } from "./actors/timers.ts";
import { createApp } from "./http/app.ts";
import { RateLimiter } from "./http/ratelimit.ts";
import type { TenancyRepository } from "./ports/tenancy.ts";
import type { AuditRepository } from "./ports/audit.ts";
import type { Repositories } from "./ports/repositories.ts";
import type { RuntimeHost } from "./ports/runtime-store.ts";
import { loadMasterKey, masterKeySource, type MasterKey } from "./adapters/crypto/master-key.ts";
import { existsSync, readFileSync } from "node:fs";
import { auditKeySource, loadAuditKey, readAuditKey, type AuditSigningKey } from "./adapters/crypto/audit-key.ts";
import { AuditTreeError, type AuditTreeRepository } from "./ports/audit-tree.ts";
import { startAuditSealer, type AuditSealer } from "./actors/audit-sealer.ts";
import { startTlsFront, type TlsFront } from "./adapters/net/tls-front.ts";
import { Sealer } from "./adapters/crypto/envelope.ts";
import { customerActor } from "./actors/customer.ts";
import { caseActor, newCaseId } from "./actors/case.ts";
import { thresholdsActor } from "./actors/thresholds.ts";
import { rulesActor } from "./actors/rules.ts";
import { tenancyActor } from "./actors/tenancy.ts";
import { settingsActor } from "./actors/settings.ts";
import { reportsActor } from "./actors/reports.ts";
import { transferActor } from "./actors/transfer/index.ts";

import { createPricing, FxConfigError, type Pricing } from "./adapters/fx/index.ts";
import { loadCatalog } from "./adapters/assets/catalog.ts";
import type { Catalog } from "./domain/assets/catalog.ts";
import type { AssetPolicyRepository } from "./ports/assets.ts";
import type { DueTransfer } from "./ports/provider-stores.ts";
import type { ProviderSettingsRepository } from "./ports/provider-settings.ts";
import { noProviders, SWEEPS, type ProviderRegistry, type SweepName } from "./adapters/providers/registry.ts";
import { SettingsRegistry } from "./adapters/providers/index.ts";
import { providerFetch } from "./adapters/providers/outbound.ts";
import { providerB } from "./adapters/providers/provider_b/adapter.ts";
import { baseUrlsFromEnv, providerE } from "./adapters/providers/provider_e/adapter.ts";
import { providerEFlowLookups, providerELookups } from "./adapters/providers/provider_e/lookups.ts";
import { providerEFlow } from "./actors/flows/provider_e.ts";
import { providerA } from "./adapters/providers/provider_a/adapter.ts";
import { providerAFlow, POLL_AFTER_MS, STALL_MS } from "./actors/flows/provider_a.ts";
import { DEFAULT_AUTH_URL, parseOrigins } from "./domain/provider_a/settings.ts";
import { connectionActor, connectionAddress } from "./actors/connection.ts";
import type { DirectoryRead } from "./adapters/providers/types.ts";
import { providerDConnectionTest } from "./adapters/providers/provider_d/connection-test.ts";
import { providerD } from "./adapters/providers/provider_d/adapter.ts";
import { providerDFlow } from "./actors/flows/provider_d.ts";
import { createTester, defaultTester, type ConnectionTester } from "./adapters/providers/tester.ts";
import { DEFAULT_RATE_LIMITS, parseRateLimits, type RateLimit } from "./domain/ratelimit.ts";
import { createWebhookServices, WebhookConfigError, type WebhookServices } from "./adapters/webhooks/settings.ts";
import { webhookActor, webhookAddress, type WebhookMessage } from "./actors/webhook.ts";
import { startWebhookDispatch } from "./actors/webhook-dispatcher.ts";
import { subscriptionsActor } from "./actors/webhook-subscriptions.ts";
import { newId } from "./domain/ids.ts";
import { createScreeningService, noScreening, screeningConnectionTests, type ScreeningService } from "./adapters/screening/index.ts";
import { parseRegionUrls, screeningC } from "./adapters/screening/screening_c/index.ts";
import { screeningD, screeningDUrlFromEnv } from "./adapters/screening/screening_d/adapter.ts";
import { integrationActor, integrationAddress } from "./actors/integration.ts";
import { screenIncoming, type CheckpointDeps } from "./actors/checkpoint.ts";
import { INTEGRATIONS } from "./domain/providers/catalog.ts";
import { EU_MEMBERS } from "./domain/thresholds.ts";

export interface ServiceConfig {
  /** The SQLite file (CARAVAN_DB); with `databaseUrl`, only where the key files are found (beside it). */
  dbPath: string;
  /** CARAVAN_DATABASE_URL: PostgreSQL (postgres://user:password@host:port/db) instead of SQLite at dbPath. */
  databaseUrl?: string;
  /** PostgreSQL's session options (reader connections, a statement hook for tests); not from the environment. */
  postgres?: EngineSettings["postgres"];
  host: string;
  port: number;
  logLevel?: LogLevel | "silent";
  concurrency?: number;
  migrationsFolder?: string;
  busyTimeoutMs?: number;
  /** With it, the Host `<slug>.<appDomain>` selects the company. */
  appDomain?: string;
  rateLimits?: Record<string, RateLimit>;
  /** CARAVAN_SWEEP_SCHEDULE: the sweeps' schedules replaced (tests run them once a second). */
  sweepSchedule?: SweepSchedule;
  /** CARAVAN_ACTOR_POLL_MS: how often work written by another process (the CLI) is looked for. */
  actorPollMs?: number;
  /** CARAVAN_EVENTS_COMPACT=on: event data stored deflated (about a third of the events' disk, more CPU per write). */
  compactEvents?: boolean;
  /** CARAVAN_AUDIT_CHECKPOINT_SECONDS: how often a grown audit tree gets a signed checkpoint (300 s by default). */
  auditCheckpointMs?: number;
  /** How often committed audit entries are sealed into their trees (1 s by default); tests that count statements raise it. */
  auditSealMs?: number;
  env?: Record<string, string | undefined>;
}

export interface Services {
  /**
   * The SQLite engine's own handle (tests set data up through it). On PostgreSQL there is none: any use
   * of it throws, saying so. Everything engine-neutral uses `store`.
   */
  readonly storage: Storage;
  /** The store, whichever the engine: units of work, health, fault classes, the actor runtime's store. */
  readonly store: RuntimeHost;
  /**
   * Which engine, and where its data is (`PostgreSQL at host:port/db` never carries the password); its store and a
   * maker of repositories over it, for a CLI command run in this process (the demo's attestations: src/cli/entry.ts).
   */
  readonly engine: Pick<Engine, "kind" | "where" | "store" | "repositories" | "cluster" | "replies">;
  readonly runtime: ActorRuntime;
  readonly log: Logger;
  readonly clock: () => number;
  readonly config: ServiceConfig;
  /** Every resource's repository, created once here and handed to whatever reads or writes that resource. */
  readonly repositories: Repositories;
  readonly tenancy: TenancyRepository;
  readonly audit: AuditRepository;
  /** The audit log's Merkle trees, checkpoints and proofs (docs/api.md#audit-log). */
  readonly auditTrees: AuditTreeRepository;
  /** The checkpoint signing key in use (after a rotation by the CLI, the new one). */
  auditKey(): Promise<AuditSigningKey>;
  readonly limiter: RateLimiter;
  readonly masterKey: MasterKey;
  /** AES-256-GCM for personal data at rest. */
  readonly pii: Sealer;
  /** AES-256-GCM for credentials and secrets at rest. */
  readonly secrets: Sealer;
  readonly cursorKey: Uint8Array;
  /** The live stream's event IDs: the shared sequence enciphered per company and environment. */
  readonly eventIds: EventIds;
  /** Hints of commits by other nodes (PostgreSQL's LISTEN/NOTIFY); null on SQLite. */
  readonly wakeups?: Wakeups | null;
  /** Every node's open event streams, for the stream caps (PostgreSQL, once this process is a node); null on SQLite. */
  readonly streamRegistry?: StreamRegistry | null;
  /** Dead letters' IDs as a company sees them: the shared mailbox number enciphered per company and environment. */
  readonly deadLetterIds: EventIds;
  readonly nameIndexKey: Uint8Array;
  readonly providers: ProviderRegistry;
  readonly pricing: Pricing;
  readonly catalog: Catalog;
  readonly policy: AssetPolicyRepository;
  /** Provider and integration settings: sealed credentials per environment, one enabled switch per company. */
  readonly providerSettings: ProviderSettingsRepository;
  /** Connection tests of the settings API, one per adapter that has one. */
  readonly connectionTester: ConnectionTester;
  /** Webhook delivery: the SSRF-guarded deliverer, the auto-disable rule, kicks for subscription actors. */
  readonly webhooks: WebhookServices;
  /** Screening integrations: one check per integration at a checkpoint (credentials, breaker, bounded calls). */
  readonly screening: ScreeningService;
  ready(): boolean;
  /** A fault outside a handler (a request that met a full disk): logged once per class per interval by the runtime. */
  reportFault(msg: string, e: unknown, fields?: Record<string, unknown>): void;
  /** Whether the storage worker fills the transfer search index (then the server's sweep only trims its queue). */
  searchIndexedElsewhere(): boolean;
}

export interface RunningService extends Services {
  readonly server: RunningServer;
  readonly url: string;
  /** The TRP mutual-TLS listener (provider_d), when CARAVAN_TRP_TLS_PORT is set. */
  readonly trpUrl: string | null;
  stop(): Promise<void>;
}

export function configFromEnv(env: Record<string, string | undefined>): ServiceConfig {
  const port = env.PORT === undefined || env.PORT === "" ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be 0..65535, got "${env.PORT}"`);
  return {
    ...engineSettings(env),
    host: env.HOST || "127.0.0.1",
    port,
    logLevel: (env.CARAVAN_LOG as LogLevel | "silent" | undefined) ?? "info",
    concurrency: env.CARAVAN_ACTOR_CONCURRENCY ? Number(env.CARAVAN_ACTOR_CONCURRENCY) : undefined,
    appDomain: env.CARAVAN_APP_DOMAIN || undefined,
    rateLimits: rateLimitsFrom(env.CARAVAN_RATE_LIMITS),
    sweepSchedule: sweepScheduleFrom(env.CARAVAN_SWEEP_SCHEDULE),
    actorPollMs: actorPollMsFrom(env.CARAVAN_ACTOR_POLL_MS),
    compactEvents: onOff("CARAVAN_EVENTS_COMPACT", env.CARAVAN_EVENTS_COMPACT),
    auditCheckpointMs: auditCheckpointMsFrom(env.CARAVAN_AUDIT_CHECKPOINT_SECONDS),
    env,
  };
}

function engineSettings(env: Record<string, string | undefined>) {
  try {
    return engineSettingsFromEnv(env);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
}

function sweepScheduleFrom(text: string | undefined): SweepSchedule | undefined {
  try {
    return parseSweepSchedule(text);
  } catch (e) {
    throw new ConfigError((e as SweepScheduleError).message);
  }
}

function auditCheckpointMsFrom(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 86_400) throw new ConfigError(`CARAVAN_AUDIT_CHECKPOINT_SECONDS must be a whole number of seconds, 1 to 86400, got "${text}"`);
  return n * 1000;
}

/**
 * The audit signing key for this database: the one it lists as active, from CARAVAN_AUDIT_SIGNING_KEY or the key
 * file; made (and listed) on the first start. A database that lists a key whose file is gone, or another key, still
 * starts (the audit key guards evidence, not data), but signs no checkpoint until the key is back or rotated: signing
 * on with a new key would quietly orphan the published one. Answers the key, or why there is none to sign with.
 */
async function openAuditKey(trees: AuditTreeRepository, config: ServiceConfig, now: number, where: string): Promise<{ key: AuditSigningKey } | { problem: string }> {
  const env = config.env ?? {};
  const found = readAuditKey(config.dbPath, env);
  const source = auditKeySource(config.dbPath, env);
  const from = "env" in source ? "CARAVAN_AUDIT_SIGNING_KEY" : `the key file ${source.file}`;
  const active = await trees.activeKey();
  if (!found && active && config.dbPath !== ":memory:")
    return {
      problem: `${from} is missing, and ${where} lists audit signing key ${active.keyId}: no audit checkpoint is signed until the key file is put back (or CARAVAN_AUDIT_SIGNING_KEY set), or a new key is made with caravan audit rotate-key`,
    };
  const key = found ?? loadAuditKey(config.dbPath, env);
  try {
    await trees.adoptKey(key, now, from);
  } catch (e) {
    if (e instanceof AuditTreeError) return { problem: `${e.message}; no audit checkpoint is signed until then` };
    throw e;
  }
  return { key };
}

function onOff(name: string, text: string | undefined): boolean {
  if (text === undefined || text === "" || text === "off") return false;
  if (text === "on") return true;
  throw new ConfigError(`${name} must be on or off, got "${text}"`);
}

function actorPollMsFrom(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 10 || n > 60_000) throw new ConfigError(`CARAVAN_ACTOR_POLL_MS must be a whole number of milliseconds 10..60000, got "${text}"`);
  return n;
}

function nodeCountOf(node: ClusterNode): () => number {
  return () => node.nodeCount();
}

function rateLimitsFrom(text: string | undefined): Record<string, RateLimit> {
  if (!text) return { ...DEFAULT_RATE_LIMITS };
  try {
    return { ...DEFAULT_RATE_LIMITS, ...parseRateLimits(text) };
  } catch (e) {
    throw new ConfigError(`CARAVAN_RATE_LIMITS: ${(e as Error).message}`);
  }
}

const trpHost = (env: Record<string, string | undefined>, host: string) => env.CARAVAN_TRP_TLS_HOST || host;

/** CARAVAN_TRP_TLS_PORT (with CARAVAN_TRP_TLS_CERT and CARAVAN_TRP_TLS_KEY, PEM files): the TRP listener, else none. */
async function startTrpListener(env: Record<string, string | undefined>, host: string, upstreamPort: number): Promise<TlsFront | null> {
  if (!env.CARAVAN_TRP_TLS_PORT) return null;
  const port = Number(env.CARAVAN_TRP_TLS_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError("CARAVAN_TRP_TLS_PORT must be a port number (0 picks a free one)");
  if (!env.CARAVAN_TRP_TLS_CERT || !env.CARAVAN_TRP_TLS_KEY) throw new ConfigError("CARAVAN_TRP_TLS_PORT needs CARAVAN_TRP_TLS_CERT and CARAVAN_TRP_TLS_KEY (PEM files of the listener's certificate and key)");
  const read = (f: string) => {
    try {
      return readFileSync(f, "utf8");
    } catch {
      throw new ConfigError(`cannot read ${f} (CARAVAN_TRP_TLS_CERT / CARAVAN_TRP_TLS_KEY)`);
    }
  };
  const upstreamHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return startTlsFront({ host: trpHost(env, host), port, certificate: read(env.CARAVAN_TRP_TLS_CERT), privateKey: read(env.CARAVAN_TRP_TLS_KEY), upstream: { host: upstreamHost, port: upstreamPort } });
}

/** The provider registry over the saved settings, with the adapters that exist, and their connection tests. */
function wireProviders(s: Services, env: Record<string, string | undefined>): void {
  const outbound = providerFetch(env);
  // provider_a: OAuth origin and allowed regional API origins (CARAVAN_PROVIDER_A_AUTH_URL, CARAVAN_PROVIDER_A_API_ORIGINS).
  const paStore = s.repositories.providerA;
  const identity = (companyId: string, environment: "test" | "live", customerId: string) => paStore.verifiedIdentity((sealed, aad) => s.pii.open(sealed, aad), companyId, environment, customerId);
  const provider_a = providerA({
    authUrl: env.CARAVAN_PROVIDER_A_AUTH_URL || DEFAULT_AUTH_URL,
    apiOrigins: parseOrigins(env.CARAVAN_PROVIDER_A_API_ORIGINS),
    log: s.log,
    originatorIdentity: async (companyId, environment, transferId) => {
      const customer = await paStore.originatorCustomerOf(companyId, environment, transferId);
      return customer ? identity(companyId, environment, customer) : null;
    },
  });
  // provider_e: base addresses CARAVAN_PROVIDER_E_TEST_URL / CARAVAN_PROVIDER_E_LIVE_URL (Part 3 Contract).
  const provider_e = providerE({ baseUrl: baseUrlsFromEnv(env), lookups: providerELookups(s.repositories, (sealed, aad) => s.pii.open(sealed, aad), async (companyId) => (await s.providerSettings.id(companyId, "provider_e")) ?? null) });
  // provider_d (TRP): tokens under a key of its own; the Travel Address's counterparty from the saved settings.
  const provider_d = providerD({ tokenKey: s.masterKey.derive("provider_d-tokens"), providerId: async (companyId) => (await s.providerSettings.id(companyId, "provider_d")) ?? null, knownBeneficiary: (companyId, env, network, address) => s.repositories.providerD.knownBeneficiary(companyId, env, network, address) });
  const adapters = { provider_b: providerB, provider_a, provider_e, provider_d };
  const mutable = s as { -readonly [K in keyof Services]: Services[K] };
  // Each provider connection's actor keeps what was read from the peer (directory, keys, health).
  mutable.providers = new SettingsRegistry(
    s.providerSettings,
    adapters,
    outbound,
    (companyId, environment, provider, refresh) =>
      s.runtime.ask<DirectoryRead>(connectionAddress(companyId, environment, provider), { type: "directory", companyId, environment, provider, refresh }, { timeoutMs: 20_000 }),
    (companyId, environment, provider) =>
      s.runtime.ask<{ waitMs: number }>(connectionAddress(companyId, environment, provider), { type: "permit", companyId, environment, provider }, { timeoutMs: 20_000 }),
  );
  s.runtime.register(connectionActor(() => s.providers));
  mutable.connectionTester = createTester({
    provider_b: (e, credentials) => providerB.testConnection!(e, { credentials: { ...credentials }, fetch: outbound as unknown as typeof fetch, now: s.clock() }),
    provider_a: (e, credentials) => provider_a.testConnection!(e, { credentials: { ...credentials }, fetch: outbound as unknown as typeof fetch, now: s.clock() }),
    provider_e: (e, credentials) => provider_e.testConnection!(e, { credentials: { ...credentials }, fetch: outbound as unknown as typeof fetch, now: s.clock() }),
    provider_d: (_e, credentials) => providerDConnectionTest(credentials, outbound, s.clock()),
    ...screeningConnectionTests(s.screening, outbound, s.clock),
  });
}

/** The screening service over the integration adapters (CARAVAN_SCREENING_C_URLS, CARAVAN_SCREENING_D_URL) and its breaker actor. */
function wireScreening(s: Services, env: Record<string, string | undefined>): void {
  let adapters;
  try {
    adapters = { screening_c: screeningC({ urls: parseRegionUrls(env.CARAVAN_SCREENING_C_URLS) }), screening_d: screeningD({ baseUrl: screeningDUrlFromEnv(env) }) };
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  (s as { screening: ScreeningService }).screening = createScreeningService({
    adapters,
    settings: s.providerSettings,
    runtime: s.runtime,
    breakerAddress: integrationAddress,
    fetch: providerFetch(env),
    clock: s.clock,
    log: s.log,
  });
  s.runtime.register(integrationActor());
}

/** What the rule checkpoints of the transfer and customer actors need: rules, integrations, screening, valuations. */
function checkpointDeps(s: Services): CheckpointDeps {
  const rules = s.repositories.rules;
  return {
    activeRules: (companyId, env) => rules.active(companyId, env),
    integration: async (companyId, integrationId) => {
      for (const def of INTEGRATIONS) if ((await s.providerSettings.id(companyId, def.name)) === integrationId) return { name: def.name, displayName: def.displayName, type: def.type };
      return null;
    },
    check: (companyId, env, name, subjects) => s.screening.check(companyId, env, name, subjects),
    euMembers: EU_MEMBERS,
    priceUsd: async (companyId, environment, assetId, amount) => {
      const asset = s.catalog.assets.find((a) => a.id === assetId);
      if (!asset) return null;
      return (await s.pricing.value({ companyId, environment, asset, amount, currency: "USD" })).value;
    },
    valuation: (companyId, env, fxRateId) => s.pricing.get(companyId, env, fxRateId),
  };
}

const SEARCH_INDEX_BATCH = 500;

/** Every actor kind the service runs. */
function registerActors(s: Services): void {
  const transfers = s.repositories.transfers;
  const checkpoint = checkpointDeps(s);
  s.runtime.register(caseActor({ repositories: s.repositories, pii: s.pii, nameIndexKey: s.nameIndexKey, log: s.log }));
  s.runtime.register(thresholdsActor({ repositories: s.repositories }));
  s.runtime.register(rulesActor({ repositories: s.repositories }));
  s.runtime.register(tenancyActor({ repositories: s.repositories }));
  s.runtime.register(settingsActor({ providerSettings: s.providerSettings, audit: s.repositories.audit }));
  s.runtime.register(reportsActor({ repositories: s.repositories }));
  s.runtime.register(
    customerActor({
      repositories: s.repositories,
      pii: s.pii,
      nameIndexKey: s.nameIndexKey,
      activeTransferIds: (companyId, env, customerId) => transfers.activeForCustomer(companyId, env, customerId),
      capabilities: (companyId, env, t) => s.providers.capabilities(companyId, env, t),
      screenIncoming: (t, persons) => screenIncoming(checkpoint, s.pii, t, persons, s.clock(), () => newCaseId(s.clock())),
    }),
  );
  s.runtime.register(
    transferActor({
      repositories: s.repositories,
      pii: s.pii,
      providers: s.providers,
      priceUsd: async ({ companyId, environment, assetId, amount }) => {
        const asset = s.catalog.assets.find((a) => a.id === assetId);
        if (!asset) return null;
        return (await s.pricing.value({ companyId, environment, asset, amount, currency: "USD" })).value;
      },
      checkpoint,
      flows: {
        provider_a: providerAFlow({
          adapter: s.providers.adapter("provider_a") as ReturnType<typeof providerA>,
          verifiedIdentity: (companyId, environment, customerId) => s.repositories.providerA.verifiedIdentity((sealed, aad) => s.pii.open(sealed, aad), companyId, environment, customerId),
        }),
        provider_d: providerDFlow(),
        provider_e: providerEFlow({ baseUrl: baseUrlsFromEnv(s.config.env ?? {}), pii: s.pii, lookups: providerEFlowLookups(s.repositories, (sealed, aad) => s.pii.open(sealed, aad)) }),
      },
    }),
  );
  for (const [name, pattern] of Object.entries(SWEEPS) as [SweepName, string][]) s.runtime.sweep(name, pattern, (now) => s.providers.sweep?.(name, now));
  // provider_a (Part 3): poll transfers waiting and unchanged five minutes, once a minute; fail `exchanging` after 15.
  const paStore = s.repositories.providerA;
  const tellDue = async (due: Promise<DueTransfer[]>, kind: "poll" | "stall") => {
    for (const r of await due)
      await s.runtime.tell(`transfer:${r.id}`, { type: "providerEvent", provider: "provider_a", event: { kind }, companyId: r.companyId, environment: r.environment, actor: { type: "system" } });
  };
  s.runtime.sweep("provider_a-polling", "0 * * * * *", (now) => tellDue(paStore.dueForPoll(now - POLL_AFTER_MS), "poll"));
  s.runtime.sweep("provider_a-stall", "30 * * * * *", (now) => tellDue(paStore.dueForStall(now - STALL_MS), "stall"));
  // provider_e (Part 3): status read once a minute for transfers waiting five minutes unchanged; expiry holds.
  const tellE = async (rows: { id: string; company_id: string; environment: "test" | "live" }[], msg: (r: { company_id: string; environment: "test" | "live" }) => Record<string, unknown>) => {
    for (const r of rows) await s.runtime.tell(`transfer:${r.id}`, msg(r));
  };
  const tellEach = async (due: Promise<DueTransfer[]>, msg: (r: DueTransfer) => Record<string, unknown>) => {
    for (const r of await due) await s.runtime.tell(`transfer:${r.id}`, msg(r));
  };
  s.runtime.sweep("provider_e-polling", "10 * * * * *", (now) =>
    tellEach(s.repositories.providerE.dueForPoll(now - 5 * 60_000), (r) => ({ type: "providerEvent", provider: "provider_e", event: { kind: "poll" }, companyId: r.companyId, environment: r.environment, actor: { type: "system" } })),
  );
  s.runtime.sweep("provider_e-expiry", "*/15 * * * * *", (now) =>
    tellEach(s.repositories.providerE.dueForExpiry(now), (r) => ({ type: "expire", companyId: r.companyId, environment: r.environment, actor: { type: "system" } })),
  );
  // provider_d: open transfers past their expiry are cancelled (the counterparty that approved is told first).
  s.runtime.sweep("provider_d-expiry", "*/15 * * * * *", (now) =>
    tellEach(s.repositories.providerD.dueForExpiry(now), (r) => ({ type: "expire", companyId: r.companyId, environment: r.environment, actor: { type: "system" } })),
  );
  // Outgoing transfers no provider has taken are cancelled at their expiry (docs/transfers.md): a sweep over rows.
  s.runtime.sweep("transfer-untaken-expiry", "*/10 * * * * *", async (now) => {
    for (const r of await transfers.dueForCancel(new Date(now).toISOString()))
      await s.runtime.tell(`transfer:${r.id}`, { type: "expire", companyId: r.companyId, environment: r.environment, actor: { type: "system" } });
  });
  // The transfer search index is filled off the request path (src/adapters/storage/search-index.ts): by the storage
  // worker on its own thread, or here when it does not run (in memory, or after it failed), in batches that yield
  // between them. Every second the queue entries the index reflects are trimmed. A search never waits for the index
  // (it also scans the transfers still queued), and the queue is a table, so a restart loses nothing.
  s.runtime.sweep("transfers-search-index", "* * * * * *", async () => {
    if (!s.searchIndexedElsewhere()) while ((await transfers.indexPending(SEARCH_INDEX_BATCH)) === SEARCH_INDEX_BATCH) await new Promise((r) => setTimeout(r, 0));
    await transfers.trimSearchQueue();
  });
  // Proofs past their expiry stop counting: their customer's actor recomputes `verified` (every 5 s).
  s.runtime.sweep("wallet-proof-expiry", "*/5 * * * * *", async (now) => {
    for (const d of await s.repositories.proofs.dueForExpiry(now))
      await s.runtime.tell(`customer:${d.customerId}`, { type: "expireWalletProofs", walletId: d.walletId, companyId: d.companyId, environment: d.environment, actor: { type: "system" } });
  });
  registerWebhooks(s);
}

/** The webhook subscriptions' actors (one per subscription) and the dispatcher that hands them new events. */
function registerWebhooks(s: Services): void {
  const w = s.webhooks;
  s.runtime.register(
    webhookActor({
      repositories: s.repositories,
      secrets: s.secrets,
      deliverer: w.deliverer,
      tell: (to, msg) => s.runtime.tell(to, msg),
      boot: newId("boot", s.clock()),
      autoDisable: w.autoDisable,
      retryDelaysMs: w.retryDelaysMs,
      log: s.log,
      clock: s.clock,
    }),
  );
  s.runtime.register(subscriptionsActor({ repositories: s.repositories, autoDisable: w.autoDisable }));
  startWebhookDispatch(s.runtime, s.repositories, s.webhooks.eventsRetentionMs);
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * The database remembers which key sealed it: a short text sealed with a subkey of the master key, kept in the
 * database's own facts (database_meta). A later start with another key, or with the key file gone (a new key would be
 * made), stops with one line saying so, before anything is read or written with the wrong key.
 */
const KEY_CHECK = "master_key_check";
const KEY_CHECK_TEXT = "caravan master key check";

/** The database path for loadMasterKey, once it is known that a missing key file may be created. */
async function checkedKeySource(engine: Engine, config: ServiceConfig): Promise<string> {
  const env = config.env ?? {};
  const source = masterKeySource(config.dbPath, env);
  if (config.dbPath !== ":memory:" && "file" in source && !existsSync(source.file) && (await engine.readMeta(KEY_CHECK)) !== undefined)
    throw new ConfigError(
      `the master key file ${source.file} is missing, and the data in ${engine.where} was sealed with a key: put the original master.key back ${engine.sqlite ? "beside the database" : "there"} (or set CARAVAN_MASTER_KEY to it); a new key could not read the data`,
    );
  return config.dbPath;
}

async function checkMasterKey(engine: Engine, key: MasterKey, config: ServiceConfig): Promise<void> {
  const sealer = new Sealer(key.derive("key-check"));
  let sealed = await engine.readMeta(KEY_CHECK);
  if (sealed === undefined) {
    await engine.recordMetaOnce(KEY_CHECK, sealer.seal(KEY_CHECK_TEXT, KEY_CHECK));
    // Another node may have recorded its own first (PostgreSQL, two first starts at once): the stored one judges.
    sealed = await engine.readMeta(KEY_CHECK);
    if (sealed === undefined) return;
  }
  let ok = false;
  try {
    ok = sealer.open(sealed, KEY_CHECK) === KEY_CHECK_TEXT;
  } catch {
    ok = false;
  }
  if (!ok) {
    const source = masterKeySource(config.dbPath, config.env ?? {});
    const from = "env" in source ? "CARAVAN_MASTER_KEY" : `the key file ${source.file}`;
    throw new ConfigError(
      `the master key from ${from} is not the key that sealed ${engine.where}: use the original key (${engine.sqlite ? "the master.key created beside this database, or " : ""}the CARAVAN_MASTER_KEY it was started with)`,
    );
  }
}

/**
 * Services.storage on PostgreSQL: there is no SQLite handle, and a use of it says so instead of answering wrongly.
 * A Proxy (not a getter) so that spreading the services copies it without touching it.
 */
function noSqliteHandle(where: string): Storage {
  return new Proxy({} as Storage, {
    get: (_t, prop) => {
      if (prop === "then" || typeof prop === "symbol") return undefined;
      throw new Error(`services.storage is the SQLite engine's handle; this server runs on ${where} (use services.store)`);
    },
  });
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  const log = createLogger(config.logLevel ?? "info");
  const clock = Date.now;
  const engine = await openEngine(config);
  const store = engine.store;
  /** This process as a node of the service (PostgreSQL; see below). */
  let node: ClusterNode | null = null;
  const close = async () => {
    await node?.leave().catch(() => {});
    await engine.close().catch(() => {});
  };
  let masterKey: MasterKey;
  try {
    masterKey = loadMasterKey(await checkedKeySource(engine, config), config.env ?? {});
    await checkMasterKey(engine, masterKey, config);
  } catch (e) {
    await close();
    throw e;
  }
  const secrets = new Sealer(masterKey.derive("secrets"));
  // Personal data is compressed before it is sealed (docs/performance.md says why that is safe at rest).
  const pii = new Sealer(masterKey.derive("pii"), "auto", { compress: true });
  const repositories = engine.repositories({ pii, secrets, clock, env: config.env ?? {} });
  const auditTrees = repositories.auditTrees;
  let opened: Awaited<ReturnType<typeof openAuditKey>>;
  try {
    opened = await openAuditKey(auditTrees, config, clock(), engine.where);
  } catch (e) {
    await close();
    throw e;
  }
  let auditKey: AuditSigningKey | null = "key" in opened ? opened.key : null;
  if ("problem" in opened) log("warn", `audit signing key: ${opened.problem}`);
  // A rotation by the CLI lists a new active key and rewrites the key file: the next checkpoint reads it (so does a
  // key file put back after a start without it).
  const currentAuditKey = async (): Promise<AuditSigningKey> => {
    const active = await auditTrees.activeKey();
    if (!auditKey || (active && active.keyId !== auditKey.keyId)) {
      const next = readAuditKey(config.dbPath, config.env ?? {});
      if (!next || (active && next.keyId !== active.keyId))
        throw new AuditTreeError(`no audit checkpoint signed: the audit signing key ${next ? `file holds ${next.keyId}, not` : "file is missing for"} the active key ${active?.keyId ?? "(none)"}`);
      auditKey = next;
    }
    return auditKey;
  };
  let pricing: Pricing;
  try {
    pricing = createPricing(repositories.fxValuations, config.env ?? {}, clock);
  } catch (e) {
    await close();
    throw e instanceof FxConfigError ? new ConfigError(e.message) : e;
  }
  // PostgreSQL: this process is one node of the service (docs/architecture.md#several-nodes). It registers before it
  // serves (a second process with a live node's CARAVAN_NODE_ID stops here, saying why) and is ready only while its
  // membership is current. Its runtime is placed: it handles the actors of the shards it holds (all 64 when alone), and
  // an ask of another node's actor goes through the mailbox, its answer coming back as a row for this node.
  if (engine.kind === "postgres") {
    try {
      node = new ClusterNode(engine.cluster, { ...clusterNodeOptionsFromEnv(config.env ?? {}), clock, log, address: `${config.host}:${config.port}` });
      await node.join();
    } catch (e) {
      await close();
      throw e instanceof DuplicateNodeError || (e instanceof Error && e.message.startsWith("CARAVAN_")) ? new ConfigError(e.message) : e;
    }
    log("info", "cluster node registered", { nodeId: node.nodeId, shards: node.leases().length });
  }
  const runtime = new ActorRuntime(store, {
    // The sweeps run on the leader only (docs/architecture.md#several-nodes); on SQLite there is no node: it leads.
    leader: node ?? undefined,
    clock,
    concurrency: config.concurrency,
    log,
    sealer: new Sealer(masterKey.derive("mailbox")),
    sweepSchedule: config.sweepSchedule,
    pollMs: config.actorPollMs,
    compactEvents: config.compactEvents,
    ...(node ? { placement: node, replies: engine.replies ?? undefined, wakeups: engine.wakeups ?? undefined } : {}),
  });
  let webhooks: WebhookServices;
  try {
    webhooks = createWebhookServices((id) => runtime.tell(webhookAddress(id), { type: "kick" } satisfies WebhookMessage), config.env ?? {});
  } catch (e) {
    await close();
    throw e instanceof WebhookConfigError ? new ConfigError(e.message) : e;
  }
  let ready = false;
  let maintenance: Maintenance | null = null;
  const services: Services = {
    storage: engine.sqlite ?? noSqliteHandle(engine.where),
    store,
    engine: { kind: engine.kind, where: engine.where, store, repositories: (keys) => engine.repositories(keys), cluster: engine.cluster, replies: engine.replies },
    runtime,
    log,
    clock,
    config,
    repositories,
    tenancy: repositories.tenancy,
    audit: repositories.audit,
    auditTrees,
    auditKey: currentAuditKey,
    // Several nodes: each enforces its share of every budget (the budget over the live nodes; docs/api.md#rate-limits).
    limiter: new RateLimiter(config.rateLimits ?? DEFAULT_RATE_LIMITS, clock, node ? nodeCountOf(node) : undefined),
    masterKey,
    pii,
    secrets,
    cursorKey: masterKey.derive("cursor"),
    eventIds: new EventIds(masterKey.derive("event-ids")),
    deadLetterIds: new EventIds(masterKey.derive("dead-letter-ids")),
    wakeups: engine.wakeups,
    streamRegistry: node ? engine.streams(node) : null,
    nameIndexKey: masterKey.derive("name-index"),
    providers: noProviders,
    connectionTester: defaultTester,
    pricing,
    catalog: loadCatalog(),
    policy: repositories.assets,
    providerSettings: repositories.providerSettings,
    webhooks,
    screening: noScreening,
    ready: () => ready && (node?.current() ?? true),
    searchIndexedElsewhere: () => maintenance?.indexesSearch() ?? false,
    reportFault: (msg, e, fields) => runtime.reportFault(msg, e, fields),
  };
  try {
    wireScreening(services, config.env ?? {});
  } catch (e) {
    await close();
    throw e;
  }
  wireProviders(services, config.env ?? {});
  registerActors(services);
  const app = createApp({ ...services, storage: store });
  try {
    await runtime.start();
  } catch (e) {
    await runtime.stop().catch(() => {});
    await close();
    throw e;
  }
  let server: RunningServer;
  try {
    server = await listen((req) => app.fetch(req), { hostname: config.host, port: config.port });
  } catch (e) {
    await runtime.stop();
    await close();
    const inUse = (e as { code?: string }).code === "EADDRINUSE" || /in use/i.test((e as Error).message);
    throw new ConfigError(
      inUse
        ? `port ${config.port} on ${config.host} is already in use (another Caravan, or another program, listens there): stop it, or start on another port with PORT=<port> (PORT=0 picks a free one)`
        : `cannot listen on ${config.host}:${config.port}: ${(e as Error).message}`,
    );
  }
  // provider_d (TRP): Caravan's own mutual-TLS listener when CARAVAN_TRP_TLS_PORT is set (docs/providers/provider_d.md).
  let trp: TlsFront | null = null;
  try {
    trp = await startTrpListener(config.env ?? {}, config.host, server.port);
  } catch (e) {
    await server.stop();
    await runtime.stop();
    await close();
    throw e instanceof ConfigError ? e : new ConfigError(`cannot start the TRP TLS listener: ${(e as Error).message}`);
  }
  ready = true;
  // SQLite: WAL checkpoints run on a worker thread, not on commits (docs/performance.md); file databases only.
  // PostgreSQL: nothing (the server checkpoints by itself; the search index is filled by the sweep).
  const worker = (maintenance = engine.startMaintenance({ log }));
  const sealer: AuditSealer = startAuditSealer({
    trees: auditTrees,
    key: currentAuditKey,
    clock,
    log,
    checkpointMs: config.auditCheckpointMs ?? 300_000,
    sealMs: config.auditSealMs,
    announce: (seqs) => runtime.announceEvents(seqs),
    leads: node ? () => node!.leads() : undefined,
  });
  let stopped: Promise<void> | undefined;
  return {
    ...services,
    server,
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`,
    trpUrl: trp ? `https://${trpHost(config.env ?? {}, config.host)}:${trp.port}` : null,
    stop() {
      stopped ??= (async () => {
        ready = false;
        sealer.stop();
        await trp?.stop();
        await server.stop();
        // Attempts on the wire finish (10 s at most) and their results commit before the runtime stops.
        await webhooks.deliverer.drain();
        await runtime.stop();
        // Its leases and its node ID are free at once for the others (and a restart).
        await node?.leave().catch(() => {});
        // Before the server's connection closes: the last connection to close checkpoints and removes the WAL.
        await worker.stop();
        await engine.close();
      })();
      return stopped;
    },
  };
}
