// provider_e end to end on the published wire: a counterparty (the sandbox bridge, a separate party on
// @sygna/bridge-util) sends IVMS101 in each spelling peers use, and messages in shapes we do not understand; those are
// refused with the callback table's code, logged with the field path (never the personal data) and create nothing.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { startProviderESuite, OUR_CODE, ORIGIN_ADDR, type Suite } from "../support/provider_e.ts";
import { JANE, RICHARD, person } from "../support/persons.ts";

setDefaultTimeout(60_000);
const dir = tempDir();
const EARLY_ADDR = "0x" + "5e".repeat(20);
let P: Suite;

beforeAll(async () => {
  P = await startProviderESuite(dir, { bridge: { vasps: [{ code: "NORDICBANK", name: "Nordic Bank" }, { code: "EARLYVASP", name: "Early Exchange", addresses: [EARLY_ADDR], decideBeforeAnswer: true }] } });
});
afterAll(async () => {
  await P?.stop();
});

const input = (extra: Record<string, unknown> = {}) => ({ from: "NORDICBANK", originatorPersons: [RICHARD], beneficiaryPersons: [JANE], originatorAddress: "0x" + "11".repeat(20), beneficiaryAddress: ORIGIN_ADDR, ...extra });
const incoming = async () => (await P.call("/api/v2/transfers?direction=incoming&limit=100", { key: P.owner })).body.data as { id: string; externalId?: string }[];
const byExternal = async (externalId: string) => (await P.call(`/api/v2/transfers?direction=incoming&search=${externalId}`, { key: P.owner })).body.data[0];

describe("IVMS101 in private_info, every spelling peers use", () => {
  for (const spelling of ["snake_case", "2023"] as const) {
    test(`${spelling}: verified, decrypted, read, screened and accepted → awaiting_counterparty`, async () => {
      const r = await P.bridge.sendPermissionRequest(input({ spelling }));
      expect(r).toMatchObject({ status: 200, body: { status: "OK" } });
      const t = await byExternal(r.transferId);
      expect(t).toBeDefined();
      const d = await P.until(t.id, (x) => x.state === "awaiting_counterparty");
      expect(d.status.ours).toBe("accepted");
      expect(P.bridge.transfers.get(r.transferId)!.data.permission_status).toBe("ACCEPTED");
    });
  }
});

describe("a counterparty message in a shape we do not understand", () => {
  test("the v1 flat transaction → 400 Invalid callback, the path logged without the person's name, nothing created", async () => {
    const before = (await incoming()).length;
    const r = await P.bridge.sendPermissionRequest(
      input({
        originatorPersons: [person("Nordmann", "Ola")],
        rawTransaction: { originator_vasp_code: "NORDICBANK", originator_addrs: ["0x" + "11".repeat(20)], beneficiary_vasp_code: OUR_CODE, beneficiary_addrs: [ORIGIN_ADDR], transaction_currency: "sygna:0x8000003c", amount: "1" },
      }),
    );
    expect(r).toMatchObject({ status: 400, body: { error: "Invalid callback" } });
    expect((await incoming()).length).toBe(before);
    expect(await P.S.untilOutput('"path":"data.transaction.originator_vasp"')).toContain('"path":"data.transaction.originator_vasp"');
  });

  test("private_info we cannot read as IVMS101 → 400 Invalid callback, logged with its path, never its content; nothing created", async () => {
    const before = (await incoming()).length;
    const r = await P.bridge.sendPermissionRequest(input({ rawPrivateInfo: { originator: { persons: [person("Nordmann", "Ola")] }, beneficiary: { beneficiaryPersons: [JANE] } } }));
    expect(r).toMatchObject({ status: 400, body: { error: "Invalid callback" } });
    expect((await incoming()).length).toBe(before);
    const log = await P.S.untilOutput('"path":"data.private_info.originator.originatorPersons"');
    expect(log).toContain('"path":"data.private_info.originator.originatorPersons"');
    expect(log).not.toContain("Nordmann");
  });

  test("a field we do not need never refuses: extra fields in the transaction and in IVMS101 are accepted", async () => {
    const r = await P.bridge.sendPermissionRequest(
      input({
        rawTransaction: {
          originator_vasp: { vasp_code: "NORDICBANK", vasp_name: "Nordic Bank", addrs: [{ address: "0x" + "11".repeat(20), addr_extra_info: [], label: "hot" }] },
          beneficiary_vasp: { vasp_code: OUR_CODE, addrs: [{ address: ORIGIN_ADDR }] },
          currency_id: "sygna:0x8000003c",
          amount: "1",
          memo: "not needed",
        },
        rawPrivateInfo: { originator: { originatorPersons: [RICHARD], accountNumber: ["0x" + "11".repeat(20)] }, beneficiary: { beneficiaryPersons: [JANE], accountNumber: [ORIGIN_ADDR] }, transferDetails: { purpose: "rent" } },
      }),
    );
    expect(r).toMatchObject({ status: 200, body: { status: "OK" } });
    const t = await byExternal(r.transferId);
    await P.until(t.id, (x) => x.state === "awaiting_counterparty");
  });
});

describe("a decision relayed before the bridge answers our permission request", () => {
  test("found by the callback URL's transfer ID and token, applied once the request is taken → awaiting_counterparty", async () => {
    const id = await P.create(EARLY_ADDR);
    const t = await P.until(id, (x) => x.state === "awaiting_counterparty" || x.state === "failed" || x.state === "rejected");
    expect(t.state).toBe("awaiting_counterparty");
    expect(t.status).toEqual({ ours: "accepted", theirs: "accepted" });
    // The bridge's first delivery was accepted (no retry needed): the decision was not lost.
    expect(P.bridge.transfers.get(t.cascade.externalId)!.permissionDelivered).toBe(true);
  });
});
