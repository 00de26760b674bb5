// screening_c over real HTTP against the sandbox vendor (Part 3 "Settings of screening_c", "screening_c screening",
// Authentication 5, Limits): the request's exact fields and header, checks made without a request, response mapping,
// failures as codes; and the connection test through `POST /api/v2/integrations/screening_c/test` on the real server.
import { test, expect, beforeAll, afterAll, describe, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { screeningC } from "../../src/adapters/screening/screening_c/index.ts";
import { parseRegionUrls, DEFAULT_URLS } from "../../src/adapters/screening/screening_c/wire.ts";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";
import type { ScreeningContext, ScreeningSubject } from "../../src/adapters/screening/types.ts";
import type { Person } from "../../src/domain/ivms101/types.ts";
import { search, startScreeningCSandbox, SANDBOX_API_KEY, type ScreeningCSandbox } from "../../src/sandbox/screening_c/index.ts";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, ISO_MS } from "../support/api.ts";

// Loopback servers on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const KEY = SANDBOX_API_KEY;
let eu: ScreeningCSandbox;
let us: ScreeningCSandbox;
let apac: ScreeningCSandbox;
const fetch = providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" });
/** A short injected timeout: the sandbox's slow answer is well past it, so no test waits 10 seconds. */
const TIMEOUT_MS = 300;
let adapter: ReturnType<typeof screeningC>;

const natural = (given: string, family: string): Person => ({ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: family, secondaryIdentifier: given, nameIdentifierType: "LEGL" }] } } }) as Person;
const legal = (name: string): Person => ({ legalPerson: { name: { nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: "LEGL" }] } } }) as Person;
const nameOf = (party: "originator" | "beneficiary", person: Person): ScreeningSubject => ({ kind: "name", party, person });
const ctx = (credentials: Record<string, string> | null): ScreeningContext => ({ environment: "test", credentials, fetch, now: Date.now() });
const all = () => [...eu.requests, ...us.requests, ...apac.requests];
const reset = () => {
  for (const s of [eu, us, apac]) {
    s.requests.length = 0;
    s.setFault(null);
  }
};

beforeAll(async () => {
  [eu, us, apac] = await Promise.all([startScreeningCSandbox({ label: "eu" }), startScreeningCSandbox({ label: "us" }), startScreeningCSandbox({ label: "apac" })]);
  adapter = screeningC({ urls: { eu: eu.url, us: us.url, apac: apac.url }, timeoutMs: TIMEOUT_MS });
});

afterAll(async () => {
  await Promise.all([eu?.stop(), us?.stop(), apac?.stop()]);
});

describe("POST /searches: one request per name, exactly the Part 3 fields", () => {
  test("body bytes: search_term (trimmed), fuzziness 0.6 by default, filters.entity_type person, limit 100, share_url 0; header Authorization: Token <key>", async () => {
    reset();
    const r = await adapter.screen([nameOf("originator", natural(" Viktor ", "Krasnov ")), nameOf("beneficiary", legal("  Orion Shipping Holdings "))], ctx({ apiKey: KEY }));
    expect(eu.requests.map((q) => `${q.method} ${q.path}`)).toEqual(["POST /searches", "POST /searches"]);
    const raws = eu.requests.map((q) => q.raw).sort();
    expect(raws).toEqual([
      '{"search_term":"Orion Shipping Holdings","fuzziness":0.6,"filters":{"entity_type":"person"},"limit":100,"share_url":0}',
      '{"search_term":"Viktor Krasnov","fuzziness":0.6,"filters":{"entity_type":"person"},"limit":100,"share_url":0}',
    ]);
    for (const q of eu.requests) expect(q.authorization).toBe(`Token ${KEY}`);
    expect(r.status).toBe("success");
    expect(r.integration).toBe("screening_c");
    expect(r.error).toBeUndefined();
    expect(r.screenings.map((s) => [s.party, s.kind, s.status])).toEqual([
      ["originator", "name", "success"],
      ["beneficiary", "name", "success"],
    ]);
    // The vendor's search response as received: a sanctioned name's hit with its types; the company (entity_type person
    // filter, Part 3) has none.
    const viktor = r.screenings[0].response as any;
    expect(viktor.status).toBe("success");
    expect(viktor.content.data.total_hits).toBe(1);
    expect(viktor.content.data.hits[0].doc).toMatchObject({ name: "Viktor Krasnov", types: ["sanction"] });
    expect(typeof viktor.content.data.hits[0].score).toBe("number");
    expect((r.screenings[1].response as any).content.data).toMatchObject({ total_hits: 0, hits: [] });
  });

  test("the saved fuzziness is sent as a number; 0 and 1 are allowed", async () => {
    for (const [saved, sent] of [["0.75", 0.75], ["0", 0], ["1", 1], ["1.0", 1], [".3", 0.3], [" 0.2 ", 0.2], ["", 0.6]] as const) {
      reset();
      const r = await adapter.screen([nameOf("originator", natural("Ilse", "Vandermeer"))], ctx({ apiKey: KEY, fuzziness: saved }));
      expect(r.status).toBe("success");
      expect((eu.requests[0].body as { fuzziness: unknown }).fuzziness).toBe(sent);
    }
  });

  test("a fuzziness that is not a number from 0 to 1 fails each name without a request", async () => {
    for (const bad of ["1.5", "-0.1", "abc", "0x1", "1e-1", "0,6", "NaN", "Infinity", "2"]) {
      reset();
      const r = await adapter.screen([nameOf("originator", natural("Ilse", "Vandermeer")), nameOf("beneficiary", natural("Ruth", "Keller"))], ctx({ apiKey: KEY, fuzziness: bad }));
      expect(all()).toEqual([]);
      expect(r.status).toBe("error");
      expect(r.screenings.map((s) => [s.status, s.error, s.response])).toEqual([
        ["error", "INVALID_FUZZINESS", null],
        ["error", "INVALID_FUZZINESS", null],
      ]);
    }
  });

  test("a name over 255 characters fails that name without a request; 255 is searched", async () => {
    reset();
    const long = "A".repeat(200) + " " + "B".repeat(55); // 256 characters
    const edge = "C".repeat(200) + " " + "D".repeat(54); // 255 characters
    const r = await adapter.screen([nameOf("originator", natural("", long)), nameOf("beneficiary", natural("", edge))], ctx({ apiKey: KEY }));
    expect(eu.requests.length).toBe(1);
    expect((eu.requests[0].body as { search_term: string }).search_term).toBe(edge);
    expect(r.status).toBe("error");
    expect(r.screenings.map((s) => [s.party, s.status, s.error ?? null])).toEqual([
      ["originator", "error", "NAME_TOO_LONG"],
      ["beneficiary", "success", null],
    ]);
  });

  test("address subjects are not screening_c's: only names are sent", async () => {
    reset();
    const subjects: ScreeningSubject[] = [nameOf("originator", natural("Ruth", "Keller")), { kind: "address", party: "beneficiary", address: "0xabc", network: "ethereum" }];
    expect(subjects.map((s) => adapter.accepts(s))).toEqual([true, false]);
    const r = await adapter.screen(subjects, ctx({ apiKey: KEY }));
    expect(eu.requests.length).toBe(1);
    expect(r.screenings.length).toBe(1);
    expect((eu.requests[0].raw as string).includes("0xabc")).toBe(false);
  });
});

describe("regions and credentials", () => {
  test("region selects the base address: eu (default, also when blank), us, apac", async () => {
    for (const [region, sandbox] of [[undefined, () => eu], ["", () => eu], ["eu", () => eu], ["us", () => us], ["apac", () => apac]] as const) {
      reset();
      const creds: Record<string, string> = { apiKey: KEY };
      if (region !== undefined) creds.region = region;
      const r = await adapter.screen([nameOf("originator", natural("Ruth", "Keller"))], ctx(creds));
      expect(r.status).toBe("success");
      expect(all().length).toBe(1);
      expect(sandbox().requests.length).toBe(1);
    }
  });

  test("any other region fails every screening and the connection test without a request", async () => {
    for (const region of ["mars", "EU", "uk", "eu-west"]) {
      reset();
      const r = await adapter.screen([nameOf("originator", natural("Ruth", "Keller")), nameOf("beneficiary", natural("Ilse", "Vandermeer"))], ctx({ apiKey: KEY, region }));
      expect(r.status).toBe("error");
      expect(r.screenings.map((s) => [s.status, s.error])).toEqual([
        ["error", "INVALID_REGION"],
        ["error", "INVALID_REGION"],
      ]);
      const t = await adapter.testConnection(ctx({ apiKey: KEY, region }));
      expect(t).toMatchObject({ success: false, error: "INVALID_REGION" });
      expect(all()).toEqual([]);
    }
  });

  test("no API key for the environment: the check fails, response null (no screenings), no request", async () => {
    reset();
    for (const creds of [null, {}, { apiKey: "  " }, { region: "us" }] as (Record<string, string> | null)[]) {
      const r = await adapter.screen([nameOf("originator", natural("Viktor", "Krasnov"))], ctx(creds));
      expect(r).toMatchObject({ status: "error", screenings: [], error: "NOT_CONFIGURED" });
    }
    expect(all()).toEqual([]);
  });

  test("a key the vendor refuses: HTTP_401, response null, one request (no retry)", async () => {
    reset();
    const r = await adapter.screen([nameOf("originator", natural("Viktor", "Krasnov"))], ctx({ apiKey: "not-the-key" }));
    expect(r.status).toBe("error");
    expect(r.error).toBe("HTTP_401");
    expect(r.screenings[0]).toEqual({ party: "originator", kind: "name", status: "error", response: null, error: "HTTP_401" });
    expect(eu.requests.length).toBe(1);
    expect(eu.requests[0].status).toBe(401);
  });
});

describe("response mapping: failures are codes, never the vendor's body", () => {
  test("a hit count differing from total_hits fails with INCOMPLETE_RESULTS and keeps the response", async () => {
    reset();
    eu.setFault({ kind: "incomplete" });
    const r = await adapter.screen([nameOf("originator", natural("Viktor", "Krasnov"))], ctx({ apiKey: KEY }));
    expect(r.status).toBe("error");
    const s = r.screenings[0];
    expect(s.status).toBe("error");
    expect(s.error).toBe("INCOMPLETE_RESULTS");
    const data = (s.response as any).content.data;
    expect(data.hits.length).toBe(1);
    expect(data.total_hits).toBe(4);
  });

  test("more matches than the search limit (the vendor lists 100, total_hits says more) is incomplete too", async () => {
    reset();
    const many = await startScreeningCSandbox({
      watchlist: Array.from({ length: 101 }, (_, i) => ({ id: `X${i}`, name: "Ada Lovelace", aka: [], entityType: "person" as const, types: ["pep" as const], sources: [] })),
    });
    try {
      const a = screeningC({ urls: { eu: many.url, us: many.url, apac: many.url }, timeoutMs: TIMEOUT_MS });
      const r = await a.screen([nameOf("originator", natural("Ada", "Lovelace"))], ctx({ apiKey: KEY }));
      expect(r.screenings[0].error).toBe("INCOMPLETE_RESULTS");
      expect((r.screenings[0].response as any).content.data).toMatchObject({ total_hits: 101, limit: 100 });
    } finally {
      await many.stop();
    }
  });

  test("a 5xx answer fails the name with HTTP_<status>, one attempt, response null, no vendor text", async () => {
    for (const status of [500, 502, 503]) {
      reset();
      eu.setFault({ kind: "status", status });
      const r = await adapter.screen([nameOf("originator", natural("Viktor", "Krasnov"))], ctx({ apiKey: KEY }));
      expect(eu.requests.length).toBe(1);
      expect(r).toMatchObject({ status: "error", error: `HTTP_${status}` });
      expect(r.screenings[0]).toEqual({ party: "originator", kind: "name", status: "error", response: null, error: `HTTP_${status}` });
      expect(JSON.stringify(r)).not.toContain("failure");
    }
  });

  test("a body that is not JSON, or JSON without the search shape, fails with INVALID_RESPONSE, response null", async () => {
    for (const kind of ["malformed", "invalid"] as const) {
      reset();
      eu.setFault({ kind });
      const r = await adapter.screen([nameOf("originator", natural("Viktor", "Krasnov"))], ctx({ apiKey: KEY }));
      expect(r.screenings[0]).toEqual({ party: "originator", kind: "name", status: "error", response: null, error: "INVALID_RESPONSE" });
      expect(JSON.stringify(r)).not.toContain("Something else");
      expect(JSON.stringify(r)).not.toContain("html");
    }
  });

  test("no answer within the timeout fails with TIMEOUT (one attempt)", async () => {
    reset();
    eu.setFault({ kind: "slow", delayMs: 5_000 });
    const r = await adapter.screen([nameOf("originator", natural("Viktor", "Krasnov"))], ctx({ apiKey: KEY }));
    expect(r.screenings[0]).toEqual({ party: "originator", kind: "name", status: "error", response: null, error: "TIMEOUT" });
    expect(eu.requests.length).toBe(1);
  });

  test("the check is success only when every name succeeded: one failing name makes it error, the other keeps its response", async () => {
    reset();
    eu.setFault({ kind: "status", status: 503 }, 1);
    const r = await adapter.screen([nameOf("originator", natural("Viktor", "Krasnov")), nameOf("beneficiary", natural("Ruth", "Keller"))], ctx({ apiKey: KEY }));
    expect(eu.requests.length).toBe(2);
    expect(r.status).toBe("error");
    expect(r.screenings.map((s) => s.status).sort()).toEqual(["error", "success"]);
    const ok = r.screenings.find((s) => s.status === "success")!;
    expect((ok.response as any).status).toBe("success");
  });

  test("no names to screen: success with no screenings, no request", async () => {
    reset();
    const r = await adapter.screen([], ctx({ apiKey: KEY }));
    expect(r).toMatchObject({ status: "success", screenings: [] });
    expect(all()).toEqual([]);
  });
});

describe("connection test (adapter): GET /users, read-only", () => {
  test("status success with a content.data list passes with a fixed message; no search is created; fuzziness is not checked", async () => {
    reset();
    const t = await adapter.testConnection(ctx({ apiKey: KEY, region: "us", fuzziness: "not a number" }));
    expect(t).toEqual({ success: true, message: "Connected to screening_c: the API key was accepted" });
    expect(us.requests.map((q) => [q.method, q.path, q.authorization])).toEqual([["GET", "/users", `Token ${KEY}`]]);
  });

  test("HTTP error, timeout and invalid answers fail with an error text, never the vendor body", async () => {
    const cases = [
      [{ kind: "status", status: 500 }, "HTTP_500", "screening_c answered HTTP 500"],
      [{ kind: "slow", delayMs: 5_000 }, "TIMEOUT", "screening_c did not answer within 10 seconds"],
      [{ kind: "malformed" }, "INVALID_RESPONSE", "screening_c answered with an invalid response"],
      [{ kind: "invalid" }, "INVALID_RESPONSE", "screening_c answered with an invalid response"],
    ] as const;
    for (const [fault, error, message] of cases) {
      reset();
      eu.setFault(fault);
      expect(await adapter.testConnection(ctx({ apiKey: KEY }))).toEqual({ success: false, message, error });
    }
    reset();
    expect(await adapter.testConnection(ctx({ apiKey: "wrong" }))).toEqual({ success: false, message: "screening_c answered HTTP 401", error: "HTTP_401" });
  });
});

describe("CARAVAN_SCREENING_C_URLS", () => {
  test("defaults are the vendor's regional roots; entries override regions; anything else is refused", () => {
    expect(parseRegionUrls(undefined)).toEqual({ eu: "https://api.complyadvantage.com", us: "https://api.us.complyadvantage.com", apac: "https://api.ap.complyadvantage.com" });
    expect(parseRegionUrls("eu=http://127.0.0.1:9001, us=http://127.0.0.1:9002/")).toEqual({ eu: "http://127.0.0.1:9001", us: "http://127.0.0.1:9002", apac: DEFAULT_URLS.apac });
    for (const bad of ["mars=https://x.example", "eu=not a url", "eu=https://x.example/path", "eu=ftp://x.example", "eu=https://u:p@x.example", "eu"]) expect(() => parseRegionUrls(bad)).toThrow(RangeError);
  });
});

describe("POST /api/v2/integrations/screening_c/test on the real server", () => {
  const dir = tempDir();
  const db = join(dir, "screening-c.db");
  let S: ChildServer;
  const { call, cli, newKey } = apiClient(db, () => S.url);
  let owner: string;
  let ownerLive: string;

  beforeAll(async () => {
    await cli("migrate");
    [owner, ownerLive] = (await Promise.all([newKey("--env", "test", "--role", "owner"), newKey("--env", "live", "--role", "owner")])).map((k) => k.key);
    S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_SCREENING_C_URLS: `eu=${eu.url},us=${us.url},apac=${apac.url}` });
  });
  afterAll(async () => {
    await S?.stop();
  });

  const runTest = (key: string) => call("/api/v2/integrations/screening_c/test", { method: "POST", key });
  const save = (key: string, credentials: Record<string, string>) => call("/api/v2/integrations/screening_c", { method: "PUT", key, json: { credentials } });

  test("without saved credentials for the key's environment → 409 NOT_CONFIGURED", async () => {
    expectError(await runTest(owner), 409, "NOT_CONFIGURED");
  });

  test("with the sandbox key in region apac → success with the fixed message; the test is stored; only GET /users was called", async () => {
    reset();
    expect((await save(owner, { apiKey: KEY, region: "apac" })).status).toBe(201);
    const r = await runTest(owner);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ success: true, message: "Connected to screening_c: the API key was accepted", testedAt: r.body.data.testedAt });
    expect(r.body.data.testedAt).toMatch(ISO_MS);
    expect(apac.requests.map((q) => `${q.method} ${q.path} ${q.authorization}`)).toEqual([`GET /users Token ${KEY}`]);
    expect(all().length).toBe(1);
    const got = await call("/api/v2/integrations/screening_c", { key: owner });
    expect(got.body.data).toMatchObject({ lastTestResult: "success", lastError: null, lastTestedAt: r.body.data.testedAt });
    // The live environment has its own (absent) credentials.
    expectError(await runTest(ownerLive), 409, "NOT_CONFIGURED");
  });

  test("a refused key and a 5xx → 200 with success false and the error; never the vendor's body", async () => {
    reset();
    expect((await save(owner, { apiKey: "screening-c-wrong-key-4f1a", region: "eu" })).status).toBe(200);
    const refused = await runTest(owner);
    expect(refused.body.data).toMatchObject({ success: false, error: "HTTP_401", message: "screening_c answered HTTP 401" });
    expect(refused.text).not.toContain("invalid API key");
    expect(refused.text).not.toContain("screening-c-wrong-key-4f1a");
    reset();
    expect((await save(owner, { apiKey: KEY })).status).toBe(200);
    eu.setFault({ kind: "status", status: 503 });
    const down = await runTest(owner);
    expect(down.body.data).toMatchObject({ success: false, error: "HTTP_503" });
    expect((await call("/api/v2/integrations/screening_c", { key: owner })).body.data).toMatchObject({ lastTestResult: "error", lastError: "HTTP_503" });
  });

  test("an unknown region fails the test without a request", async () => {
    reset();
    expect((await save(owner, { region: "mars" })).status).toBe(200);
    const r = await runTest(owner);
    expect(r.body.data).toMatchObject({ success: false, error: "INVALID_REGION" });
    expect(all()).toEqual([]);
  });
});

describe("sandbox vendor matching (docs/screening.md)", () => {
  const hit = (term: string, fuzziness = 0.6, type = "person") => search(term, fuzziness, type).map((m) => m.entry.name);

  test("aliases, accents, order, case and punctuation are normalised; one typo passes at 0.6, none at 0", () => {
    expect(hit("VICTOR krasnoff")).toEqual(["Viktor Krasnov"]);
    expect(hit("Krasnov, Viktor")).toEqual(["Viktor Krasnov"]);
    expect(hit("Natália Oblonskaya")).toEqual(["Natalia Oblonskaya"]);
    expect(hit("Viktor Krasnow")).toEqual(["Viktor Krasnov"]);
    expect(hit("Viktor Krasnow", 0)).toEqual([]);
    expect(hit("Ruth Keller")).toEqual([]);
    // A single given name alone is not enough to hit a two-word entry.
    expect(hit("Viktor")).toEqual([]);
  });

  test("the entity_type filter applies: companies only hit without the person filter", () => {
    expect(hit("Nightfall Trading FZE")).toEqual([]);
    expect(hit("Nightfall Trading FZE", 0.6, "company")).toEqual(["Nightfall Trading FZE"]);
  });
});
