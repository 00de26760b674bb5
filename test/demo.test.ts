// `caravan demo`: the service, the provider_b, provider_a and provider_e sandbox networks and a webhook receiver;
// transfers go out and complete, come in, get held and are worked by an officer.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { runDemo } from "../src/demo.ts";
import { tempDir } from "./support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir();

test("the demo sends transfers out through provider_b, provider_a and provider_e to sandbox VASPs, answers an information request, takes transfers in, and the local receiver gets their webhooks", async () => {
  const lines: string[] = [];
  /** Polls until `done()` holds (bounded: a hang guard, not a time limit; whatever is asserted afterwards decides). */
  const settle = async (done: () => boolean, rounds = 200) => {
    for (let i = 0; i < rounds && !done(); i++) await Bun.sleep(100);
  };
  /** Waits for a log line matching `re`, and asserts it came. */
  const waitFor = async (re: RegExp) => {
    await settle(() => re.test(lines.join("\n")));
    expect(lines.join("\n")).toMatch(re);
  };
  // Ten rounds: the six provider_b plans, provider_a end to end and provider_a flagged, provider_e end to end and
  // provider_e with an information request; then the incoming ones (provider_b, provider_a, provider_e).
  const demo = await runDemo({ port: 0, dbPath: join(dir, "demo.db"), count: 10, intervalMs: 300, log: (l) => lines.push(l) });
  try {
    await demo.done;
    // Let the followers finish (accept with txHash for the one that reached awaiting_counterparty).
    await settle(() => lines.some((l) => l.includes("transaction reported to provider_b")));
    await settle(() => demo.received.some((r) => r.event === "transfer.failed"));
    const text = lines.join("\n");
    expect(text).toMatch(/0\.05 ETH: 201 completed/);
    expect(text).toMatch(/→ awaiting_counterparty via provider_b to Alpine Exchange/);
    expect(text).toMatch(/→ completed \(transaction reported to provider_b\)/);
    expect(text).toMatch(/→ rejected \(SANCTION_LIST\)/);
    // Screening for real: a watch-listed name held and resolved through its case, a high-risk address blocked.
    await waitFor(/case CASE-\S+ → closed \(transfer action: queued\)/);
    const screened = lines.join("\n");
    expect(screened).toMatch(/→ held by screening \(screening_c success\)/);
    expect(screened).toMatch(/case CASE-\S+ \(sanctions_hit, high\) opened for trf_/);
    expect(screened).toMatch(/case CASE-\S+ → closed \(transfer action: queued\)/);
    expect(screened).toMatch(/→ rejected \(COMPLIANCE_POLICY\)/);
    expect(text).toMatch(/incoming 2\.5 ETH from Alpine Exchange to Jane van Dyke: verified/);
    expect(text).toMatch(/incoming transaction reported by Alpine Exchange: normal/);
    // provider_a: a transfer carried end to end, a flagged one held and approved through its case, an incoming one.
    await waitFor(/→ accepted via provider_a to Harbour Exchange/);
    await waitFor(/→ completed \(settled at provider_a\)/);
    await waitFor(/→ held by provider_a \(flagged by the network at Lighthouse Custody\)/);
    await waitFor(/\(provider_a\) → awaiting_counterparty after its case, without calling the provider/);
    await waitFor(/→ accepted via provider_a to Lighthouse Custody/);
    await waitFor(/incoming 3 ETH via provider_a from Harbour Exchange to Jane van Dyke: event 200/);
    await waitFor(/incoming trf_\S+ \(provider_a\) → completed \(txHash 0x[0-9a-f]{64} from Harbour's settlement\)/);
    // Both provider_a transfers settled at the network with the hash the caller reported.
    const settledLines = () => lines.filter((l) => /→ completed \(settled at provider_a\)/.test(l)).length;
    await settle(() => settledLines() >= 2);
    expect(settledLines()).toBe(2);
    const settled = [...demo.peerA.transfers.values()].filter((t) => t.settlementId !== undefined && t.ref.startsWith("trf_"));
    expect(settled.length).toBe(2);
    // provider_e: a transfer carried end to end (Nordic Bank confirms its address and accepts; the txid is signed).
    await waitFor(/→ awaiting_counterparty via provider_e to Nordic Bank/);
    // An information request: held with its case, the officer replies with the draft, reviews, and the transfer moves on.
    await waitFor(/Nordic Bank asks for information on trf_\S+ \(REQUEST_CDD: country_of_residence, other_cdd_info\): 200/);
    await waitFor(/→ held \(information request cdd_\S+ awaiting review, pending: true\); draft from the verified identity: country_of_residence; missing: other_cdd_info/);
    await waitFor(/case CASE-\S+ \(compliance_review, \w+\) opened for trf_\S+ by the information request/);
    await waitFor(/officer replies to cdd_\S+ with the draft: 202 queued/);
    await waitFor(/reply cdd_\S+ → sent \(signed, encrypted for Nordic Bank\)/);
    await waitFor(/officer reviews cdd_\S+: 202 reviewed/);
    await waitFor(/→ awaiting_counterparty after the review \(beneficiary screened again\)/);
    const txidLines = () => lines.filter((l) => /→ completed \(signed txid sent to provider_e\)/.test(l));
    await settle(() => txidLines().length >= 2);
    expect(txidLines().length).toBe(2);
    // The held transfer completed only after its review.
    const cddId = /Nordic Bank asks for information on (trf_\S+)/.exec(lines.join("\n"))![1];
    const reviewedAt = lines.findIndex((l) => l.includes(`transfer ${cddId} → awaiting_counterparty after the review`));
    const completedAt = lines.findIndex((l) => l.includes(`transfer ${cddId} → completed (signed txid sent to provider_e)`));
    expect(reviewedAt).toBeGreaterThan(-1);
    expect(completedAt).toBeGreaterThan(reviewedAt);
    // At the bridge: both outgoing transfers carry our signed txid, and Nordic Bank decrypted the officer's answer.
    const outgoingE = [...demo.bridgeE.transfers.values()].filter((t) => t.from === "CARAVANDEMO" && t.to === "NORDICBANK");
    expect(outgoingE.length).toBe(2);
    expect(outgoingE.every((t) => /^0x[0-9a-f]{64}$/.test(t.data.txid ?? ""))).toBe(true);
    const answers = outgoingE.flatMap((t) => t.cddInbox).filter((m) => m.type === "RESPOND_CDD");
    expect(answers.length).toBe(1);
    // The tenth round's originator is Kofi Mensah: his verified identity gives the country of residence.
    expect(answers[0].content).toEqual({ country_of_residence: "GH", other_cdd_info: "Rent for a holiday flat in Bergen" });
    // Incoming through provider_e: accepted by Caravan (signed ACCEPTED at the bridge), completed by Nordic Bank's txid.
    await waitFor(/incoming 2 ETH via provider_e from Nordic Bank to Jane van Dyke: permission request 200/);
    await waitFor(/incoming trf_\S+ \(provider_e\) → awaiting_counterparty \(our signed decision at the bridge: ACCEPTED\)/);
    await waitFor(/incoming transaction reported by Nordic Bank \(signed txid\): 200/);
    await waitFor(/incoming trf_\S+ \(provider_e\) → completed \(txHash 0x[0-9a-f]{64} from Nordic Bank's txid\)/);
    const incomingE = [...demo.bridgeE.transfers.values()].filter((t) => t.from === "NORDICBANK");
    expect(incomingE.map((t) => t.data.permission_status)).toEqual(["ACCEPTED"]);
    const events = new Set(demo.received.map((r) => r.event));
    expect([...events]).toEqual(expect.arrayContaining(["transfer.created", "transfer.completed", "transfer.rejected", "transfer.failed"]));
  } finally {
    await demo.stop();
  }
});
