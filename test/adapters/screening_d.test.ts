// Part 3 "screening_d screening", "Settings of screening_d", Errors (screening_d row), Limits: the adapter against the
// sandbox vendor over real loopback HTTP through the SSRF-guarded client; the connection test through the real server.
import { test, expect, describe, beforeAll, afterAll, beforeEach, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { providerFetch } from "../../src/adapters/providers/outbound.ts";
import {
  CONNECTION_OK_MESSAGE,
  screeningD,
  screeningDUrlFromEnv,
  SCREENING_D_DEFAULT_URL,
  SCREENING_D_MAX_RESPONSE_BYTES,
} from "../../src/adapters/screening/screening_d/adapter.ts";
import type { ScreeningContext, ScreeningSubject } from "../../src/adapters/screening/types.ts";
import { LOW_RISK_EXAMPLES, SANDBOX_SCREENING_D_KEY, startScreeningDSandbox, type ScreeningDSandbox } from "../../src/sandbox/screening_d/index.ts";
import { tempDir } from "../support/tmp.ts";
import { startServer, type ChildServer } from "../support/server.ts";
import { apiClient, expectError, ISO_MS } from "../support/api.ts";

// Servers on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const ETH_MIXER = "0x83Ff1aB69B2203EAC2bD0254D2c52b07A40dEBc1";
const BTC_MIXER = "bc1qgja8xpzcvvmk4kerfcjdzfnsyactrnwlcacat2";
const TRX_MEDIUM = "TDTMkhQxae2aD5bcv78xP9TnbeGcCq1skc";

let sandbox: ScreeningDSandbox;
const fetch = providerFetch({ CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1" });
const ctx = (credentials: Record<string, string> | null = { apiKey: SANDBOX_SCREENING_D_KEY }): ScreeningContext => ({ environment: "test", credentials, fetch, now: Date.now() });
const addr = (address: string, network: string, party: "originator" | "beneficiary" = "beneficiary"): ScreeningSubject => ({ kind: "address", party, address, network });
let adapter: ReturnType<typeof screeningD>;

beforeAll(async () => {
  sandbox = await startScreeningDSandbox();
  adapter = screeningD({ baseUrl: sandbox.url });
});
afterAll(async () => {
  await sandbox?.stop();
});
beforeEach(() => {
  sandbox.clearFaults();
  sandbox.requests.length = 0;
});

describe("a screening", () => {
  test("one POST /risk-check with only type, address, blockchain, entity_list; key in X-Auth-Apikey", async () => {
    await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx());
    expect(sandbox.requests.length).toBe(1);
    const r = sandbox.requests[0]!;
    expect({ method: r.method, path: r.path, apiKey: r.apiKey, contentType: r.contentType }).toEqual({
      method: "POST",
      path: "/risk-check",
      apiKey: SANDBOX_SCREENING_D_KEY,
      contentType: "application/json",
    });
    expect(Object.keys(r.body as object).sort()).toEqual(["address", "blockchain", "entity_list", "type"]);
    expect(r.body).toEqual({ type: "address", address: ETH_MIXER, blockchain: "eth", entity_list: false });
  });

  test("success: the complete vendor response is stored, the score on its 0 to 1 scale", async () => {
    const c = await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx());
    expect(c.integration).toBe("screening_d");
    expect(c.status).toBe("success");
    expect(c.error).toBeUndefined();
    expect(typeof c.durationMs).toBe("number");
    expect(c.screenings).toEqual([{ party: "beneficiary", kind: "address", status: "success", response: sandbox.requests[0]!.answer }]);
    const response = c.screenings[0]!.response as { data: { counterparty: { riskscore: number } }; meta: { error_code: number } };
    expect(response.data.counterparty.riskscore).toBe(0.92);
    expect(response.meta.error_code).toBe(0);
  });

  test("each address is its own request; the check succeeds when every address does", async () => {
    const c = await adapter.screen([addr(BTC_MIXER, "bitcoin", "originator"), addr(LOW_RISK_EXAMPLES.btc, "bitcoin")], ctx());
    expect(c.status).toBe("success");
    expect(sandbox.requests.map((r) => (r.body as { address: string }).address).sort()).toEqual([BTC_MIXER, LOW_RISK_EXAMPLES.btc].sort());
    expect(c.screenings.map((s) => [s.party, s.status, (s.response as { data: { counterparty: { riskscore: number } } }).data.counterparty.riskscore])).toEqual([
      ["originator", "success", 0.92],
      ["beneficiary", "success", 0.05],
    ]);
  });

  test("one failed address fails the check; the other keeps its response", async () => {
    const c = await adapter.screen([addr(TRX_MEDIUM, "tron", "originator"), addr("D8vFz4p1L37jXQFGnYZ3pHTX1WfUPkTuSt", "dogecoin")], ctx());
    expect(c.status).toBe("error");
    expect(c.error).toBe("UNSUPPORTED_NETWORK");
    expect(c.screenings[0]).toMatchObject({ party: "originator", status: "success" });
    expect(c.screenings[1]).toEqual({ party: "beneficiary", kind: "address", status: "error", response: null, error: "UNSUPPORTED_NETWORK" });
    expect(sandbox.requests.length).toBe(1);
  });

  test("the network is mapped (aliases, vendor identifiers, any case) before sending", async () => {
    for (const [network, blockchain] of [["Polygon", "matic"], ["arbitrum-one", "arb"], ["BNB", "bsc"], ["ETH", "eth"]] as const) {
      sandbox.requests.length = 0;
      const c = await adapter.screen([addr(LOW_RISK_EXAMPLES.eth, network)], ctx());
      expect(c.status).toBe("success");
      expect((sandbox.requests[0]!.body as { blockchain: string }).blockchain).toBe(blockchain);
    }
  });

  test("only address subjects are accepted; names are for name screening", () => {
    expect(adapter.accepts(addr(ETH_MIXER, "ethereum"))).toBe(true);
    expect(adapter.accepts({ kind: "name", party: "originator", person: {} as never })).toBe(false);
    expect(adapter.type).toBe("blockchain_analytics");
  });
});

describe("refused without a request", () => {
  test("no key for the environment → the check fails before any request (NOT_CONFIGURED)", async () => {
    for (const credentials of [null, {}, { apiKey: "" }, { entityList: "true" }] as (Record<string, string> | null)[]) {
      const c = await adapter.screen([addr(ETH_MIXER, "ethereum", "originator"), addr(BTC_MIXER, "bitcoin")], ctx(credentials));
      expect(c.status).toBe("error");
      expect(c.error).toBe("NOT_CONFIGURED");
      expect(c.screenings.map((s) => [s.status, s.response, s.error])).toEqual([
        ["error", null, "NOT_CONFIGURED"],
        ["error", null, "NOT_CONFIGURED"],
      ]);
    }
    expect(sandbox.requests.length).toBe(0);
  });

  test("blank address → BAD_REQUEST", async () => {
    for (const address of ["", "   "]) {
      const c = await adapter.screen([addr(address, "ethereum")], ctx());
      expect(c).toMatchObject({ status: "error", error: "BAD_REQUEST", screenings: [{ status: "error", response: null, error: "BAD_REQUEST" }] });
    }
    expect(sandbox.requests.length).toBe(0);
  });

  test("networks outside the mapping → UNSUPPORTED_NETWORK", async () => {
    for (const network of ["avalanche", "fantom", "dogecoin", "algorand", "cosmos", "near", "polkadot", "eth-mainnet"]) {
      const c = await adapter.screen([addr(LOW_RISK_EXAMPLES.eth, network)], ctx());
      expect(c).toMatchObject({ status: "error", error: "UNSUPPORTED_NETWORK" });
    }
    expect(sandbox.requests.length).toBe(0);
  });

  test("a transaction check → UNSUPPORTED_OPERATION", async () => {
    const c = await adapter.screenTransaction("0x" + "ab".repeat(32), "ethereum", ctx());
    expect(c).toEqual({ integration: "screening_d", status: "error", screenings: [], error: "UNSUPPORTED_OPERATION", durationMs: 0 });
    expect(sandbox.requests.length).toBe(0);
  });
});

describe("entityList setting", () => {
  test('"true" sends entity_list: true; "false", empty or no value sends false', async () => {
    const cases: [Record<string, string>, boolean][] = [
      [{ apiKey: SANDBOX_SCREENING_D_KEY, entityList: "true" }, true],
      [{ apiKey: SANDBOX_SCREENING_D_KEY, entityList: "false" }, false],
      [{ apiKey: SANDBOX_SCREENING_D_KEY, entityList: "" }, false],
      [{ apiKey: SANDBOX_SCREENING_D_KEY }, false],
    ];
    for (const [credentials, sent] of cases) {
      sandbox.requests.length = 0;
      expect((await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx(credentials))).status).toBe("success");
      expect((sandbox.requests[0]!.body as { entity_list: unknown }).entity_list).toBe(sent);
    }
  });

  test("any other value fails every check and the connection test, without a request, until corrected", async () => {
    for (const entityList of ["TRUE", "yes", "1", " true"]) {
      const credentials = { apiKey: SANDBOX_SCREENING_D_KEY, entityList };
      const c = await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx(credentials));
      expect(c).toMatchObject({ status: "error", error: "INVALID_CONFIGURATION", screenings: [{ status: "error", response: null, error: "INVALID_CONFIGURATION" }] });
      expect(await adapter.testConnection(ctx(credentials))).toMatchObject({ success: false, error: "INVALID_CONFIGURATION" });
    }
    expect(sandbox.requests.length).toBe(0);
    expect((await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx({ apiKey: SANDBOX_SCREENING_D_KEY, entityList: "true" }))).status).toBe("success");
  });
});

describe("failures: a code, never the vendor's body", () => {
  /** One screening of ETH_MIXER with the route's fault; its stored screening. */
  async function failedWith(fault: Parameters<ScreeningDSandbox["setFault"]>[1], credentials?: Record<string, string>, address = ETH_MIXER, network = "ethereum", a = adapter) {
    if (fault) sandbox.setFault("risk-check", fault);
    const c = await a.screen([addr(address, network)], ctx(credentials));
    expect(c.status).toBe("error");
    expect(c.screenings[0]!.response).toBeNull();
    expect(c.screenings[0]!.status).toBe("error");
    expect(c.error).toBe(c.screenings[0]!.error!);
    return c;
  }

  test("wrong key → HTTP_401; the vendor's error text is not kept", async () => {
    const c = await failedWith(null, { apiKey: "not-the-key" });
    expect(c.error).toBe("HTTP_401");
    expect(sandbox.requests[0]!.status).toBe(401);
    expect(JSON.stringify(c)).not.toContain("Invalid API key");
  });

  test("5xx → HTTP_<status>", async () => {
    expect((await failedWith({ kind: "status", status: 503 })).error).toBe("HTTP_503");
    expect((await failedWith({ kind: "status", status: 500 })).error).toBe("HTTP_500");
    expect((await failedWith({ kind: "status", status: 429 })).error).toBe("HTTP_429");
  });

  test("meta.error_code not 0 → SCREENING_D_<code>", async () => {
    const c = await failedWith({ kind: "errorCode", code: 12 });
    expect(c.error).toBe("SCREENING_D_12");
    expect(JSON.stringify(c)).not.toContain("Sandbox error");
  });

  test("malformed body → INVALID_RESPONSE", async () => {
    expect((await failedWith({ kind: "malformed" })).error).toBe("INVALID_RESPONSE");
  });

  test("a risk score outside 0 to 1, or not a number → INVALID_RESPONSE", async () => {
    for (const riskscore of [42, -0.1, 1.01, "0.5", null]) expect((await failedWith({ kind: "riskscore", riskscore })).error).toBe("INVALID_RESPONSE");
    sandbox.clearFaults();
    sandbox.setFault("risk-check", { kind: "riskscore", riskscore: 1 });
    expect((await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx())).status).toBe("success");
    sandbox.setFault("risk-check", { kind: "riskscore", riskscore: 0 });
    expect((await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx())).status).toBe("success");
  });

  test("data.blockchains not exactly the requested one: another → SUBJECT_MISMATCH, two or none → INVALID_RESPONSE", async () => {
    expect((await failedWith({ kind: "wrongBlockchain" })).error).toBe("SUBJECT_MISMATCH");
    expect((await failedWith({ kind: "wrongBlockchain", blockchains: ["eth", "bsc"] })).error).toBe("INVALID_RESPONSE");
    expect((await failedWith({ kind: "wrongBlockchain", blockchains: [] })).error).toBe("INVALID_RESPONSE");
    expect((await failedWith({ kind: "wrongBlockchain", blockchains: [{ name: "eth" }] })).error).toBe("INVALID_RESPONSE");
  });

  test("another counterparty address → SUBJECT_MISMATCH", async () => {
    expect((await failedWith({ kind: "mismatchedAddress" })).error).toBe("SUBJECT_MISMATCH");
    expect((await failedWith({ kind: "mismatchedAddress" }, undefined, TRX_MEDIUM, "tron")).error).toBe("SUBJECT_MISMATCH");
  });

  test("address case: ignored for EVM-style chains, exact for the others", async () => {
    // The sandbox answers EVM addresses in lower case: an EIP-55 address still matches.
    expect((await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx())).status).toBe("success");
    expect((sandbox.requests[0]!.answer as { data: { counterparty: { address: string } } }).data.counterparty.address).toBe(ETH_MIXER.toLowerCase());
    for (const network of ["ethereum", "ethereum-classic", "arbitrum", "optimism", "base", "bsc", "polygon", "xinfin", "adi"]) {
      sandbox.setFault("risk-check", { kind: "mismatchedAddress", address: ETH_MIXER.toUpperCase().replace("0X", "0x") });
      expect((await adapter.screen([addr(ETH_MIXER, network)], ctx())).status).toBe("success");
    }
    expect((await failedWith({ kind: "mismatchedAddress", address: TRX_MEDIUM.toLowerCase() }, undefined, TRX_MEDIUM, "tron")).error).toBe("SUBJECT_MISMATCH");
    expect((await failedWith({ kind: "mismatchedAddress", address: BTC_MIXER.toUpperCase() }, undefined, BTC_MIXER, "bitcoin")).error).toBe("SUBJECT_MISMATCH");
    sandbox.clearFaults();
    expect((await adapter.screen([addr(TRX_MEDIUM, "tron")], ctx())).status).toBe("success");
  });

  test("an answer that does not name counterparty.address is judged on the rest", async () => {
    sandbox.setFault("risk-check", { kind: "mismatchedAddress", address: null });
    const c = await adapter.screen([addr(TRX_MEDIUM, "tron")], ctx());
    expect(c.status).toBe("success");
    expect((c.screenings[0]!.response as { data: { counterparty: object } }).data.counterparty).not.toHaveProperty("address");
  });

  test("response of exactly 2 MiB is read; 2 MiB + 1 byte → RESPONSE_TOO_LARGE (declared, or counted while streaming)", async () => {
    for (const chunked of [false, true]) {
      sandbox.clearFaults();
      sandbox.setFault("risk-check", { kind: "oversized", bytes: SCREENING_D_MAX_RESPONSE_BYTES, chunked });
      const ok = await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx());
      expect(ok.status).toBe("success");
      expect(JSON.stringify(ok.screenings[0]!.response).length).toBe(SCREENING_D_MAX_RESPONSE_BYTES);
      expect((await failedWith({ kind: "oversized", bytes: SCREENING_D_MAX_RESPONSE_BYTES + 1, chunked })).error).toBe("RESPONSE_TOO_LARGE");
    }
  });

  test("no answer within the timeout → TIMEOUT (a short injected timeout)", async () => {
    const quick = screeningD({ baseUrl: sandbox.url, timeoutMs: 200 });
    expect((await failedWith({ kind: "hang" }, undefined, ETH_MIXER, "ethereum", quick)).error).toBe("TIMEOUT");
    sandbox.clearFaults();
    expect((await failedWith({ kind: "slow", delayMs: 3_000 }, undefined, ETH_MIXER, "ethereum", quick)).error).toBe("TIMEOUT");
    expect(sandbox.requests.length).toBe(2);
  });

  test("redirects and unreachable vendors → NETWORK_ERROR; no retry", async () => {
    expect((await failedWith({ kind: "redirect" })).error).toBe("NETWORK_ERROR");
    expect(sandbox.requests.length).toBe(1);
    const closed = await startScreeningDSandbox();
    const gone = closed.url;
    await closed.stop();
    const c = await screeningD({ baseUrl: gone }).screen([addr(ETH_MIXER, "ethereum")], ctx());
    expect(c).toMatchObject({ status: "error", error: "NETWORK_ERROR", screenings: [{ response: null, error: "NETWORK_ERROR" }] });
  });

  test("the SSRF guard applies: a private target not allowed → NETWORK_ERROR without reaching it", async () => {
    const guarded = { ...ctx(), fetch: providerFetch({}) };
    const c = await adapter.screen([addr(ETH_MIXER, "ethereum")], guarded);
    expect(c.error).toBe("NETWORK_ERROR");
    expect(sandbox.requests.length).toBe(0);
  });
});

describe("connection test: GET /monitor/currency/list", () => {
  test("the currency list with error_code 0 → success with the fixed message; nothing screened", async () => {
    expect(await adapter.testConnection(ctx())).toEqual({ success: true, message: CONNECTION_OK_MESSAGE });
    expect(sandbox.requests.map((r) => [r.method, r.path, r.apiKey, r.body])).toEqual([["GET", "/monitor/currency/list", SANDBOX_SCREENING_D_KEY, undefined]]);
  });

  test("any other answer fails with a code and a text of ours", async () => {
    const cases: [Parameters<ScreeningDSandbox["setFault"]>[1], string][] = [
      [{ kind: "status", status: 502 }, "HTTP_502"],
      [{ kind: "errorCode", code: 7 }, "SCREENING_D_7"],
      [{ kind: "malformed" }, "INVALID_RESPONSE"],
      [{ kind: "redirect" }, "NETWORK_ERROR"],
      [{ kind: "oversized" }, "RESPONSE_TOO_LARGE"],
    ];
    for (const [fault, code] of cases) {
      sandbox.setFault("currency-list", fault);
      const t = await adapter.testConnection(ctx());
      expect(t).toMatchObject({ success: false, error: code });
      expect(t.message.length).toBeGreaterThan(0);
      expect(t.message).not.toContain("Sandbox error");
    }
    sandbox.clearFaults();
    expect(await adapter.testConnection(ctx({ apiKey: "wrong" }))).toMatchObject({ success: false, error: "HTTP_401" });
    expect(await adapter.testConnection(ctx(null))).toMatchObject({ success: false, error: "NOT_CONFIGURED" });
  });
});

describe("the sandbox's control API (for `caravan sandbox`)", () => {
  test("PUT /_sandbox/fault sets a fault for n answers; DELETE clears; GET /_sandbox/requests lists vendor calls", async () => {
    const put = await globalThis.fetch(`${sandbox.url}/_sandbox/fault`, { method: "PUT", body: JSON.stringify({ route: "risk-check", fault: { kind: "errorCode", code: 9 }, times: 1 }) });
    expect(put.status).toBe(200);
    expect((await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx())).error).toBe("SCREENING_D_9");
    expect((await adapter.screen([addr(ETH_MIXER, "ethereum")], ctx())).status).toBe("success");
    await globalThis.fetch(`${sandbox.url}/_sandbox/fault`, { method: "PUT", body: JSON.stringify({ fault: { kind: "status", status: 503 } }) });
    expect((await adapter.testConnection(ctx())).error).toBe("HTTP_503");
    expect((await globalThis.fetch(`${sandbox.url}/_sandbox/fault`, { method: "DELETE" })).status).toBe(204);
    expect((await adapter.testConnection(ctx())).success).toBe(true);
    const listed = (await (await globalThis.fetch(`${sandbox.url}/_sandbox/requests`)).json()) as { requests: { path: string; fault?: string }[] };
    expect(listed.requests.map((r) => [r.path, r.fault ?? null])).toEqual([
      ["/risk-check", "errorCode"],
      ["/risk-check", null],
      ["/monitor/currency/list", "status"],
      ["/monitor/currency/list", null],
    ]);
  });
});

describe("CARAVAN_SCREENING_D_URL", () => {
  test("unset → the vendor's address; set → that address; not an http(s) address → refused", () => {
    expect(screeningDUrlFromEnv({})).toBe(SCREENING_D_DEFAULT_URL);
    expect(screeningDUrlFromEnv({ CARAVAN_SCREENING_D_URL: "http://127.0.0.1:9999" })).toBe("http://127.0.0.1:9999");
    for (const bad of ["ftp://x.example", "not a url", "https://u:p@x.example", "https://x.example/?q=1"]) {
      expect(() => screeningDUrlFromEnv({ CARAVAN_SCREENING_D_URL: bad })).toThrow(RangeError);
    }
  });
});

describe("POST /api/v2/integrations/screening_d/test on the real server", () => {
  const dir = tempDir();
  const db = join(dir, "screening-d.db");
  let S: ChildServer;
  const { cli, newKey, call } = apiClient(db, () => S.url);
  let key: string;

  beforeAll(async () => {
    await cli("migrate");
    key = (await newKey("--env", "test", "--role", "owner")).key;
    S = await startServer({ CARAVAN_DB: db, CARAVAN_ALLOW_PRIVATE_TARGETS: "127.0.0.1", CARAVAN_SCREENING_D_URL: sandbox.url });
  });
  afterAll(async () => {
    await S?.stop();
  });

  const runTest = () => call("/api/v2/integrations/screening_d/test", { method: "POST", key });
  const save = (credentials: Record<string, string>) => call("/api/v2/integrations/screening_d", { method: "PUT", key, json: { credentials } });

  test("without credentials → 409 NOT_CONFIGURED, no request", async () => {
    expectError(await runTest(), 409, "NOT_CONFIGURED");
    expect(sandbox.requests.length).toBe(0);
  });

  test("with the sandbox key → success with the fixed message; the key went in X-Auth-Apikey", async () => {
    expect((await save({ apiKey: SANDBOX_SCREENING_D_KEY })).status).toBe(201);
    const r = await runTest();
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ success: true, message: CONNECTION_OK_MESSAGE, testedAt: r.body.data.testedAt });
    expect(r.body.data.testedAt).toMatch(ISO_MS);
    expect(sandbox.requests.map((q) => [q.method, q.path, q.apiKey])).toEqual([["GET", "/monitor/currency/list", SANDBOX_SCREENING_D_KEY]]);
  });

  test("a wrong key → success false with HTTP_401; an entityList other than true/false → INVALID_CONFIGURATION without a request", async () => {
    expect((await save({ apiKey: "screening-d-wrong-key-5c1a" })).status).toBe(200);
    const wrong = await runTest();
    expect(wrong.status).toBe(200);
    expect(wrong.body.data).toMatchObject({ success: false, error: "HTTP_401" });
    expect(wrong.text).not.toContain("Invalid API key");
    sandbox.requests.length = 0;
    expect((await save({ apiKey: SANDBOX_SCREENING_D_KEY, entityList: "maybe" })).status).toBe(200);
    const bad = await runTest();
    expect(bad.body.data).toMatchObject({ success: false, error: "INVALID_CONFIGURATION" });
    expect(sandbox.requests.length).toBe(0);
    const integration = await call("/api/v2/integrations/screening_d", { key });
    expect(integration.body.data).toMatchObject({ lastTestResult: "error", lastError: "INVALID_CONFIGURATION" });
  });
});
