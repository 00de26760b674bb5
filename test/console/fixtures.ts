// Answers shaped as Part 1 and Part 2 give them, for the console's component tests.
export const now = () => new Date().toISOString();

export function transferItem(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    direction: "outgoing",
    state: "held",
    status: "pending",
    asset: "ETH",
    amount: "1.5",
    network: "ethereum",
    blockchainType: "evm",
    originator: { name: "Caravan", vaspId: "CARAVAN-1", vaspName: "Caravan", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" },
    beneficiary: { name: "Bene Exchange", vaspId: "VASP-BENE", vaspName: "Bene Exchange", address: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb" },
    travelRule: { protocol: "pending", matchedAt: null, status: "pending" },
    screening: { sanctions: { status: "pending", provider: null } },
    compliance: { checks: [{ name: "screening_c", status: "passed", response: null }] },
    provider: null,
    externalId: "idem-1",
    createdAt: now(),
    ...extra,
  };
}

export function transferDetail(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    direction: "outgoing",
    state: "held",
    asset: "ETH",
    amount: "1.5",
    network: "ethereum",
    originator: { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", vaspId: "CARAVAN-1", vaspName: "Caravan" },
    beneficiary: { address: "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", vaspId: "VASP-BENE", vaspName: "Bene Exchange" },
    status: { ours: "pending", theirs: null },
    rejection: null,
    compliance: { status: "pending", total: 1, checks: [{ id: "chk_1", integration: "screening_c", displayName: "screening_c", type: "sanctions", stage: "precheck", status: "success", response: null, durationMs: 12 }] },
    cascade: { provider: null, externalId: null, attempts: [] },
    txHash: null,
    messages: [{ type: "screening", direction: "internal", timestamp: now() }],
    createdAt: now(),
    ...extra,
  };
}

export function caseItem(id: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    caseNumber: `CASE-TEST-2026-${String(n).padStart(6, "0")}`,
    title: "Transfer held at precheck by rule Watch-list name hit",
    description: null,
    type: "sanctions_hit",
    category: "sanctions",
    priority: "high",
    status: "open",
    resolution: null,
    resolutionNote: null,
    assigneeId: null,
    assignee: null,
    ruleId: "rul_1",
    transferIds: [],
    source: "screening",
    noteCount: 0,
    createdById: null,
    createdAt: now(),
    updatedAt: now(),
    ...extra,
  };
}

export function caseDetail(id: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    ...caseItem(id, n),
    resolvedAt: null,
    resolvedById: null,
    createdBy: null,
    resolvedBy: null,
    rule: { id: "rul_1", name: "Watch-list name hit", category: "sanctions", action: "require_review", severity: "high" },
    transfers: [],
    notes: [],
    history: [{ id: "h1", action: "created", field: "status", oldValue: null, newValue: "open", userId: null, user: null, createdAt: now() }],
    historyCount: 1,
    ...extra,
  };
}

/** A screening_c name screening as the vendor answers it: no match, or one hit on a list. */
export function nameScreening(party: string, term: string, hit?: { id: string; name: string; list: string; score: number }) {
  return {
    party,
    kind: "name",
    status: "success",
    response: {
      code: 200,
      status: "success",
      content: {
        data: {
          search_term: term,
          submitted_term: term,
          match_status: hit ? "potential_match" : "no_match",
          total_hits: hit ? 1 : 0,
          hits: hit ? [{ doc: { id: hit.id, entity_type: "person", name: hit.name, types: ["sanction"], sources: [hit.list] }, match_types: ["name_exact"], score: hit.score }] : [],
        },
      },
    },
  };
}

/** A screening_d address screening: score and category. */
export function addressScreening(party: string, address: string, riskscore: number, category: string | null) {
  return { party, kind: "address", status: "success", response: { data: { type: "address", counterparty: { address, riskscore, name: category ? "Sandbox Tumbler" : null, category } } } };
}

export const SANCTIONED = { id: "SBX1VK0001", name: "Viktor Krasnov", list: "sandbox-sanctions-list", score: 1 };
