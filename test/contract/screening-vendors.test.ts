// The screening vendor contract against each vendor's sandbox peer over loopback (screening_c, screening_d), through
// the real screening service, the integration actor on a real SQLite file and the runtime's clock (the test's, so a
// minute passes without waiting): no answer in time is TIMEOUT after one request, an answer over the size cap is
// RESPONSE_TOO_LARGE, and the circuit breaker where the vendor has one (Part 3 gives screening_c one: it opens after
// five failed checks in a row each within a minute, skips checks for a minute with no request, even across a
// restart, then half-opens and closes after two successes, or opens again on a failure). screening_d has none: every
// check reaches the vendor whatever came before. A new vendor is added to VENDORS.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { openStorage, type Storage } from "../../src/adapters/storage/index.ts";
import { ActorRuntime } from "../../src/actors/runtime.ts";
import { integrationActor, integrationAddress } from "../../src/actors/integration.ts";
import { BREAKER_INTEGRATIONS, createScreeningService, type ScreeningService } from "../../src/adapters/screening/index.ts";
import { screeningC } from "../../src/adapters/screening/screening_c/index.ts";
import { screeningD } from "../../src/adapters/screening/screening_d/adapter.ts";
import type { ScreeningAdapter, ScreeningSubject } from "../../src/adapters/screening/types.ts";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";
import { ProviderSettings } from "../../src/adapters/storage/repos/provider-settings.ts";
import { Sealer } from "../../src/adapters/crypto/envelope.ts";
import { loadMasterKey } from "../../src/adapters/crypto/master-key.ts";
import { FAILURE_WINDOW_MS, FAILURES_TO_OPEN, OPEN_FOR_MS, SUCCESSES_TO_CLOSE } from "../../src/domain/screening/breaker.ts";
import { startScreeningCSandbox, SANDBOX_API_KEY, type WatchEntry } from "../../src/sandbox/screening_c/index.ts";
import { startScreeningDSandbox, SANDBOX_SCREENING_D_KEY } from "../../src/sandbox/screening_d/index.ts";
import type { IntegrationName } from "../../src/domain/providers/catalog.ts";
import { person } from "../support/persons.ts";
import { tempDir } from "../support/tmp.ts";
import { settingsWriter } from "../support/settings.ts";
import { AuditLog } from "../../src/adapters/storage/repos/audit.ts";

setDefaultTimeout(60_000);

/** What the suite needs of a vendor's sandbox peer. */
interface Peer {
  url: string;
  requests: () => number;
  fail(): void;
  /** Answers only after the adapter's timeout. */
  slow(): void;
  /** Answers over the adapter's size cap (a peer of its own when the vendor's sandbox needs one). */
  oversized(): Promise<string>;
  clear(): void;
  stop(): Promise<void>;
}

interface Vendor {
  name: IntegrationName;
  adapter: (url: string, timeoutMs?: number) => ScreeningAdapter;
  credentials: Record<string, string>;
  subjects: ScreeningSubject[];
  start(): Promise<Peer>;
}

/** The adapters' timeout here: short, so a slow answer is a timeout without a ten-second wait. */
const TIMEOUT_MS = 300;
const SLOW_MS = 3_000;

const VENDORS: Vendor[] = [
  {
    name: "screening_c",
    adapter: (url, timeoutMs = TIMEOUT_MS) => screeningC({ urls: { eu: url, us: url, apac: url }, timeoutMs }),
    credentials: { apiKey: SANDBOX_API_KEY },
    subjects: [{ kind: "name", party: "originator", person: person("Keller", "Ruth", null) }],
    async start() {
      const peer = await startScreeningCSandbox();
      const extra: { stop(): Promise<void> }[] = [];
      return {
        url: peer.url,
        requests: () => peer.requests.length,
        fail: () => peer.setFault({ kind: "status", status: 503 }),
        slow: () => peer.setFault({ kind: "slow", delayMs: SLOW_MS }),
        async oversized() {
          // The vendor's answer lists each hit's documents: a hundred hits with long source lists pass the 4 MiB cap.
          const watchlist: WatchEntry[] = Array.from({ length: 100 }, (_, i) => ({ id: `SBXBIG${String(i).padStart(4, "0")}`, name: "Ruth Keller", aka: [], entityType: "person", types: ["sanction"], sources: ["s".repeat(50_000)] }));
          const big = await startScreeningCSandbox({ watchlist });
          extra.push(big);
          return big.url;
        },
        clear: () => peer.setFault(null),
        async stop() {
          await Promise.all([peer.stop(), ...extra.map((x) => x.stop())]);
        },
      };
    },
  },
  {
    name: "screening_d",
    adapter: (url, timeoutMs = TIMEOUT_MS) => screeningD({ baseUrl: url, timeoutMs }),
    credentials: { apiKey: SANDBOX_SCREENING_D_KEY },
    subjects: [{ kind: "address", party: "beneficiary", network: "ethereum", address: "0x52908400098527886E0F7030069857D2E4169EE7" }],
    async start() {
      const peer = await startScreeningDSandbox();
      return {
        url: peer.url,
        requests: () => peer.requests.length,
        fail: () => peer.setFault("*", { kind: "status", status: 503 }),
        slow: () => peer.setFault("*", { kind: "slow", delayMs: SLOW_MS }),
        async oversized() {
          peer.setFault("*", { kind: "oversized" });
          return peer.url;
        },
        clear: () => peer.clearFaults(),
        stop: () => peer.stop(),
      };
    },
  },
];

const dir = tempDir();
const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);
const by = { type: "system" as const };

for (const v of VENDORS) {
  describe(`${v.name} meets the screening vendor contract against its sandbox`, () => {
    const db = join(dir, `${v.name}-vendor.db`);
    let now = T0;
    const clock = () => now;
    let peer: Peer;
    let storage: Storage;
    let runtime: ActorRuntime;
    let settings: ProviderSettings;
    let companies = 0;

    async function boot() {
      storage = await openStorage(db);
      runtime = new ActorRuntime(storage, { clock });
      await runtime.register(integrationActor()).start();
      settings = new ProviderSettings(storage, new Sealer(loadMasterKey(db, {}).derive("secrets")));
    }
    async function shutdown() {
      await runtime.stop();
      storage.close();
    }
    const service = (url = peer.url, timeoutMs?: number): ScreeningService =>
      createScreeningService({ adapters: { [v.name]: v.adapter(url, timeoutMs) }, settings, runtime, breakerAddress: integrationAddress, fetch: providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" }), clock });
    /** A new company with the vendor saved and switched on for `test`. */
    async function company(): Promise<string> {
      const id = `cmp_${v.name}_${++companies}`;
      const writer = settingsWriter(storage, { providerSettings: settings, audit: new AuditLog(storage) });
      const saved = await writer.save(id, "test", v.name, { credentials: v.credentials, notes: undefined }, by, now);
      if (!saved.ok) throw new Error(saved.code);
      await writer.setEnabled(id, "test", v.name, true, by, now);
      return id;
    }
    const actorState = (companyId: string) => {
      const row = storage.client.prepare("SELECT state FROM actor_state WHERE address = ?").get(integrationAddress(companyId, "test", v.name)) as { state: string } | null;
      return row ? JSON.parse(row.state) : null;
    };
    const phase = (companyId: string) => actorState(companyId)?.breaker.phase ?? null;

    beforeAll(async () => {
      peer = await v.start();
      await boot();
    });
    afterAll(async () => {
      await shutdown();
      await peer?.stop();
    });

    test("the sandbox's normal answer → success (the suite's setup is sound)", async () => {
      expect((await service().check(await company(), "test", v.name, v.subjects)).status).toBe("success");
    });

    test("no answer within the timeout → TIMEOUT, asked once", async () => {
      const c = await company();
      peer.slow();
      const before = peer.requests();
      try {
        const r = await service().check(c, "test", v.name, v.subjects);
        expect(r.status).toBe("error");
        expect(r.screenings[0].error).toBe("TIMEOUT");
        expect(peer.requests() - before).toBe(1);
      } finally {
        peer.clear();
      }
    });

    test("an answer over the size cap → RESPONSE_TOO_LARGE, nothing of it kept", async () => {
      const c = await company();
      const url = await peer.oversized();
      try {
        // The vendor's default timeout: building a large answer takes the sandbox a while.
        const r = await service(url, 10_000).check(c, "test", v.name, v.subjects);
        expect(r.status).toBe("error");
        expect(r.screenings[0]).toMatchObject({ status: "error", error: "RESPONSE_TOO_LARGE", response: null });
      } finally {
        peer.clear();
      }
    });

    if (BREAKER_INTEGRATIONS.has(v.name)) {
      test(`breaker: ${FAILURES_TO_OPEN} failures in a row → open, skipped with no request (also after a restart); after the open minute half-open, ${SUCCESSES_TO_CLOSE} successes close it`, async () => {
        const c = await company();
        let s = service();
        peer.fail();
        const before = peer.requests();
        for (let i = 0; i < FAILURES_TO_OPEN; i++) {
          now += FAILURE_WINDOW_MS - 10_000; // each within the window of the one before
          expect(await s.check(c, "test", v.name, v.subjects)).toMatchObject({ status: "error", error: "HTTP_503" });
        }
        expect(peer.requests() - before).toBe(FAILURES_TO_OPEN);
        await runtime.idle();
        expect(actorState(c).breaker).toMatchObject({ phase: "open", openUntil: now + OPEN_FOR_MS });
        peer.clear();
        const openedAt = now;

        now += OPEN_FOR_MS / 2;
        expect(await s.check(c, "test", v.name, v.subjects)).toMatchObject({ integration: v.name, status: "skipped", screenings: [], error: "CIRCUIT_OPEN" });
        expect(peer.requests() - before).toBe(FAILURES_TO_OPEN);
        // Further checks while it is open are skipped from what the actor answered (no ask, no commit): one skip counted.
        for (let i = 0; i < 3; i++) expect((await s.check(c, "test", v.name, v.subjects)).status).toBe("skipped");
        await runtime.idle();
        expect(actorState(c).skipped).toBe(1);
        // The open breaker is durable: a restarted service still refuses fast.
        await shutdown();
        await boot();
        s = service();
        expect((await s.check(c, "test", v.name, v.subjects)).status).toBe("skipped");
        expect(peer.requests() - before).toBe(FAILURES_TO_OPEN);

        now = openedAt + OPEN_FOR_MS + 1;
        for (let i = 0; i < SUCCESSES_TO_CLOSE; i++) {
          expect(phase(c)).not.toBe("closed");
          expect((await s.check(c, "test", v.name, v.subjects)).status).toBe("success");
          await runtime.idle();
        }
        expect(phase(c)).toBe("closed");
        expect(peer.requests() - before).toBe(FAILURES_TO_OPEN + SUCCESSES_TO_CLOSE);
      });

      test("breaker: a failure while half-open opens it again", async () => {
        const c = await company();
        const s = service();
        peer.fail();
        try {
          for (let i = 0; i < FAILURES_TO_OPEN; i++) {
            now += 1_000;
            await s.check(c, "test", v.name, v.subjects);
          }
          now += OPEN_FOR_MS + 1;
          const before = peer.requests();
          expect((await s.check(c, "test", v.name, v.subjects)).status).toBe("error"); // the half-open trial
          await runtime.idle();
          expect(phase(c)).toBe("open");
          expect((await s.check(c, "test", v.name, v.subjects)).status).toBe("skipped");
          expect(peer.requests() - before).toBe(1);
        } finally {
          peer.clear();
        }
      });
    } else {
      test("no breaker: failures in a row never skip a check; each one reaches the vendor", async () => {
        const c = await company();
        const s = service();
        peer.fail();
        const before = peer.requests();
        try {
          for (let i = 0; i < FAILURES_TO_OPEN + 2; i++) {
            now += 1_000;
            expect(await s.check(c, "test", v.name, v.subjects)).toMatchObject({ status: "error", error: "HTTP_503" });
          }
          expect(peer.requests() - before).toBe(FAILURES_TO_OPEN + 2);
        } finally {
          peer.clear();
        }
        expect((await s.check(c, "test", v.name, v.subjects)).status).toBe("success");
      });
    }
  });
}
