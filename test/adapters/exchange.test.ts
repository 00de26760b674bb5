// The one JSON-over-HTTP exchange every provider and screening vendor uses: each failure of the shared vocabulary,
// against a real server on loopback.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { exchange, type ExchangeFetch } from "../../src/adapters/net/exchange.ts";
import { vendorFailure } from "../../src/adapters/screening/failures.ts";

let server: ReturnType<typeof Bun.serve>;
let base = "";
const hits: string[] = [];
const plainFetch = fetch as unknown as ExchangeFetch;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      switch (path) {
        case "/ok":
          return Response.json({ echo: req.method === "POST" ? await req.json() : null, accept: req.headers.get("accept"), type: req.headers.get("content-type") });
        case "/empty":
          return new Response(null, { status: 204 });
        case "/big":
          return new Response("[" + "1,".repeat(600) + "1]", { headers: { "content-type": "application/json" } });
        case "/deep":
          return new Response("[".repeat(40) + "]".repeat(40));
        case "/text":
          return new Response("<html>");
        case "/redirect":
          return new Response(null, { status: 302, headers: { location: `${base}/ok` } });
        case "/refusal":
          return Response.json({ code: "SOME_CODE" }, { status: 409 });
        case "/slow":
          await new Promise((r) => setTimeout(r, 2_000));
          return Response.json({});
        default:
          return new Response("no", { status: 404 });
      }
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const ask = (path: string, extra: Partial<Parameters<typeof exchange>[1]> = {}) => exchange(plainFetch, { method: "GET", url: base + path, maxBytes: 1024, ...extra });

describe("exchange", () => {
  test("a 2xx JSON answer is its value; a JSON request carries content-type, every request accepts JSON", async () => {
    const r = await ask("/ok", { method: "POST", json: { a: 1 } });
    expect(r).toMatchObject({ ok: true, status: 200, body: { echo: { a: 1 }, accept: "application/json", type: "application/json" } });
  });

  test("an empty 2xx answer is not_json unless the caller allows it", async () => {
    expect(await ask("/empty")).toMatchObject({ ok: false, failure: "not_json", status: 204 });
    expect(await ask("/empty", { allowEmpty: true })).toMatchObject({ ok: true, status: 204, body: undefined });
  });

  test("an answer over the byte cap is too_large; text and over-deep JSON are not_json", async () => {
    expect(await ask("/big")).toMatchObject({ ok: false, failure: "too_large" });
    expect((await ask("/big", { maxBytes: 4096 })).ok).toBe(true);
    expect(await ask("/deep", { maxBytes: 4096 })).toMatchObject({ ok: false, failure: "not_json" });
    expect(await ask("/text")).toMatchObject({ ok: false, failure: "not_json" });
  });

  test("a redirect is a failure with its status and is not followed", async () => {
    hits.length = 0;
    expect(await ask("/redirect")).toMatchObject({ ok: false, failure: "redirect", status: 302 });
    expect(hits).toEqual(["/redirect"]);
  });

  test("a non-2xx answer is http; its JSON only when asked for", async () => {
    const unread = await ask("/refusal");
    expect(unread).toMatchObject({ ok: false, failure: "http", status: 409 });
    expect("body" in unread).toBe(false);
    expect(await ask("/refusal", { errorBody: true })).toMatchObject({ ok: false, failure: "http", status: 409, body: { code: "SOME_CODE" } });
  });

  test("no answer within the time allowed is timeout; nobody listening is network", async () => {
    expect(await ask("/slow", { timeoutMs: 50 })).toMatchObject({ ok: false, failure: "timeout" });
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}/`;
    void closed.stop(true);
    expect(await exchange(plainFetch, { method: "GET", url, maxBytes: 10 })).toMatchObject({ ok: false, failure: "network" });
  });

  test("the screening vendors' codes: TIMEOUT, NETWORK_ERROR, HTTP_<status>, RESPONSE_TOO_LARGE, INVALID_RESPONSE", () => {
    expect(vendorFailure({ failure: "timeout" })).toBe("TIMEOUT");
    expect(vendorFailure({ failure: "redirect", status: 302 })).toBe("NETWORK_ERROR");
    expect(vendorFailure({ failure: "refused" })).toBe("NETWORK_ERROR");
    expect(vendorFailure({ failure: "network" })).toBe("NETWORK_ERROR");
    expect(vendorFailure({ failure: "http", status: 503 })).toBe("HTTP_503");
    expect(vendorFailure({ failure: "too_large", status: 200 })).toBe("RESPONSE_TOO_LARGE");
    expect(vendorFailure({ failure: "not_json", status: 200 })).toBe("INVALID_RESPONSE");
  });
});
