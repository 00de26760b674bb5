// The screening service and its integration actor (Part 3 "screening_c screening": circuit breaker, credentials; the
// service's bounded calls): real SQLite file, real actor runtime, real HTTP to the sandbox vendor. The runtime's clock
// is the test's, so a minute passes without waiting.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { integrationActor, integrationAddress } from "../../src/actors/integration.ts";
import { createScreeningService, type ScreeningService } from "../../src/adapters/screening/index.ts";
import { screeningC } from "../../src/adapters/screening/screening_c/index.ts";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";
import { ProviderSettings } from "../../src/adapters/storage/repos/provider-settings.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { loadMasterKey } from "../../src/adapters/crypto/master-key.ts";
import type { ScreeningSubject } from "../../src/adapters/screening/types.ts";
import { person } from "../support/persons.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY, type ScreeningCSandbox } from "../../src/sandbox/screening_c/index.ts";
import { tempDir } from "../support/tmp.ts";
import { settingsWriter } from "../support/settings.ts";
import { AuditLog } from "../../src/adapters/storage/repos/audit.ts";

setDefaultTimeout(60_000);

const dir = tempDir();
const db = join(dir, "integration.db");
const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);
let now = T0;
const clock = () => now;
const by = { type: "system" as const };

let vendor: ScreeningCSandbox;
let other: ScreeningCSandbox;
let storage: Storage;
let runtime: ActorRuntime;
let settings: ProviderSettings;

const names: ScreeningSubject[] = [{ kind: "name", party: "originator", person: person("Keller", "Ruth", null) }];

async function boot(): Promise<void> {
  storage = await openStorage(db);
  runtime = new ActorRuntime(storage, { clock });
  await runtime.register(integrationActor()).start();
  settings = new ProviderSettings(storage, new Sealer(loadMasterKey(db, {}).derive("secrets")));
}

async function shutdown(): Promise<void> {
  await runtime.stop();
  storage.close();
}

function service(opts: { maxConcurrentCalls?: number; timeoutMs?: number } = {}): ScreeningService {
  return createScreeningService({
    adapters: { screening_c: screeningC({ urls: { eu: vendor.url, us: other.url, apac: vendor.url }, timeoutMs: opts.timeoutMs ?? 2_000 }) },
    settings,
    runtime,
    breakerAddress: integrationAddress,
    fetch: providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" }),
    clock,
    maxConcurrentCalls: opts.maxConcurrentCalls,
  });
}

/** A company with screening_c saved for `test` (and the switch on unless told otherwise). */
async function company(id: string, credentials: Record<string, string> = { apiKey: SANDBOX_API_KEY }, enabled = true): Promise<string> {
  const writer = settingsWriter(storage, { providerSettings: settings, audit: new AuditLog(storage) });
  const saved = await writer.save(id, "test", "screening_c", { credentials, notes: undefined }, by, now);
  if (!saved.ok) throw new Error(saved.code);
  await writer.setEnabled(id, "test", "screening_c", enabled, by, now);
  return id;
}

const breakerState = (companyId: string) => {
  const row = storage.client.prepare("SELECT state FROM actor_state WHERE address = ?").get(integrationAddress(companyId, "test", "screening_c")) as { state: string } | null;
  return row ? JSON.parse(row.state).breaker : null;
};

beforeAll(async () => {
  [vendor, other] = await Promise.all([startScreeningCSandbox(), startScreeningCSandbox()]);
  await boot();
});

afterAll(async () => {
  await shutdown();
  await Promise.all([vendor?.stop(), other?.stop()]);
});

describe("credentials and the switch", () => {
  test("a disabled integration fails the check without a request", async () => {
    const c = await company("cmp_disabled", { apiKey: SANDBOX_API_KEY }, false);
    vendor.requests.length = 0;
    const r = await service().check(c, "test", "screening_c", names);
    expect(r).toMatchObject({ integration: "screening_c", status: "error", screenings: [], error: "INTEGRATION_DISABLED" });
    expect(vendor.requests).toEqual([]);
  });

  test("enabled, but no credentials for the environment: error, no screenings (response null), no request", async () => {
    const c = await company("cmp_livekey");
    vendor.requests.length = 0;
    const r = await service().check(c, "live", "screening_c", names);
    expect(r).toMatchObject({ status: "error", screenings: [], error: "NOT_CONFIGURED" });
    expect(vendor.requests).toEqual([]);
  });

  test("the environment's own key is sent; the check succeeds", async () => {
    const c = await company("cmp_ok");
    vendor.requests.length = 0;
    const r = await service().check(c, "test", "screening_c", names);
    expect(r.status).toBe("success");
    expect(vendor.requests.map((q) => q.authorization)).toEqual([`Token ${SANDBOX_API_KEY}`]);
  });
});

describe("circuit breaker through the integration actor", () => {
  // Opening, refusing fast (also after a restart), half-opening, closing and reopening are proven for every vendor
  // with a breaker by the vendor contract suite (test/contract/screening-vendors.test.ts).
  test("failures more than a minute apart never open it", async () => {
    const c = await company("cmp_slowfail");
    const s = service();
    vendor.setFault({ kind: "status", status: 502 });
    for (let i = 0; i < 7; i++) {
      now += 60_001;
      expect((await s.check(c, "test", "screening_c", names)).status).toBe("error");
    }
    vendor.setFault(null);
    await runtime.idle();
    expect(breakerState(c)).toMatchObject({ phase: "closed", failures: 1 });
  });

  test("checks that make no request (a bad setting) neither open the breaker nor count", async () => {
    const c = await company("cmp_badfuzz", { apiKey: SANDBOX_API_KEY, fuzziness: "7" });
    const s = service();
    vendor.requests.length = 0;
    for (let i = 0; i < 6; i++) expect((await s.check(c, "test", "screening_c", names)).screenings[0].error).toBe("INVALID_FUZZINESS");
    await runtime.idle();
    expect(vendor.requests).toEqual([]);
    expect(breakerState(c)).toMatchObject({ phase: "closed", failures: 0 });
  });

  test("the breaker is per company and environment: another company's open breaker does not skip this one", async () => {
    const a = await company("cmp_open_a");
    const b = await company("cmp_open_b");
    const s = service();
    vendor.setFault({ kind: "status", status: 503 });
    for (let i = 0; i < 5; i++) await s.check(a, "test", "screening_c", names);
    vendor.setFault(null);
    expect((await s.check(a, "test", "screening_c", names)).status).toBe("skipped");
    expect((await s.check(b, "test", "screening_c", names)).status).toBe("success");
  });
});

describe("bounded concurrent calls", () => {
  test("at most maxConcurrentCalls requests per company, environment and integration are in flight; the rest wait and succeed", async () => {
    const c = await company("cmp_bounded");
    const s = service({ maxConcurrentCalls: 2, timeoutMs: 10_000 });
    vendor.resetPeak();
    vendor.setFault({ kind: "slow", delayMs: 150 });
    const many: ScreeningSubject[] = ["Ann", "Bea", "Cid", "Dan", "Eve", "Fay"].map((g) => ({ kind: "name", party: "beneficiary", person: person("Keller", g, null) }));
    const r = await s.check(c, "test", "screening_c", many);
    vendor.setFault(null);
    expect(r.status).toBe("success");
    expect(r.screenings.length).toBe(6);
    expect(vendor.peakInFlight).toBe(2);
  });

  test("a vendor that hangs for one company does not hold another company's calls", async () => {
    const stuck = await company("cmp_stuck");
    const free = await company("cmp_free", { apiKey: SANDBOX_API_KEY, region: "us" });
    const s = service({ maxConcurrentCalls: 1, timeoutMs: 1_500 });
    vendor.setFault({ kind: "slow", delayMs: 20_000 });
    const hung = s.check(stuck, "test", "screening_c", [names[0], { kind: "name", party: "beneficiary", person: person("Vandermeer", "Ilse", null) }]);
    // The stuck company holds its one slot; the other company's call goes straight through.
    const r = await s.check(free, "test", "screening_c", names);
    expect(r.status).toBe("success");
    const h = await hung;
    vendor.setFault(null);
    // One name waited on the vendor, the other waited for the slot: both time out, no second request was made.
    expect(h.screenings.map((x) => x.error)).toEqual(["TIMEOUT", "TIMEOUT"]);
  });
});
