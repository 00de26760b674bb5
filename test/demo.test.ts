// `caravan demo`: the service, the provider_b, provider_a and provider_e sandbox networks, the TRP peer (provider_d) and a webhook receiver;
// transfers go out and complete, come in, get held and are worked by an officer; each round drafts one suspicion
// report; the run ends with a summary and the path of its data.
import { test, expect, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { runDemo } from "../src/demo.ts";
import { tempDir } from "./support/tmp.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(90_000);

const dir = tempDir();
const root = join(import.meta.dir, "..");

test("demo: one round sends transfers out through provider_b, provider_a, provider_e and provider_d, works their cases, drafts one suspicion report, takes four in, and ends with a summary of its data", async () => {
  const lines: string[] = [];
  const dbPath = join(dir, "demo.db");
  // One round: the eleven plans (provider_b, screening held and approved, held and rejected, blocked; provider_a end to
  // end and flagged; provider_e end to end and with an information request), then the incoming ones.
  // A step that never ends (a lost decision left `exchanging`) is given up after a minute, a hang guard: the summary's
  // states below then fail the test with the line that says what it waited for, not the test's timeout.
  const demo = await runDemo({ port: 0, dbPath, count: 1, intervalMs: 100, giveUpMs: 60_000, log: (l) => lines.push(l) });
  try {
    // `done` settles once every transfer was followed to its end and the summary printed.
    const summary = await demo.done;
    const text = lines.join("\n");
    const url = demo.service.url;

    // The banner: the console command with this URL and key, how to make an analyst key, the webhook flag.
    expect(lines).toContain(`Caravan demo running at ${url}`);
    expect(text).toContain(`  console       bun run console -- --url ${url} --key ${demo.apiKey}`);
    const printed = /  analyst key   CARAVAN_DB=(\S+) bun src\/main\.ts keys create --env test --member (analyst-\S+@demo\.local)   /.exec(text);
    expect(printed?.[1]).toBe(dbPath);
    const analystEmail = printed![2];
    expect(text).toMatch(new RegExp(`  sign in       CARAVAN_DB=\\S+ bun src/main\\.ts members setup --email officer-\\S+@demo\\.local`));
    expect(text).toMatch(/ {2}webhooks {6}every event signed and sent to http:\/\/127\.0\.0\.1:\d+\/hooks; add --webhooks \(or -v\) to print each delivery/);
    // The analyst key command works as printed, beside the running demo: a key for an analyst of the demo's company.
    const made = Bun.spawnSync(["bun", "src/main.ts", "keys", "create", "--env", "test", "--member", analystEmail], { cwd: root, env: { ...process.env, CARAVAN_DB: dbPath } });
    expect(made.exitCode).toBe(0);
    const analystKey = made.stdout.toString().trim().split("\n").at(-1)!;
    expect(analystKey).toMatch(/^crv_test_/);
    const me = await fetch(`${url}/api/v2/me`, { headers: { "x-api-key": analystKey } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { member: { role: string } } }).data.member.role).toBe("analyst");

    // Webhook deliveries are received and signed, but printed only with the flag.
    const events = new Set(demo.received.map((r) => r.event));
    expect([...events]).toEqual(expect.arrayContaining(["transfer.created", "transfer.completed", "transfer.rejected", "transfer.failed"]));
    expect(lines.some((l) => l.includes("webhook ←"))).toBe(false);

    // provider_b and screening.
    expect(text).toContain("Round 1 of 1: 12 transfers out, then four in");
    expect(text).toMatch(/0\.05 ETH: 201 completed/);
    expect(text).toMatch(/→ awaiting_counterparty via provider_b to Alpine Exchange/);
    expect(text).toMatch(/→ completed \(transaction reported to provider_b\)/);
    expect(text).toMatch(/→ rejected \(SANCTION_LIST\)/);
    expect(text).toMatch(/→ held by screening \(screening_c success\)/);
    expect(text).toMatch(/case CASE-\S+ \(sanctions_hit, high\) opened for trf_\S+; the officer resolves it approved/);
    expect(text).toMatch(/case CASE-\S+ → closed \(approved; transfer action: queued\)/);
    // The high-risk address: blocked, and the officer confirms the block through the case the rule opened.
    expect(text).toMatch(/→ rejected \(COMPLIANCE_POLICY\)/);
    expect(text).toMatch(/case CASE-\S+ \(compliance_review, \w+\) opened for trf_\S+; the officer confirms the block/);
    expect(text).toMatch(/case CASE-\S+ → closed \(rejected; transfer action: none\)/);

    // One suspicion report per round: the watch-listed name rejected through its case.
    const rejectedCase = /case (CASE-\S+) \(sanctions_hit, high\) opened for (trf_\S+); the officer resolves it rejected/.exec(text);
    expect(rejectedCase).not.toBeNull();
    const reportLines = lines.filter((l) => /^report \S+ drafted for trf_/.test(l));
    expect(reportLines.length).toBe(1);
    expect(reportLines[0]).toMatch(new RegExp(`^report (\\S+) drafted for ${rejectedCase![2]} \\(draft, NL, due \\S+\\): the officer writes its narrative and files it`));
    const reportNumber = /^report (\S+)/.exec(reportLines[0])![1];
    const reports = await fetch(`${url}/api/v2/reports`, { headers: { "x-api-key": demo.apiKey } });
    const reportRows = ((await reports.json()) as { data: { reportNumber: string; transferId: string }[] }).data;
    expect(reportRows.map((r) => r.reportNumber)).toEqual([reportNumber]);
    expect(text).toContain(`transfer ${rejectedCase![2]} → rejected (COMPLIANCE_POLICY)`);

    // Incoming through provider_b: verified, then its transaction recorded.
    expect(text).toMatch(/incoming 2\.5 ETH from Alpine Exchange to Jane van Dyke: verified/);
    expect(text).toMatch(/incoming transaction reported by Alpine Exchange: normal/);
    expect(text).toMatch(/incoming trf_\S+ \(provider_b\) → accepted \(txHash [0-9a-f]{64} reported by Alpine Exchange/);

    // provider_a: a transfer carried end to end, a flagged one held and approved through its case, an incoming one.
    expect(text).toMatch(/→ accepted via provider_a to Harbour Exchange/);
    expect(text).toMatch(/→ held by provider_a \(flagged by the network at Lighthouse Custody\)/);
    expect(text).toMatch(/case CASE-\S+ \(provider_rejection, \w+\) opened for trf_\S+; the officer resolves it approved/);
    expect(text).toMatch(/\(provider_a\) → awaiting_counterparty after its case, without calling the provider/);
    expect(text).toMatch(/→ accepted via provider_a to Lighthouse Custody/);
    expect(text).toMatch(/incoming 3 ETH via provider_a from Harbour Exchange to Jane van Dyke: event 200/);
    expect(text).toMatch(/incoming trf_\S+ \(provider_a\) → completed \(txHash 0x[0-9a-f]{64} from Harbour's settlement\)/);
    // Both provider_a transfers settled at the network with the hash the caller reported.
    expect(lines.filter((l) => /→ completed \(settled at provider_a\)/.test(l)).length).toBe(2);
    expect([...demo.peerA.transfers.values()].filter((t) => t.settlementId !== undefined && t.ref.startsWith("trf_")).length).toBe(2);

    // provider_e: a transfer carried end to end, and one the bank asks information about.
    expect(text).toMatch(/→ awaiting_counterparty via provider_e to Nordic Bank/);
    expect(text).toMatch(/Nordic Bank asks for information on trf_\S+ \(REQUEST_CDD: country_of_residence, other_cdd_info\): 200/);
    expect(text).toMatch(/→ held \(information request cdd_\S+ awaiting review, pending: true\); draft from the verified identity: country_of_residence; missing: other_cdd_info/);
    const cddCase = /case (CASE-\S+) \(compliance_review, \w+\) opened for trf_\S+ by the information request; it stays open for the officer/.exec(text);
    expect(cddCase).not.toBeNull();
    expect(text).toMatch(/officer replies to cdd_\S+ with the draft: 202 queued/);
    expect(text).toMatch(/reply cdd_\S+ → sent \(signed, encrypted for Nordic Bank\)/);
    expect(text).toMatch(/officer reviews cdd_\S+: 202 reviewed/);
    expect(text).toMatch(/→ awaiting_counterparty after the review \(beneficiary screened again\)/);
    expect(lines.filter((l) => /→ completed \(signed txid sent to provider_e\)/.test(l)).length).toBe(2);
    // The held transfer completed only after its review.
    const cddId = /Nordic Bank asks for information on (trf_\S+)/.exec(text)![1];
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
    // The eleventh transfer's originator is Jane van Dyke: her verified identity gives the country of residence.
    expect(answers[0].content).toEqual({ country_of_residence: "NL", other_cdd_info: "Rent for a holiday flat in Bergen" });
    // Incoming through provider_e: accepted by Caravan (signed ACCEPTED at the bridge), completed by Nordic Bank's txid.
    expect(text).toMatch(/incoming 2 ETH via provider_e from Nordic Bank to Jane van Dyke: permission request 200/);
    expect(text).toMatch(/incoming trf_\S+ \(provider_e\) → awaiting_counterparty \(our signed decision at the bridge: ACCEPTED\)/);
    expect(text).toMatch(/incoming transaction reported by Nordic Bank \(signed txid\): 200/);
    expect(text).toMatch(/incoming trf_\S+ \(provider_e\) → completed \(txHash 0x[0-9a-f]{64} from Nordic Bank's txid\)/);
    expect([...demo.bridgeE.transfers.values()].filter((t) => t.from === "NORDICBANK").map((t) => t.data.permission_status)).toEqual(["ACCEPTED"]);

    // provider_d (TRP over mutual TLS): out to Meridian VASP's Travel Address, approved with its address, confirmed;
    // in from Meridian VASP to our customer's Travel Address, approved within the request, confirmed with its txid.
    expect(text).toMatch(/→ awaiting_counterparty via provider_d to Meridian VASP \(beneficiary address 0x8ba1f109551bd432803012645ac136ddd64dba72\)/i);
    expect(text).toMatch(/→ completed \(txid confirmed to Meridian VASP over TRP\)/);
    expect(text).toMatch(/incoming 0\.8 ETH via provider_d from Meridian VASP to Jane van Dyke's Travel Address: 200 approved/);
    expect(text).toMatch(/incoming trf_\S+ \(provider_d\) → completed \(txHash 0x[0-9a-f]{64} from Meridian VASP's confirmation\)/);
    expect(demo.peerD.confirmations.map((c) => Object.keys(c.body))).toEqual([["txid"]]);

    // The summary: every transfer of the round by its state, the one report, the one case left open, the data.
    expect(summary).toEqual({
      rounds: 1,
      transfers: 16,
      // completed: 0.05, 2, the approved watch-listed one, Harbour, Lighthouse, both Nordic Bank, Meridian, incoming
      // provider_a, provider_e and provider_d; accepted: incoming provider_b; rejected: sanctioned, watch-listed rejected, high-risk; failed: no VASP.
      byState: { completed: 11, accepted: 1, rejected: 3, failed: 1 },
      reports: [reportNumber],
      openCases: [{ caseNumber: cddCase![1], type: "compliance_review" }],
      dbPath,
      where: dbPath,
    });
    expect(text).toMatch(/Summary: 1 round, 16 transfers \((completed 11|rejected 3|failed 1|accepted 1)(, (completed 11|rejected 3|failed 1|accepted 1)){3}\)/);
    expect(text).toContain(`  suspicion reports drafted: 1 (${reportNumber})`);
    expect(text).toContain(`  cases open: 1 (${cddCase![1]} compliance_review), left for the officer`);
    expect(text).toContain(`Data left behind: ${dbPath} (CARAVAN_DB; master key in ${join(dir, "master.key")})`);
    expect(text).toContain(`  serve it again:  CARAVAN_DB=${dbPath} bun run start`);
    expect(text).toContain(`  then look:       bun run console -- --url http://127.0.0.1:8080 --key ${demo.apiKey}`);
  } finally {
    await demo.stop();
  }
});

test("demo: the command refuses a count that is not a whole number of rounds, in one line", () => {
  const r = Bun.spawnSync(["bun", "src/main.ts", "demo", "--count", "0"], { cwd: root, env: { ...process.env, PORT: "0" } });
  expect(r.exitCode).toBe(1);
  expect(r.stderr.toString().trim()).toBe("caravan: --count must be a whole number of rounds, 1 or more");
});
