// The screening vendor contract, run against every vendor adapter (screening_c, screening_d): one request, no retry;
// no answer in time is TIMEOUT, an answer over the cap RESPONSE_TOO_LARGE, a refusal HTTP_<status> with its body
// never kept, a redirect or an unreachable vendor NETWORK_ERROR. A new vendor passes this before it is called done.
// Against each vendor's own sandbox peer (timeouts, size caps, the circuit breaker): test/contract/screening-vendors.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";
import { screeningC } from "../../src/adapters/screening/screening_c/index.ts";
import { screeningD } from "../../src/adapters/screening/screening_d/adapter.ts";
import type { ScreeningAdapter, ScreeningSubject } from "../../src/adapters/screening/types.ts";
import { person } from "../support/persons.ts";

type Mode = "slow" | "huge" | "refuse" | "redirect" | "garbage";
let server: ReturnType<typeof Bun.serve>;
let base = "";
let mode: Mode = "refuse";
let hits = 0;
const MARKER = "Jane-Personal-Data-Marker";
/** A 5 MiB answer, built once. */
const HUGE = JSON.stringify({ data: "x".repeat(5 * 1024 * 1024) });
/** The adapters' timeout: short, so the slow answer is cut quickly; the size cap's test gives the bytes time to arrive. */
const TIMEOUT_MS = 300;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      hits++;
      switch (mode) {
        case "slow":
          await new Promise((r) => setTimeout(r, 3_000));
          return Response.json({});
        case "huge":
          return new Response(HUGE, { headers: { "content-type": "application/json" } });
        case "refuse":
          return Response.json({ error: MARKER }, { status: 500 });
        case "redirect":
          return new Response(null, { status: 302, headers: { location: "http://127.0.0.1:9/elsewhere" } });
        case "garbage":
          return new Response(`<html>${MARKER}</html>`, { headers: { "content-type": "application/json" } });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const fetch = () => providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" });

interface Vendor {
  name: string;
  adapter: (url: string, timeoutMs: number) => ScreeningAdapter;
  credentials: Record<string, string>;
  subject: ScreeningSubject;
}

const VENDORS: Vendor[] = [
  {
    name: "screening_c",
    adapter: (url, timeoutMs) => screeningC({ urls: { eu: url, us: url, apac: url }, timeoutMs }),
    credentials: { apiKey: "contract-key", region: "eu" },
    subject: { kind: "name", party: "originator", person: person("Keller", "Ruth", null) },
  },
  {
    name: "screening_d",
    adapter: (url, timeoutMs) => screeningD({ baseUrl: url, timeoutMs }),
    credentials: { apiKey: "contract-key" },
    subject: { kind: "address", party: "beneficiary", network: "ethereum", address: "0x52908400098527886E0F7030069857D2E4169EE7" },
  },
];

for (const v of VENDORS) {
  describe(`${v.name} meets the screening vendor contract`, () => {
    const screen = async (m: Mode, url = base, timeoutMs = TIMEOUT_MS) => {
      mode = m;
      hits = 0;
      const r = await v.adapter(url, timeoutMs).screen([v.subject], { environment: "test", credentials: v.credentials, fetch: fetch(), now: Date.now() });
      return { r, hits };
    };

    test("no answer within the timeout → TIMEOUT, asked once", async () => {
      const { r, hits } = await screen("slow");
      expect(r.status).toBe("error");
      expect(r.error).toBe("TIMEOUT");
      expect(hits).toBe(1);
    });

    test("an answer over the size cap → RESPONSE_TOO_LARGE", async () => {
      // Refused by its size, not its time: 5 MiB on a loaded machine can take longer than the short timeout.
      const { r } = await screen("huge", base, 30_000);
      expect(r.error).toBe("RESPONSE_TOO_LARGE");
    });

    test("a refusal → HTTP_<status>, asked once, the vendor's body kept nowhere", async () => {
      const { r, hits } = await screen("refuse");
      expect(r.error).toBe("HTTP_500");
      expect(hits).toBe(1);
      expect(JSON.stringify(r)).not.toContain(MARKER);
    });

    test("an answer that is not JSON → INVALID_RESPONSE, its text kept nowhere", async () => {
      const { r } = await screen("garbage");
      expect(r.error).toBe("INVALID_RESPONSE");
      expect(JSON.stringify(r)).not.toContain(MARKER);
    });

    test("a redirect is not followed → NETWORK_ERROR", async () => {
      const { r, hits } = await screen("redirect");
      expect(r.error).toBe("NETWORK_ERROR");
      expect(hits).toBe(1);
    });

    test("nobody listening → NETWORK_ERROR", async () => {
      const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
      const url = `http://127.0.0.1:${closed.port}`;
      void closed.stop(true);
      const { r } = await screen("refuse", url);
      expect(r.error).toBe("NETWORK_ERROR");
    });

    test("no credentials → the check fails before any request", async () => {
      mode = "refuse";
      hits = 0;
      const r = await v.adapter(base, TIMEOUT_MS).screen([v.subject], { environment: "test", credentials: null, fetch: fetch(), now: Date.now() });
      expect(r.status).toBe("error");
      expect(hits).toBe(0);
    });
  });
}
