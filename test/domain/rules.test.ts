// Part 2 "Rule" and Part 3 "screening_c screening" / "screening_d screening" Rules, without I/O: which rules apply at a
// checkpoint, which integrations they read, the verdict, JSON response queries, and rule body validation. Table-driven.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  applicableRules,
  compareValue,
  evaluate,
  verdictUnscreened,
  integrationsRead,
  parsePath,
  readPath,
  validateCreateRule,
  validateUpdateRule,
  type Branch,
  type IntegrationRef,
  type Rule,
  type RuleCheck,
  type Stage,
  type TransferFacts,
} from "../../src/domain/rules/index.ts";
import { EU_MEMBERS } from "../../src/domain/thresholds.ts";

setDefaultTimeout(60_000);

const C = "int_c0000000000000000000000000"; // screening_c
const D = "int_d0000000000000000000000000"; // screening_d

function rule(over: Partial<Rule> = {}): Rule {
  return {
    id: over.id ?? "rul_test",
    companyId: "cmp_1",
    environment: "test",
    name: "rule",
    description: null,
    category: "aml",
    stage: "both",
    action: "flag",
    severity: "medium",
    isActive: true,
    threshold: null,
    thresholdCurrency: null,
    jurisdictions: [],
    metadata: null,
    condition: null,
    createdById: null,
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    ...over,
  };
}
const withBranches = (rules: Branch[], over: Partial<Rule> = {}) => rule({ condition: { rules }, ...over });

const FACTS: TransferFacts = {
  direction: "outgoing",
  amount: "1.5",
  amountUSD: "5000.00",
  amountLocal: "4600.00",
  localCurrency: "EUR",
  asset: "ETH",
  network: "ethereum",
  jurisdiction: "DE",
  walletType: "hosted",
  originatorName: "Alice Example",
  beneficiaryName: "Bob Example",
  originatorAddress: "0xabc",
  beneficiaryAddress: "0xdef",
};
const facts = (over: Partial<TransferFacts> = {}): TransferFacts => ({ ...FACTS, ...over });

/** A screening_c name search answer (Part 3 "Response mapping"). */
const nameHits = (...hits: string[][]) => ({
  status: "success",
  content: { data: { total_hits: hits.length, hits: hits.map((types, i) => ({ doc: { name: `hit ${i}`, types }, score: 1.2 })) } },
});
/** A screening_d address answer. */
const risk = (score: number) => ({ meta: { error_code: 0 }, data: { blockchains: ["eth"], counterparty: { riskscore: score } } });
const check = (status: RuleCheck["status"], ...responses: unknown[]): RuleCheck => ({ status, screenings: responses.map((response) => ({ response })) });
const checks = (entries: [string, RuleCheck][]) => new Map(entries);

describe("applicableRules: stage, activity, jurisdictions, threshold, asset, network", () => {
  const cases: { name: string; rule: Partial<Rule>; facts?: Partial<TransferFacts>; stage?: Stage; applies: boolean }[] = [
    { name: "stage both applies at precheck", rule: { stage: "both" }, applies: true },
    { name: "stage both applies at postcheck", rule: { stage: "both" }, stage: "postcheck", applies: true },
    { name: "stage precheck applies at precheck", rule: { stage: "precheck" }, applies: true },
    { name: "stage precheck does not apply at postcheck", rule: { stage: "precheck" }, stage: "postcheck", applies: false },
    { name: "stage postcheck does not apply at precheck", rule: { stage: "postcheck" }, applies: false },
    { name: "an inactive rule never applies", rule: { isActive: false }, applies: false },
    { name: "no jurisdictions: everywhere", rule: { jurisdictions: [] }, applies: true },
    { name: "GLOBAL: everywhere", rule: { jurisdictions: ["GLOBAL"] }, applies: true },
    { name: "GLOBAL applies without a jurisdiction", rule: { jurisdictions: ["GLOBAL"] }, facts: { jurisdiction: null }, applies: true },
    { name: "listed jurisdiction", rule: { jurisdictions: ["FR", "DE"] }, applies: true },
    { name: "other jurisdiction", rule: { jurisdictions: ["US"] }, applies: false },
    { name: "EU matches a member state", rule: { jurisdictions: ["EU"] }, facts: { jurisdiction: "FR" }, applies: true },
    { name: "EU does not match a non-member", rule: { jurisdictions: ["EU"] }, facts: { jurisdiction: "GB" }, applies: false },
    { name: "limited rule, no jurisdiction determined: does not apply", rule: { jurisdictions: ["DE"] }, facts: { jurisdiction: null }, applies: false },
    { name: "threshold gt (default) above", rule: { threshold: "4999.99" }, applies: true },
    { name: "threshold gt (default) at the threshold: not above", rule: { threshold: "5000" }, applies: false },
    { name: "threshold lt below", rule: { threshold: "5000.01", metadata: { thresholdOperator: "lt" } }, applies: true },
    { name: "threshold lt at: not below", rule: { threshold: "5000", metadata: { thresholdOperator: "lt" } }, applies: false },
    { name: "threshold eq as decimals", rule: { threshold: "5000", metadata: { thresholdOperator: "eq" } }, applies: true },
    { name: "threshold currency null reads amountUSD", rule: { threshold: "6000", thresholdCurrency: null }, applies: false },
    { name: "threshold in USD reads amountUSD", rule: { threshold: "4800", thresholdCurrency: "USD" }, applies: true },
    { name: "threshold in the local currency reads amountLocal", rule: { threshold: "4700", thresholdCurrency: "EUR" }, applies: false },
    { name: "threshold in the local currency, below it", rule: { threshold: "4500", thresholdCurrency: "EUR" }, applies: true },
    { name: "threshold in another currency: applies (errs on screening)", rule: { threshold: "1000000", thresholdCurrency: "JPY" }, applies: true },
    { name: "USD threshold without a USD value: applies", rule: { threshold: "1000000" }, facts: { amountUSD: null }, applies: true },
    { name: "local threshold without a local value: applies", rule: { threshold: "1000000", thresholdCurrency: "EUR" }, facts: { amountLocal: null }, applies: true },
    { name: "asset all", rule: { metadata: { asset: "all" } }, applies: true },
    { name: "asset code, any case", rule: { metadata: { asset: "eth" } }, applies: true },
    { name: "other asset", rule: { metadata: { asset: "USDC" } }, applies: false },
    { name: "network code", rule: { metadata: { network: "ethereum" } }, applies: true },
    { name: "other network", rule: { metadata: { network: "polygon" } }, applies: false },
  ];
  for (const c of cases)
    test(c.name, () => {
      expect(applicableRules([rule(c.rule)], facts(c.facts), c.stage ?? "precheck", EU_MEMBERS).length).toBe(c.applies ? 1 : 0);
    });

  test("keeps the given order", () => {
    const rs = [rule({ id: "a" }), rule({ id: "b", isActive: false }), rule({ id: "c" })];
    expect(applicableRules(rs, FACTS, "precheck", EU_MEMBERS).map((r) => r.id)).toEqual(["a", "c"]);
  });
});

describe("integrationsRead: only the integrations a branch reads (Part 3: enabling alone screens nothing)", () => {
  test("field branches on transfer attributes read none; query and dotted field branches read theirs, once each", () => {
    const rs = [
      withBranches([{ type: "if", action: "flag", field: "amountUSD", operator: "gt", value: "1" }]),
      withBranches([
        { type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" },
        { type: "elseIf", action: "flag", field: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.5" },
        { type: "else", action: "flag" },
      ]),
      withBranches([{ type: "if", action: "flag", query: "content.data.hits[].doc.types[]", integrationId: C, operator: "contains", value: "sanction" }]),
      rule(),
    ];
    expect(integrationsRead(rs)).toEqual([C, D]);
    expect(integrationsRead([rs[0], rs[3]])).toEqual([]);
  });
});

describe("evaluate: branches in order, the strongest action wins, every fired rule recorded", () => {
  const hit = (...types: string[][]) => check("success", nameHits(...types));
  type Case = { name: string; branches: Branch[] | null; action?: Rule["action"]; facts?: Partial<TransferFacts>; checks?: [string, RuleCheck][]; expect: string; branch?: number | null };
  const cases: Case[] = [
    { name: "a rule without conditions fires with its own action", branches: null, action: "block", expect: "block", branch: null },
    { name: "if matches: its action", branches: [{ type: "if", action: "block", field: "amountUSD", operator: "gt", value: "1000" }], expect: "block", branch: 0 },
    { name: "if does not match, no else: the rule does not fire", branches: [{ type: "if", action: "block", field: "amountUSD", operator: "gt", value: "10000" }], expect: "approve" },
    {
      name: "elseIf after a failed if",
      branches: [
        { type: "if", action: "block", field: "amountUSD", operator: "gt", value: "10000" },
        { type: "elseIf", action: "require_review", field: "amountUSD", operator: "gte", value: "5000" },
      ],
      expect: "require_review",
      branch: 1,
    },
    {
      name: "the first matching branch decides, later ones are not read",
      branches: [
        { type: "if", action: "flag", field: "asset", operator: "eq", value: "eth" },
        { type: "elseIf", action: "block", field: "amountUSD", operator: "gt", value: "0" },
      ],
      expect: "flag",
      branch: 0,
    },
    {
      name: "else when nothing before matched",
      branches: [
        { type: "if", action: "block", field: "direction", operator: "eq", value: "incoming" },
        { type: "else", action: "flag" },
      ],
      expect: "flag",
      branch: 1,
    },
    { name: "decimals: 5000.00 eq 5000", branches: [{ type: "if", action: "flag", field: "amountUSD", operator: "eq", value: "5000" }], expect: "flag" },
    { name: "decimals: lte at the boundary", branches: [{ type: "if", action: "flag", field: "amountLocal", operator: "lte", value: "4600" }], expect: "flag" },
    { name: "decimals: lt at the boundary does not hold", branches: [{ type: "if", action: "flag", field: "amountLocal", operator: "lt", value: "4600" }], expect: "approve" },
    { name: "decimals, not floats: 0.3 eq 0.1+0.2 as written", branches: [{ type: "if", action: "flag", field: "amount", operator: "eq", value: "0.30" }], facts: { amount: "0.3" }, expect: "flag" },
    { name: "text any case: walletType eq UNHOSTED", branches: [{ type: "if", action: "flag", field: "walletType", operator: "eq", value: "UNHOSTED" }], facts: { walletType: "unhosted" }, expect: "flag" },
    { name: "text neq", branches: [{ type: "if", action: "flag", field: "network", operator: "neq", value: "ethereum" }], expect: "approve" },
    { name: "contains any case", branches: [{ type: "if", action: "flag", field: "beneficiaryName", operator: "contains", value: "bob" }], expect: "flag" },
    { name: "jurisdiction eq", branches: [{ type: "if", action: "flag", field: "jurisdiction", operator: "eq", value: "de" }], expect: "flag" },
    {
      name: "a transfer attribute without a value requires review",
      branches: [{ type: "if", action: "flag", field: "amountUSD", operator: "gt", value: "10" }],
      facts: { amountUSD: null },
      expect: "require_review",
      branch: 0,
    },
    // Part 3 screening_c: "content.data.total_hits counts hits".
    {
      name: "screening_c: total_hits gt 0 with a hit",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, hit(["sanction"])]],
      expect: "block",
    },
    {
      name: "screening_c: total_hits gt 0 without hits does not fire",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, hit()]],
      expect: "approve",
    },
    // Part 3: "a hit changes nothing by itself; rules decide".
    {
      name: "screening_c: hits[].doc.types[] contains sanction",
      branches: [{ type: "if", action: "block", query: "content.data.hits[].doc.types[]", integrationId: C, operator: "contains", value: "sanction" }],
      checks: [[C, hit(["pep"], ["sanction", "warning"])]],
      expect: "block",
    },
    {
      name: "screening_c: types of no hit is an empty list (a value), not a missing one",
      branches: [{ type: "if", action: "block", query: "content.data.hits[].doc.types[]", integrationId: C, operator: "eq", value: "sanction" }],
      checks: [[C, hit()]],
      expect: "approve",
    },
    {
      name: "screening_c: neq on a list holds when no element equals",
      branches: [{ type: "if", action: "flag", query: "content.data.hits[].doc.types[]", integrationId: C, operator: "neq", value: "pep" }],
      checks: [[C, hit(["sanction"])]],
      expect: "flag",
    },
    // "The branch matches when any name's value meets the comparison"
    {
      name: "any (default): one of two names meets",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("success", nameHits(), nameHits(["pep"]))]],
      expect: "block",
    },
    // "or with subjectMatch: all when every name's does"
    {
      name: "subjectMatch all: one of two names meets: no match",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", subjectMatch: "all" }],
      checks: [[C, check("success", nameHits(), nameHits(["pep"]))]],
      expect: "approve",
    },
    {
      name: "subjectMatch all: both names meet",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0", subjectMatch: "all" }],
      checks: [[C, check("success", nameHits(["pep"]), nameHits(["sanction"]))]],
      expect: "block",
    },
    // "The rule requires review when the query finds no value"
    {
      name: "query finds no value: require_review",
      branches: [{ type: "if", action: "flag", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("success", { status: "success", content: {} })]],
      expect: "require_review",
      branch: 0,
    },
    {
      name: "query finds no value for one of two names, the other does not match: require_review",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("success", nameHits(), { content: null })]],
      expect: "require_review",
    },
    {
      name: "query finds no value for one name, a block match on the other still blocks",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("success", nameHits(["sanction"]), { content: null })]],
      expect: "block",
    },
    {
      name: "query finds no value for one name, a flag match on the other: require_review (stronger)",
      branches: [{ type: "if", action: "flag", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("success", nameHits(["pep"]), { content: null })]],
      expect: "require_review",
    },
    {
      name: "a later else is not reached when a query finds no value",
      branches: [
        { type: "if", action: "flag", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" },
        { type: "else", action: "flag" },
      ],
      checks: [[C, check("success", {})]],
      expect: "require_review",
      branch: 0,
    },
    // "... when the check failed or was skipped"
    {
      name: "check failed: require_review instead of the branch's action",
      branches: [{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("error", nameHits(["sanction"]))]],
      expect: "require_review",
    },
    {
      name: "check skipped (breaker open): require_review",
      branches: [{ type: "if", action: "flag", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("skipped")]],
      expect: "require_review",
    },
    {
      name: "integration not run (no check): require_review",
      branches: [{ type: "if", action: "flag", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [],
      expect: "require_review",
    },
    // "... when a dotted field reads a check that screened more than one name"
    {
      name: "dotted field on a check of two names: require_review",
      branches: [{ type: "if", action: "flag", field: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }],
      checks: [[C, check("success", nameHits(), nameHits())]],
      expect: "require_review",
    },
    {
      name: "dotted field on a check of one name reads it",
      branches: [{ type: "if", action: "block", field: "content.data.total_hits", integrationId: C, operator: "gte", value: "2" }],
      checks: [[C, check("success", nameHits(["pep"], ["pep"]))]],
      expect: "block",
    },
    // Part 3 screening_d: "data.counterparty.riskscore reads each address's score".
    {
      name: "screening_d: riskscore gte 0.7 on one of two addresses",
      branches: [{ type: "if", action: "block", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.7" }],
      checks: [[D, check("success", risk(0.1), risk(0.75))]],
      expect: "block",
    },
    {
      name: "screening_d: every address below the score: does not fire",
      branches: [{ type: "if", action: "block", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.7" }],
      checks: [[D, check("success", risk(0.1), risk(0.69))]],
      expect: "approve",
    },
    {
      name: "screening_d: 'when the check fails, a rule reading this response requires review'",
      branches: [{ type: "if", action: "flag", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.9" }],
      checks: [[D, check("error", risk(0.1), null)]],
      expect: "require_review",
    },
    {
      name: "a check of another integration does not answer this one",
      branches: [{ type: "if", action: "flag", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.9" }],
      checks: [[C, check("success", risk(1))]],
      expect: "require_review",
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      const r = c.branches === null ? rule({ action: c.action ?? "flag" }) : withBranches(c.branches);
      const v = evaluate([r], facts(c.facts), checks(c.checks ?? []));
      expect(v.action).toBe(c.expect as never);
      if (c.expect === "approve") expect(v.matched).toEqual([]);
      else {
        expect(v.matched).toHaveLength(1);
        expect(v.matched[0]).toMatchObject({ ruleId: r.id, name: r.name, category: r.category, severity: r.severity, action: c.expect });
        if (c.branch !== undefined) expect(v.matched[0].branch).toBe(c.branch);
      }
    });

  test("the strongest of several fired rules wins and each is recorded in order", () => {
    const rs = [
      rule({ id: "r1", action: "flag", severity: "low" }),
      withBranches([{ type: "if", action: "block", field: "direction", operator: "eq", value: "outgoing" }], { id: "r2", category: "sanctions", severity: "high" }),
      withBranches([{ type: "if", action: "block", field: "direction", operator: "eq", value: "incoming" }], { id: "r3" }),
      rule({ id: "r4", action: "require_review" }),
    ];
    const v = evaluate(rs, FACTS, new Map());
    expect(v.action).toBe("block");
    expect(v.matched.map((m) => [m.ruleId, m.action, m.category, m.severity])).toEqual([
      ["r1", "flag", "aml", "low"],
      ["r2", "block", "sanctions", "high"],
      ["r4", "require_review", "aml", "medium"],
    ]);
  });

  test.each([
    [["flag"], "flag"],
    [["flag", "require_review"], "require_review"],
    [["require_review", "flag"], "require_review"],
    [["flag", "block", "require_review"], "block"],
    [[], "approve"],
  ] as const)("strength order %p → %s", (actions, expected) => {
    const v = evaluate(actions.map((a, i) => rule({ id: `r${i}`, action: a })), FACTS, new Map());
    expect(v.action).toBe(expected);
  });

  test("a reason never carries the transfer's names or a vendor's response", () => {
    const r = withBranches([{ type: "if", action: "flag", field: "originatorName", operator: "contains", value: "ali" }]);
    const v = evaluate([r, withBranches([{ type: "if", action: "flag", query: "content.data.hits[].doc.name", integrationId: C, operator: "contains", value: "hit" }])], FACTS, checks([[C, check("success", nameHits(["pep"]))]]));
    expect(v.matched).toHaveLength(2);
    for (const m of v.matched) {
      expect(m.reason).not.toContain("Alice");
      expect(m.reason).not.toContain("hit 0");
    }
  });
});

describe("could not check: a failed or skipped check is never a match (docs/screening.md)", () => {
  const sanctions = withBranches([{ type: "if", action: "block", query: "content.data.total_hits", integrationId: C, operator: "gt", value: "0" }], { id: "rul_s", category: "sanctions" });
  const address = withBranches([{ type: "if", action: "block", query: "data.counterparty.riskscore", integrationId: D, operator: "gte", value: "0.9" }], { id: "rul_a" });
  test("an error or a skip requires review, marked unscreened; the verdict is unscreened", () => {
    for (const status of ["error", "skipped"] as const) {
      const v = evaluate([sanctions], FACTS, checks([[C, check(status)]]));
      expect(v.action).toBe("require_review");
      expect(v.matched[0].unscreened).toBe(true);
      expect(verdictUnscreened(v)).toBe(true);
    }
  });
  test("an answered check is not unscreened; a real match beside a failed check is a hit", () => {
    const answered = evaluate([sanctions], FACTS, checks([[C, check("success", nameHits(["sanction"]))]]));
    expect(answered.matched[0].unscreened).toBeUndefined();
    expect(verdictUnscreened(answered)).toBe(false);
    const both = evaluate([sanctions, address], FACTS, checks([[C, check("error")], [D, check("success", risk(0.95))]]));
    expect(both.action).toBe("block");
    expect(verdictUnscreened(both)).toBe(false);
  });
});

describe("JSON response queries and comparisons", () => {
  const doc = { a: { b: 3, list: [1, 2], objs: [{ t: ["x", "y"] }, { t: ["z"] }, { u: 1 }], nul: null, flag: true, o: { p: 1 } } };
  const reads: [string, unknown][] = [
    ["a.b", { found: true, list: false, values: [3] }],
    ["a.list", { found: true, list: true, values: [1, 2] }],
    ["a.list[]", { found: true, list: true, values: [1, 2] }],
    ["a.list.1", { found: true, list: false, values: [2] }],
    ["a.objs[].t[]", { found: true, list: true, values: ["x", "y", "z"] }],
    ["a.objs[].u", { found: true, list: true, values: [1] }],
    ["a.missing", { found: false }],
    ["a.missing[].t", { found: false }],
    ["a.nul", { found: false }],
    ["a.o", { found: false }],
    ["a.flag", { found: true, list: false, values: [true] }],
    ["a.b.c", { found: false }],
    ["__proto__", { found: false }],
    ["a.constructor", { found: false }],
  ];
  for (const [path, expected] of reads) test(`read ${path}`, () => expect(readPath(doc, parsePath(path)!)).toEqual(expected as never));

  test.each(["", "a..b", "a[0]", "a.b[]x", "a b", "a.[]", "a.*"])("not a path: %p", (p) => expect(parsePath(p)).toBeNull());

  const comparisons: [string | number | boolean, Branch["operator"], string, boolean][] = [
    [1000, "eq", "1000.00", true],
    ["1e3", "eq", "1000", true],
    ["0x10", "gt", "1", false], // hex is text, not a number
    [0.7, "gte", "0.7", true],
    [0.69999, "gte", "0.7", false],
    ["abc", "gt", "1", false],
    ["Sanction", "eq", "sanction", true],
    ["Sanction", "neq", "SANCTION", false],
    [true, "eq", "TRUE", true],
    ["adverse-media", "contains", "MEDIA", true],
    [12, "contains", "2", true],
    [5, "lt", "5", false],
    [5, "lte", "5", true],
    [-1, "lt", "0", true],
  ];
  for (const [a, op, e, r] of comparisons) test(`${JSON.stringify(a)} ${op} ${JSON.stringify(e)} → ${r}`, () => expect(compareValue(a, op!, e)).toBe(r));
});

describe("rule body validation (Part 2 POST /api/v2/rules, Limits)", () => {
  const refs: IntegrationRef[] = [
    { id: C, name: "screening_c", enabled: true },
    { id: D, name: "screening_d", enabled: false },
    { id: "int_a0000000000000000000000000", name: "screening_a", enabled: true },
  ];
  const lookup = (id: string) => refs.find((r) => r.id === id);
  const ifBranch = (over: Record<string, unknown> = {}) => ({ type: "if", action: "flag", field: "amountUSD", operator: "gt", value: "1", ...over });

  test("defaults: stage both, action flag, severity medium, active, no jurisdictions, threshold, metadata or condition", () => {
    const v = validateCreateRule({ name: "n", category: "aml" }, lookup);
    expect(v).toEqual({
      ok: true,
      value: {
        name: "n", category: "aml", stage: "both", action: "flag", severity: "medium", isActive: true, description: null,
        jurisdictions: [], threshold: null, thresholdCurrency: null, metadata: null, condition: null,
      },
    });
  });

  test("normalizes: jurisdictions upper-case, UK is GB, repeats once; threshold a decimal string; currency upper-case; all", () => {
    const v = validateCreateRule(
      { name: "n", category: "sanctions", jurisdictions: ["de", "UK", "DE", "eu"], threshold: 1000.5, thresholdCurrency: "eur", metadata: { asset: "ALL", network: "ethereum", thresholdOperator: "lt" } },
      lookup,
    );
    expect(v.ok && v.value).toMatchObject({ jurisdictions: ["DE", "GB", "EU"], threshold: "1000.5", thresholdCurrency: "EUR", metadata: { asset: "all", network: "ethereum", thresholdOperator: "lt" } });
  });

  const long = (n: number) => "x".repeat(n);
  const within: [string, Record<string, unknown>][] = [
    ["name of 200", { name: long(200) }],
    ["description of 500", { description: long(500) }],
    ["50 jurisdictions", { jurisdictions: ["AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ", "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS", "BT", "BV", "BW", "BY", "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN", "CO", "CR"] }],
    ["20 branches", { condition: { rules: [ifBranch(), ...Array.from({ length: 19 }, () => ifBranch({ type: "elseIf" }))] } }],
    ["value of 100", { condition: { rules: [ifBranch({ field: "originatorName", operator: "contains", value: long(100) })] } }],
    ["threshold 0", { threshold: 0 }],
    ["GLOBAL alone", { jurisdictions: ["GLOBAL"] }],
    ["a providerId beside an integrationId is ignored", { condition: { rules: [ifBranch({ field: undefined, query: "content.data.total_hits", integrationId: C, providerId: "prv_x" })] } }],
    ["a numeric value", { condition: { rules: [ifBranch({ value: 10 })] } }],
  ];
  for (const [name, extra] of within)
    test(`accepted at the limit: ${name}`, () => {
      const v = validateCreateRule({ name: "n", category: "aml", ...extra }, lookup);
      expect(v.ok ? [] : v.issues).toEqual([]);
    });

  const refused: [string, Record<string, unknown>, string][] = [
    ["name missing", { name: undefined }, "name"],
    ["category missing", { category: undefined }, "category"],
    ["name of 201", { name: long(201) }, "name"],
    ["blank name", { name: "   " }, "name"],
    ["description of 501", { description: long(501) }, "description"],
    ["category kyc", { category: "kyc" }, "category"],
    ["stage", { stage: "anytime" }, "stage"],
    ["action", { action: "approve" }, "action"],
    ["severity", { severity: "critical" }, "severity"],
    ["isActive as text", { isActive: "true" }, "isActive"],
    ["51 jurisdictions", { jurisdictions: Array.from({ length: 51 }, () => "DE") }, "jurisdictions"],
    ["unknown jurisdiction", { jurisdictions: ["DE", "XY"] }, "jurisdictions.1"],
    ["GLOBAL with others", { jurisdictions: ["GLOBAL", "DE"] }, "jurisdictions"],
    ["negative threshold", { threshold: -1 }, "threshold"],
    ["threshold as text", { threshold: "100" }, "threshold"],
    ["crypto threshold currency", { thresholdCurrency: "BTC" }, "thresholdCurrency"],
    ["gold is not fiat", { thresholdCurrency: "XAU" }, "thresholdCurrency"],
    ["unknown metadata key", { metadata: { asset: "ETH", extra: 1 } }, "metadata.extra"],
    ["metadata operator gte", { metadata: { thresholdOperator: "gte" } }, "metadata.thresholdOperator"],
    ["unknown top-level field", { providerId: "x" }, "providerId"],
    ["21 branches", { condition: { rules: [ifBranch(), ...Array.from({ length: 20 }, () => ifBranch({ type: "elseIf" }))] } }, "condition.rules"],
    ["no branches", { condition: { rules: [] } }, "condition.rules"],
    ["first branch not if", { condition: { rules: [ifBranch({ type: "elseIf" })] } }, "condition.rules.0.type"],
    ["a second if", { condition: { rules: [ifBranch(), ifBranch()] } }, "condition.rules.1.type"],
    ["else not last", { condition: { rules: [ifBranch(), { type: "else", action: "flag" }, ifBranch({ type: "elseIf" })] } }, "condition.rules.1.type"],
    ["two elses", { condition: { rules: [ifBranch(), { type: "else", action: "flag" }, { type: "else", action: "flag" }] } }, "condition.rules.1.type"],
    ["else comparing", { condition: { rules: [ifBranch(), { type: "else", action: "flag", field: "amount" }] } }, "condition.rules.1.field"],
    ["branch without action", { condition: { rules: [ifBranch({ action: undefined })] } }, "condition.rules.0.action"],
    ["value of 101", { condition: { rules: [ifBranch({ field: "originatorName", operator: "contains", value: long(101) })] } }, "condition.rules.0.value"],
    ["unknown transfer field", { condition: { rules: [ifBranch({ field: "memo" })] } }, "condition.rules.0.field"],
    ["operator", { condition: { rules: [ifBranch({ operator: "like" })] } }, "condition.rules.0.operator"],
    ["gt on a text field", { condition: { rules: [ifBranch({ field: "asset", value: "1" })] } }, "condition.rules.0.operator"],
    ["gt with a non-number", { condition: { rules: [ifBranch({ value: "lots" })] } }, "condition.rules.0.value"],
    ["both field and query", { condition: { rules: [ifBranch({ query: "a.b", integrationId: C })] } }, "condition.rules.0"],
    ["neither field nor query", { condition: { rules: [ifBranch({ field: undefined })] } }, "condition.rules.0"],
    ["query without integrationId", { condition: { rules: [ifBranch({ field: undefined, query: "content.data.total_hits" })] } }, "condition.rules.0.integrationId"],
    ["query with providerId and no integrationId", { condition: { rules: [ifBranch({ field: undefined, query: "content.data.total_hits", providerId: C })] } }, "condition.rules.0.integrationId"],
    ["unknown integration", { condition: { rules: [ifBranch({ field: undefined, query: "a", integrationId: "int_nope" })] } }, "condition.rules.0.integrationId"],
    ["disabled integration", { condition: { rules: [ifBranch({ field: undefined, query: "a", integrationId: D })] } }, "condition.rules.0.integrationId"],
    ["screening_a screens nothing", { condition: { rules: [ifBranch({ field: undefined, query: "a", integrationId: "int_a0000000000000000000000000" })] } }, "condition.rules.0.integrationId"],
    ["malformed query", { condition: { rules: [ifBranch({ field: undefined, query: "a[0].b", integrationId: C })] } }, "condition.rules.0.query"],
    ["subjectMatch on a transfer field", { condition: { rules: [ifBranch({ subjectMatch: "all" })] } }, "condition.rules.0.subjectMatch"],
    ["subjectMatch some", { condition: { rules: [ifBranch({ field: undefined, query: "a", integrationId: C, subjectMatch: "some" })] } }, "condition.rules.0.subjectMatch"],
    ["unknown branch key", { condition: { rules: [ifBranch({ note: 1 })] } }, "condition.rules.0.note"],
    ["condition other key", { condition: { rules: [ifBranch()], mode: "x" } }, "condition.mode"],
  ];
  for (const [name, extra, path] of refused)
    test(`refused on ${path}: ${name}`, () => {
      const body: Record<string, unknown> = { name: "n", category: "aml", ...extra };
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      const v = validateCreateRule(JSON.parse(JSON.stringify(body)), lookup);
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.issues.map((i) => i.path)).toContain(path);
    });

  test("PATCH: at least one field; only create fields; null clears condition and metadata", () => {
    expect(validateUpdateRule({}, lookup).ok).toBe(false);
    expect(validateUpdateRule({ id: "x" }, lookup).ok).toBe(false);
    expect(validateUpdateRule({ condition: null, metadata: null }, lookup)).toEqual({ ok: true, value: { condition: null, metadata: null } });
    expect(validateUpdateRule({ name: null }, lookup).ok).toBe(false);
    expect(validateUpdateRule([], lookup).ok).toBe(false);
  });
});
