// What the in-process benchmarks share: the service on a temp database with the company's rate budget lifted (the
// limiter would answer 429), an owner's key for the test environment, and the body of a below-threshold create.
import { startService, type ServiceConfig } from "../src/services.ts";
import { Tenancy } from "../src/adapters/storage/repos/tenancy.ts";
import { DEFAULT_RATE_LIMITS } from "../src/domain/ratelimit.ts";

export type BenchService = Awaited<ReturnType<typeof startService>>;

export function benchService(dbPath: string, extra: Partial<ServiceConfig> = {}): Promise<BenchService> {
  return startService({
    dbPath,
    host: "127.0.0.1",
    port: 0,
    logLevel: "warn",
    env: {},
    rateLimits: { ...DEFAULT_RATE_LIMITS, company: { limit: 1_000_000_000, windowSeconds: 1 } },
    ...extra,
  });
}

/** A new owner's API key for the default company's test environment. */
export function ownerKey(service: BenchService): string {
  const tenancy = new Tenancy(service.storage, Date.now);
  const company = tenancy.requireCompany("default");
  const member = tenancy.createMember(company.id, "bench@example.com", "owner");
  return tenancy.createKey({ companyId: company.id, memberId: member.id, environment: "test" }).key;
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
