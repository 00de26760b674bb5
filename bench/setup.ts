// What the in-process benchmarks share: the service on a temp database with the company's rate budget lifted (the
// limiter would answer 429), an owner's key for the test environment, and the body of a below-threshold create.
import { startService, type ServiceConfig } from "../src/services.ts";
import { Tenancy } from "../src/adapters/storage/repos/tenancy.ts";
import { DEFAULT_RATE_LIMITS } from "../src/domain/ratelimit.ts";

export type BenchService = Awaited<ReturnType<typeof startService>>;

export { benchDatabase, benchEngine, dropBenchDatabases, rawEngineCommitRate, rawEngineLabel } from "./engine.ts";
import { benchDatabase, benchEngine } from "./engine.ts";

/** One row of a plain SQL read against the service's database, whichever the engine (`$1` parameters on PostgreSQL, `?` on SQLite: write `?` only once per value). */
export async function benchQuery<T>(service: { storage: { client: { prepare(sql: string): { get(...p: unknown[]): unknown } } }; store: unknown; engine: { kind: string } }, sql: string, ...params: unknown[]): Promise<T> {
  if (service.engine.kind === "postgres") {
    let i = 0;
    const text = sql.replace(/\?/g, () => `$${++i}`);
    return (await (service.store as { read<R>(t: string, p: unknown[]): Promise<R[]> }).read<T>(text, params))[0] as T;
  }
  return service.storage.client.prepare(sql).get(...params) as T;
}

export async function benchService(dbPath: string, extra: Partial<ServiceConfig> = {}): Promise<BenchService> {
  const databaseUrl = benchEngine() === "postgres" && extra.databaseUrl === undefined ? await benchDatabase() : undefined;
  return startService({
    dbPath,
    ...(databaseUrl ? { databaseUrl } : {}),
    host: "127.0.0.1",
    port: 0,
    logLevel: "warn",
    env: {},
    rateLimits: { ...DEFAULT_RATE_LIMITS, company: { limit: 1_000_000_000, windowSeconds: 1 } },
    ...extra,
  });
}

/** A new owner's API key for the default company's test environment. */
export async function ownerKey(service: BenchService): Promise<string> {
  const tenancy = service.engine.kind === "postgres" ? service.tenancy : new Tenancy(service.storage, Date.now);
  const company = await tenancy.requireCompany("default");
  const member = await tenancy.createMember(company.id, "bench@example.com", "owner");
  return (await tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" })).key;
}

/** 0.01 ETH from `customerId` to a fixed address: below every threshold, so the create answers 201 completed. */
export function belowThresholdBody(customerId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    asset: "ETH",
    amount: "0.01",
    network: "ethereum",
    originatorCustomerId: customerId,
    beneficiaryAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } }] },
    ...extra,
  });
}

/**
 * Creates through the application's own fetch (the whole route pipeline, no sockets): 32 customers, then `create`
 * sends `total` below-threshold creates, 32 in flight spread over the customers, each with the Idempotency-Key
 * `key(n)` for the n-th create of this creator, every one answered 201.
 */
export async function inProcessCreator(
  app: { fetch(req: Request): Response | Promise<Response> },
  service: BenchService,
  opts: { prefix: string; key?: (n: number) => string; body?: Record<string, unknown> },
): Promise<{ create(total: number): Promise<void> }> {
  const headers = { "x-api-key": await ownerKey(service), "content-type": "application/json" };
  const bodies: string[] = [];
  for (let i = 0; i < 32; i++) {
    const res = await app.fetch(new Request("http://127.0.0.1/api/v2/customers", { method: "POST", headers, body: JSON.stringify({ externalId: `${opts.prefix}-${i}`, name: `Jane Doe ${i}` }) }));
    bodies.push(belowThresholdBody(((await res.json()) as { data: { id: string } }).data.id, opts.body));
  }
  const key = opts.key ?? ((n: number) => `${opts.prefix}-${n}`);
  let n = 0;
  return {
    async create(total: number): Promise<void> {
      let started = 0;
      const loop = async (): Promise<void> => {
        while (started < total) {
          const body = bodies[started++ % bodies.length];
          const res = await app.fetch(new Request("http://127.0.0.1/api/v2/transfers", { method: "POST", headers: { ...headers, "idempotency-key": key(n++) }, body }));
          if (res.status !== 201) throw new Error(`create answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 32 }, loop));
    },
  };
}
