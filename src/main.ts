// The one CLI: serve, migrate, keys, members, companies (console and demo arrive with their issues).
import process from "node:process";
import { parseArgs } from "node:util";
import { storageSettingsFromEnv, StorageError } from "./adapters/storage/index.ts";
import { describeEngine, engineSettingsFromEnv, newestEngineMigration } from "./adapters/storage/engine.ts";
import { isPostgresUrl } from "./adapters/storage/postgres/index.ts";
import { TenancyError } from "./ports/tenancy.ts";
import { configFromEnv, ConfigError, startService } from "./services.ts";
import { CommandError, UsageError } from "./cli/usage.ts";
import { configuredBackup, configuredMigrateTo, isDatabaseCommand, runDatabaseCommand } from "./cli/entry.ts";
import { runBackup } from "./cli/backup.ts";
import { isCompiled } from "./adapters/storage/migrations.ts";
import { nodeUrls } from "./console/client.ts";
import pkg from "../package.json" with { type: "json" };

const USAGE = `usage: caravan <command> [options]

commands:
  serve                 run the API (PORT, HOST, CARAVAN_DB or CARAVAN_DATABASE_URL, see docs/operations.md)
  demo [--count N] [--interval ms] [--webhooks|-v] [--database-url postgres://…] [--nodes 2]   the API plus sandbox peers, demo customers and rounds of transfers (N rounds, then a summary); on PostgreSQL with --database-url, on two nodes of it with --nodes 2
  sandbox [--port P] [--caravan-url U] [--screening-d-port Q] [--screening-c-port R]   the provider_a, provider_b and provider_e sandbox networks and the screening_c and screening_d sandbox vendors, without the service; prints the provider_b settings to paste (see docs/getting-started.md)
  migrate               apply database migrations and exit
  backup --to <file>    a consistent copy of the live database, safe while serve runs
  migrate-to --database-url postgres://…   copy the SQLite database into an empty PostgreSQL database (see docs/operations.md)
  keys create|list|revoke
  members create|list|setup|sign-out|disable|enable|role
  companies create|list|suspend|reactivate|feature|profile
  assets list|enable|disable   the asset catalogue and which assets an environment accepts (see docs/customers-wallets.md)
  customers hold --id <customerId> [--release]
  wallets challenge|prove|attest|proofs|revoke-proof   ownership proofs (see docs/customers-wallets.md)
  cases list|show|note|assign|resolve --member <email>   officers' case work (see docs/cases.md)
  reports list|show|draft|edit|submit|approve|file   suspicion reports and their filing life (see docs/reports.md)
  rules list|promote   a rule proven in test promoted to live (see docs/rules.md)
  dead-letters list|replay   actor messages parked after their last attempt; replay puts them back (see docs/operations.md)
  audit checkpoint|public-key|rotate-key|verify   the audit log's signed checkpoints and the offline verifier (see docs/operations.md)
  console [--url U] [--key K]   the operator console, a terminal client of the API (CARAVAN_URL, CARAVAN_API_KEY; see docs/console.md)
Every command but serve takes --json for machine-readable output; <command> --help shows its line.
  help | --help         this text;   version | --version   the version, schema and runtime`;

const COMMANDS = ["serve", "demo", "sandbox", "migrate", "backup", "migrate-to", "keys", "members", "companies", "assets", "customers", "wallets", "cases", "reports", "dead-letters", "audit", "console"];

/** `caravan <command> --help`: that command's usage line(s), and where the whole reference is. */
function commandHelp(command: string): string {
  const lines = USAGE.split("\n").filter((l) => l.startsWith(`  ${command} `) || l === `  ${command}`);
  return `usage: caravan ${lines.map((l) => l.trim()).join("\n       caravan ")}\nEnvironment and every option: docs/operations.md (CLI, Configuration).`;
}

/** A mistake in how the CLI was called (node:util parseArgs): one line and how to see the options. */
function isParseArgsError(e: unknown): e is Error & { code: string } {
  const code = e instanceof Error ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}

/** SQLite's "database is locked": another process holds the write lock longer than the busy timeout. */
function isLocked(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = String((e as { code?: unknown }).code ?? "");
  return code.startsWith("SQLITE_BUSY") || /database is locked/i.test(e.message);
}

/**
 * `caravan 0.1.0 (schema 0012_…, bun 1.4.5, executable)`: what an operator pastes into a bug report. With
 * CARAVAN_DATABASE_URL set, the PostgreSQL schema and the word `postgresql` (never the URL: it may hold a password).
 */
function version(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  const runtime = deno ? `deno ${deno.version.deno}` : process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.versions.node}`;
  let pg = false;
  try {
    pg = engineSettingsFromEnv(process.env).databaseUrl !== undefined;
  } catch {
    /* not a postgres:// URL: serve says so; the version is still the version */
  }
  return `caravan ${pkg.version} (schema ${newestEngineMigration({ databaseUrl: pg ? "postgres://" : undefined }) ?? "none"}${pg ? ", postgresql" : ""}, ${runtime}, ${isCompiled ? "executable" : "source"})`;
}

/** Faults the operator must fix: one clear line, exit code 1, no stack trace. */
function fatal(e: unknown): never {
  if (e instanceof StorageError || e instanceof ConfigError || e instanceof UsageError || e instanceof CommandError || e instanceof TenancyError) {
    console.error(`caravan: ${e.message}`);
  } else if (isParseArgsError(e)) {
    const command = COMMANDS.includes(process.argv[2]) ? process.argv[2] : null;
    console.error(`caravan: ${e.message}${command ? ` (caravan ${command} --help shows its options)` : ""}`);
  } else if (isLocked(e)) {
    const db = process.env.CARAVAN_DB || "./data/caravan.db";
    console.error(
      `caravan: the database ${db} is locked: another process is writing to it (a backup, a migration, an open sqlite3 shell). Try again once it is done, or wait longer with CARAVAN_BUSY_TIMEOUT_MS (now ${process.env.CARAVAN_BUSY_TIMEOUT_MS || 5000} ms)`,
    );
  } else {
    console.error(`caravan: unexpected error: ${e instanceof Error ? e.message : String(e)}`);
    if (process.env.CARAVAN_DEBUG) console.error(e);
  }
  process.exit(1);
}

async function serve(): Promise<void> {
  const config = configFromEnv(process.env);
  const service = await startService(config);
  console.log(`caravan listening on ${service.url} (database ${describeEngine(config)})`);
  if (service.trpUrl) console.log(`caravan TRP listening on ${service.trpUrl} (mutual TLS)`);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.log("info", "shutting down", { signal });
    try {
      await service.stop();
      process.exit(0);
    } catch (e) {
      fatal(e);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

async function demo(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { count: { type: "string" }, interval: { type: "string" }, webhooks: { type: "boolean", short: "v" }, "database-url": { type: "string" }, nodes: { type: "string" } },
    strict: true,
  });
  const count = values.count === undefined ? undefined : Number(values.count);
  if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new UsageError("--count must be a whole number of rounds, 1 or more");
  const intervalMs = values.interval === undefined ? undefined : Number(values.interval);
  if (intervalMs !== undefined && !(Number.isInteger(intervalMs) && intervalMs >= 0)) throw new UsageError("--interval must be milliseconds, 0 or more");
  // Only the flag selects PostgreSQL: a CARAVAN_DATABASE_URL left in the environment for serve never receives demo data.
  const databaseUrl = values["database-url"]?.trim() || undefined;
  if (values["database-url"] !== undefined && !isPostgresUrl(databaseUrl)) throw new UsageError("--database-url must be a postgres:// (or postgresql://) URL of an empty database");
  const nodes = values.nodes === undefined ? undefined : Number(values.nodes);
  if (nodes !== undefined && nodes !== 1 && nodes !== 2) throw new UsageError("--nodes must be 1 or 2");
  if (nodes === 2 && databaseUrl === undefined) throw new UsageError("--nodes 2 needs --database-url postgres://…: the nodes of one service share one PostgreSQL database");
  const { runDemo } = await import("./demo.ts");
  const config = configFromEnv(process.env);
  const d = await runDemo({
    port: config.port,
    dbPath: process.env.CARAVAN_DB || undefined,
    databaseUrl,
    count,
    intervalMs,
    webhooks: values.webhooks === true,
    nodes,
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await d.stop();
      process.exit(0);
    })());
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  await d.done;
  if (count !== undefined) await stop();
}

async function sandbox(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: "string" }, "caravan-url": { type: "string" }, "screening-d-port": { type: "string" }, "screening-c-port": { type: "string" } },
    strict: true,
  });
  const caravanUrl = (values["caravan-url"] ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+$/.test(caravanUrl)) throw new UsageError(`--caravan-url must be the server's origin (http://host:port), not "${caravanUrl}"`);
  const { startProviderBPeer, SANDBOX_CARAVAN_B, SANDBOX_ALPINE_CUSTOMER } = await import("./sandbox/provider_b/index.ts");
  const { publicKeyBase64 } = await import("./adapters/providers/provider_b/crypto.ts");
  const { startScreeningDSandbox, SANDBOX_SCREENING_D_KEY } = await import("./sandbox/screening_d/index.ts");
  const { startScreeningCSandbox, SANDBOX_API_KEY: SANDBOX_SCREENING_C_KEY } = await import("./sandbox/screening_c/index.ts");
  const peer = await startProviderBPeer({
    port: values.port ? Number(values.port) : 0,
    vasps: [{ entityId: "VASP-ALPINE", name: "Alpine Exchange", country: "CH", wallets: [{ address: SANDBOX_ALPINE_CUSTOMER.address, customer: "ruth" }], customers: { ruth: [SANDBOX_ALPINE_CUSTOMER.person] } }],
  });
  // Caravan's sandbox member: a published key that only this loopback network knows, so the settings below can be pasted.
  const { privateKey, ...who } = SANDBOX_CARAVAN_B;
  peer.registerCaravan({ entityId: who.vaspEntityId, publicKeyBase64: publicKeyBase64(privateKey), callbackBaseUrl: caravanUrl, legalName: who.legalName, country: who.country });
  console.log(`provider_b sandbox network at ${peer.url}`);
  for (const v of peer.directory.vasps.values()) console.log(`  VASP ${v.entityId} (${v.name}) public key ${v.publicKeyBase64}; customer ${SANDBOX_ALPINE_CUSTOMER.name} at ${SANDBOX_ALPINE_CUSTOMER.address}`);
  console.log(`  Caravan registered as ${who.vaspEntityId}, callbacks to ${caravanUrl} (--caravan-url); serve Caravan with CARAVAN_ALLOW_PRIVATE_TARGETS=127.0.0.1,`);
  console.log(`  then paste, with a test key in KEY and a live key in LIVE_KEY (docs/getting-started.md):`);
  console.log(`    for k in $KEY $LIVE_KEY; do curl -s -X PUT ${caravanUrl}/api/v2/providers/provider_b -H "x-api-key: $k" -H 'content-type: application/json' -d '${JSON.stringify({ credentials: { apiUrl: peer.url, ...SANDBOX_CARAVAN_B } })}'; done`);
  console.log(`    curl -s -X PATCH ${caravanUrl}/api/v2/providers/provider_b -H "x-api-key: $LIVE_KEY" -H 'content-type: application/json' -d '{"enabled":true}'`);
  const screeningD = await startScreeningDSandbox({ port: values["screening-d-port"] ? Number(values["screening-d-port"]) : 0 });
  console.log(`screening_d sandbox vendor at ${screeningD.url} (CARAVAN_SCREENING_D_URL; apiKey ${SANDBOX_SCREENING_D_KEY}; faults: PUT ${screeningD.url}/_sandbox/fault)`);
  const screeningC = await startScreeningCSandbox({ port: values["screening-c-port"] ? Number(values["screening-c-port"]) : 0 });
  console.log(`screening_c sandbox vendor at ${screeningC.url} (CARAVAN_SCREENING_C_URLS=eu=${screeningC.url}; apiKey ${SANDBOX_SCREENING_C_KEY}; faults: PUT ${screeningC.url}/_sandbox/fault)`);
  // provider_e: the Sygna-style bridge with its demo VASPs (src/sandbox/provider_e).
  const { startProviderEBridge, DEMO_VASPS } = await import("./sandbox/provider_e/index.ts");
  const bridgeE = await startProviderEBridge({ vasps: DEMO_VASPS });
  console.log(`provider_e sandbox bridge at ${bridgeE.baseUrl} (CARAVAN_PROVIDER_E_TEST_URL; bridgePublicKey ${bridgeE.bridgePublicKey})`);
  // provider_a: the Notabene-style network with its demo VASPs (src/sandbox/provider_a); register Caravan's webhook
  // URL with POST <url>/_sandbox/caravan once the provider is saved (its callbackPaths name the providerId).
  const { startProviderAPeer, DEMO_VASPS: DEMO_VASPS_A, SANDBOX_CARAVAN } = await import("./sandbox/provider_a/index.ts");
  const peerA = await startProviderAPeer({ vasps: DEMO_VASPS_A });
  console.log(`provider_a sandbox network at ${peerA.url} (apiUrl and CARAVAN_PROVIDER_A_AUTH_URL; CARAVAN_PROVIDER_A_API_ORIGINS=${peerA.url}; client ${SANDBOX_CARAVAN.clientId})`);
  for (const v of DEMO_VASPS_A) console.log(`  VASP ${v.did} (${v.name}): ${v.behaviour}; wallet ${v.wallets[0].address}`);
  const stop = async () => {
    await peerA.stop();
    await bridgeE.stop();
    await screeningC.stop();
    await screeningD.stop();
    await peer.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

/**
 * Before the console draws anything: is a Caravan at the URL, and does it take the key? Each answer a newcomer can get
 * wrong (nothing listening, another program, a refused key) is one line with the fix instead of an error inside the UI.
 */
async function consolePreflight(args: string[], env: Record<string, string | undefined>): Promise<void> {
  const { values } = parseArgs({ args, options: { url: { type: "string" }, key: { type: "string" } }, strict: true });
  const url = values.url ?? env.CARAVAN_URL ?? "http://127.0.0.1:8080";
  // No key: the console signs a member in (its sign-in screen); the server is checked the same way.
  const key = values.key ?? env.CARAVAN_API_KEY;
  // Several nodes (--url http://a,http://b): each must be a URL, and the first that answers is checked.
  const bases: URL[] = [];
  for (const u of nodeUrls(url)) {
    try {
      const base = new URL(u);
      if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error("not http");
      bases.push(base);
    } catch {
      throw new UsageError(`"${u}" is not an http(s) URL: give --url http://127.0.0.1:8080 (or CARAVAN_URL; several nodes separated by commas)`);
    }
  }
  let res: Response | null = null;
  let base = bases[0]!;
  let why = "";
  for (const b of bases) {
    base = b;
    try {
      res = key
        ? await fetch(new URL("/api/v2/me", base), { headers: { "x-api-key": key, accept: "application/json" }, signal: AbortSignal.timeout(10_000) })
        : await fetch(new URL("/api/v2/openapi.json", base), { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
      break;
    } catch (e) {
      why = (e as Error).name === "TimeoutError" ? "no answer within 10 s" : "nothing answers there";
    }
  }
  if (!res) {
    const where = bases.length > 1 ? `any of ${bases.map((b) => b.origin).join(", ")}` : base.origin;
    throw new UsageError(`cannot reach Caravan at ${where} (${why}): start the server (bun run start) or point --url / CARAVAN_URL at it`);
  }
  const body = (await res.json().catch(() => null)) as { code?: string } | null;
  if (res.status === 401 || res.status === 403) {
    const code = body?.code ?? String(res.status);
    throw new UsageError(
      code === "TENANT_SUSPENDED"
        ? `the key's company is suspended (${code}): reactivate it (bun src/main.ts companies reactivate --slug <slug>)`
        : `the API key was refused (${code}): check it, or make one with bun src/main.ts keys create --env test --member <email> against the server's database (or leave out --key and sign in as a member)`,
    );
  }
  if (!res.ok || body === null)
    throw new UsageError(`${base.origin} does not answer as Caravan (GET ${key ? "/api/v2/me" : "/api/v2/openapi.json"}: ${res.status}): point --url / CARAVAN_URL at the Caravan server`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const out = (line: string) => console.log(line);
  if (command && COMMANDS.includes(command) && (rest.includes("--help") || rest.includes("-h") || rest[0] === "help")) {
    console.log(commandHelp(command));
    return;
  }
  // The verifier reads a database or a backup without migrating or writing it.
  if (command === "audit" && rest[0] === "verify") {
    // The configured database: CARAVAN_DATABASE_URL when it names PostgreSQL, else CARAVAN_DB (--db overrides both).
    const { dbPath } = storageSettingsFromEnv(process.env);
    const configured = process.env.CARAVAN_DATABASE_URL?.trim() || dbPath;
    const { verifyAuditFile } = await import("./adapters/storage/audit-verify.ts");
    await (await import("./cli/audit.ts")).runAuditVerify(verifyAuditFile, rest.slice(1), configured, out);
    return;
  }
  if (isDatabaseCommand(command)) return runDatabaseCommand(command, rest, out, process.env);
  switch (command) {
    case "serve":
      parseArgs({ args: rest, options: {}, strict: true });
      return serve();
    case "demo":
      return demo(rest);
    case "console":
      await consolePreflight(rest, process.env);
      return (await import("./console/app.tsx")).runConsole(rest, process.env);
    case "sandbox":
      return sandbox(rest);
    case "backup":
      return runBackup(rest, configuredBackup(process.env), out);
    case "migrate-to":
      return (await import("./cli/migrate-to.ts")).runMigrateTo(rest, configuredMigrateTo(process.env), out, process.env);
    case "version":
    case "--version":
    case "-v":
      console.log(version());
      return;
    case undefined:
    case "help":
    case "--help":
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch(fatal);
