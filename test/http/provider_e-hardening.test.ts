// provider_e callbacks under hostile input: a body of deeply nested arrays is refused by the bounded JSON reader
// before any signature code runs (the answer shows it: 400 Invalid callback where a signature check would say 401 and
// a transfer lookup 404), and unauthenticated callbacks are not charged to the company's request budget (Part 3:
// accepted callbacks count), so a flood of them cannot lock the company out of its API; accepted ones still count.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, OUR_CODE, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { randomPrivateKey, signObject } from "../../src/adapters/providers/provider_e/crypto.ts";

setDefaultTimeout(60_000);
const dir = tempDir();
let P: Suite;
// A tight company budget for this server: setup uses 7 requests of it.
const BUDGET = 30;

beforeAll(async () => {
  P = await startProviderESuite(dir, { serverEnv: { CARAVAN_RATE_LIMITS: `company=${BUDGET}/600` }, bridge: { vasps: [{ code: "NORDICBANK", name: "Nordic Bank" }] } });
});
afterAll(async () => {
  await P?.stop();
});

const url = (event: string, providerId = P.providerId, query = "") => `${P.S.url}/api/system/trp/provider_e/test/${encodeURIComponent(providerId)}/${event}${query}`;
const post = async (u: string, body: string) => {
  const r = await fetch(u, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: r.status, body: await r.json().catch(() => null) };
};

/** Nearly 2 MiB: arrays each nested `depth` deep, beside fields of the event's shape (a forged signature). */
function deepBody(fields: Record<string, unknown>, arrays = 37, depth = 28_000): string {
  const deep = "[".repeat(depth) + "]".repeat(depth);
  const head = JSON.stringify(fields).slice(0, -1);
  const body = `${head},"x":[${Array.from({ length: arrays }, () => deep).join(",")}]}`;
  expect(body.length).toBeLessThan(2 * 1024 * 1024);
  return body;
}

describe("deeply nested bodies", () => {
  const hex = "ab".repeat(32);
  const forged = "cd".repeat(64);
  const shapes: Record<string, Record<string, unknown>> = {
    "address-validation": { vasp_code: OUR_CODE, currency_id: "sygna:0x8000003c", addrs: [{ address: ORIGIN_ADDR }], signature: forged },
    "permission-request": {
      transfer_id: hex,
      data: { private_info: "04ab", transaction: { originator_vasp: { vasp_code: "NORDICBANK", addrs: [{ address: "0x" + "11".repeat(20) }] }, beneficiary_vasp: { vasp_code: OUR_CODE, addrs: [{ address: ORIGIN_ADDR }] }, currency_id: "sygna:0x8000003c", amount: "1" }, data_dt: new Date().toISOString(), signature: forged },
    },
    txid: { transfer_id: hex, txid: "0x" + "12".repeat(32), signature: forged },
    cancel: { transfer_id: hex, signature: forged },
    cdd: { transfer_id: hex, message_id: "m1", type: "POST_CDD", private_info: "04ab", data_dt: new Date().toISOString(), signature: forged },
    permission: { transfer_id: hex, permission_status: "ACCEPTED", signature: forged },
  };

  test("the same shapes without the nesting reach the signature or transfer checks (401 or 404): the refusal below is the reader's", async () => {
    expect((await post(url("address-validation"), JSON.stringify(shapes["address-validation"]))).status).toBe(401);
    expect((await post(url("txid"), JSON.stringify(shapes.txid))).body).toEqual({ error: "UNKNOWN_TRANSFER" });
  });

  for (const [event, fields] of Object.entries(shapes)) {
    test(`${event}: 37 arrays 28,000 deep → 400 Invalid callback from the bounded reader, logged as too deep`, async () => {
      const r = await post(url(event), deepBody(fields));
      expect(r).toEqual({ status: 400, body: { error: "Invalid callback" } });
      const line = `"event":"${event}","path":"(nesting too deep)"`;
      expect(await P.S.untilOutput(line)).toContain(line);
    });
  }

  test("33 levels are refused, 32 are read (the documented limit)", async () => {
    const nest = (n: number) => "[".repeat(n) + "]".repeat(n);
    // The object itself is level 1: `x` adds n more.
    const at = (n: number) => `{"vasp_code":"${OUR_CODE}","currency_id":"sygna:0x8000003c","addrs":[{"address":"${ORIGIN_ADDR}"}],"signature":"${forged}","x":${nest(n)}}`;
    expect((await post(url("address-validation"), at(32))).body).toEqual({ error: "Invalid callback" });
    expect((await post(url("address-validation"), at(31))).status).toBe(401);
  });
});

describe("request budget", () => {
  test("a flood of unauthenticated callbacks is not charged: the company's API still answers; accepted callbacks are charged", async () => {
    const q = { vasp_code: OUR_CODE, currency_id: "sygna:0x8000003c", addrs: [{ address: ORIGIN_ADDR, addr_extra_info: [] }] };
    for (let i = 0; i < 3 * BUDGET; i++) {
      const r = await Promise.all([
        post(url("address-validation"), JSON.stringify(signObject(q, randomPrivateKey()))),
        post(url("cdd", "not-a-provider"), "{}"),
        post(url("txid"), JSON.stringify({ transfer_id: "0".repeat(64), txid: "x", signature: "00" })),
      ]);
      expect(r.map((x) => x.status)).toEqual([401, 503, 404]);
    }
    expect((await P.call("/api/v2/transfers", { key: P.owner })).status).toBe(200);
    // Authenticated questions (signed by the bridge) count, with the API, toward the same budget: 429 comes.
    let limited: { status: number; body: unknown } | null = null;
    for (let i = 0; i < BUDGET && !limited; i++) {
      const r = await post(url("address-validation"), JSON.stringify(P.bridge.signAsBridge(q)));
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(200);
    }
    expect(limited).toEqual({ status: 429, body: { error: "Rate limit exceeded", code: "RATE_LIMITED" } });
    expect((await P.call("/api/v2/transfers", { key: P.owner })).status).toBe(429);
  });
});
