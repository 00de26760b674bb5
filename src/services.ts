// The composition root: opens storage, starts the actor runtime, serves HTTP. main.ts and tests call it.
import { openStorage, type Storage } from "./adapters/storage/index.ts";
import { listen, type RunningServer } from "./adapters/server/index.ts";
import { createLogger, type Logger, type LogLevel } from "./adapters/log.ts";
import { ActorRuntime } from "./actors/runtime.ts";
import { createApp } from "./http/app.ts";

export interface ServiceConfig {
  dbPath: string;
  host: string;
  port: number;
  logLevel?: LogLevel | "silent";
  concurrency?: number;
  migrationsFolder?: string;
  busyTimeoutMs?: number;
}

export interface Services {
  readonly storage: Storage;
  readonly runtime: ActorRuntime;
  readonly log: Logger;
  readonly clock: () => number;
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
  };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  const log = createLogger(config.logLevel ?? "info");
  const clock = Date.now;
  const storage = await openStorage(config.dbPath, { migrationsFolder: config.migrationsFolder, busyTimeoutMs: config.busyTimeoutMs });
  const runtime = new ActorRuntime(storage, { clock, concurrency: config.concurrency, log });
  let ready = false;
  const services: Services = { storage, runtime, log, clock, ready: () => ready };
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
        await runtime.stop();
        storage.close();
      })();
      return stopped;
    },
  };
}
