// provider_a's transfer as the provider returns it (Notabene Transact v2, built on TAP: `{ "transfer": { ... } }` with
// TAIP-3 parties and TAIP-5 agents, read with decryption), and the pure rules of Part 3 "provider_a transfers": the
// status table, binding, the counterparty's IVMS101 checks (either edition) and the agent chain.
import { AgentSchema, AmountSchema, CAIP10Schema, CAIP19Schema, IRISchema } from "@taprsvp/types";
import type { Person } from "../ivms101/index.ts";
import { readSide } from "../ivms101/editions.ts";
import { validatePersons } from "../ivms101/index.ts";
import { samePerson } from "../provider_b/names.ts";
import { splitDestination } from "../networks/tags.ts";

/** Part 3: networks sent through provider_a. */
export const CARRIED_NETWORKS = [
  "bitcoin", "ethereum", "polygon", "solana", "tron", "bsc", "avalanche", "arbitrum", "optimism", "base",
  "litecoin", "ripple", "stellar", "algorand", "dogecoin", "cardano", "cosmos", "near", "polkadot",
] as const;

export const carries = (network: string): boolean => (CARRIED_NETWORKS as readonly string[]).includes(network);

/** The provider's asset-network code for discovery (`USDC-POLYGON`). */
export const assetNetwork = (asset: string, network: string): string => `${asset.toUpperCase()}-${network.toUpperCase()}`;

export type PartyRole = "ORIGINATOR" | "BENEFICIARY";

/**
 * A TAIP-5 agent as the provider lists it: `@id` (a DID; address agents are `did:pkh:` CAIP-10 accounts), `for`
 * (the party or agent it acts for), `role` in the provider's vocabulary (`VASP`, `Custodian`, `SettlementAddress`,
 * `SourceAddress`, `Gateway`, `Unknown`) and the agent's own `status` once it has one.
 */
export interface Agent {
  did: string;
  for: string | null;
  role: string;
  /** PROCESSING, AUTHORIZED, REJECTED, SETTLED, FAILED, REPLACED; null before the agent has one. */
  status: string | null;
  name: string | null;
}

export interface Ivms101Sides {
  originator?: { originatorPersons: Person[]; accountNumber: string[] };
  beneficiary?: { beneficiaryPersons: Person[]; accountNumber: string[] };
}

export interface ProviderTx {
  id: string;
  /** The originating VASP's reference: the service's transfer ID for its outgoing transfers. */
  ref: string | null;
  status: string;
  /** INCOMING or OUTGOING as the provider sees it from the reading entity; null when not said. */
  direction: string | null;
  /** CAIP-19 asset ID. */
  asset: string;
  amount: string;
  /** The TAP parties' DIDs (`originator.@id`, `beneficiary.@id`). */
  originatorDid: string;
  beneficiaryDid: string;
  /** The source address (the `SourceAddress` agent), bare, without its chain. */
  originatorAddress: string | null;
  /** The settlement address (the `SettlementAddress` agent, else `settlementAddress`), bare. */
  beneficiaryAddress: string | null;
  /** The CAIP-2 chain the settlement address names, when it names one. */
  beneficiaryChain: string | null;
  memo: string | null;
  agents: Agent[];
  flags: string[];
  settlement: { id: string } | null;
  /** The decrypted IVMS101 of both sides, in Caravan's (2020) spelling whichever edition was sent. */
  ivms101: Ivms101Sides;
  updatedAt: string | null;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why a transfer answer was not understood: the field path that failed (never a value: it may be personal data). */
export type TxRead = { ok: true; tx: ProviderTx } | { ok: false; path: string };

/** A CAIP-10 account (`namespace:reference:address`, optionally as `did:pkh:`) split into chain and address, or null. */
export function parseAccount(v: string): { chain: string; address: string } | null {
  const caip10 = v.startsWith("did:pkh:") ? v.slice("did:pkh:".length) : v;
  if (!CAIP10Schema.safeParse(caip10).success) return null;
  const i = caip10.lastIndexOf(":");
  return { chain: caip10.slice(0, i), address: caip10.slice(i + 1) };
}

/** The CAIP-2 chain of a CAIP-19 asset (`eip155:1/slip44:60` → `eip155:1`). */
export const chainOf = (assetId: string): string => assetId.split("/")[0] ?? assetId;

/** An address as a `did:pkh:` CAIP-10 DID on the asset's chain. */
export const pkh = (assetId: string, address: string): string => `did:pkh:${chainOf(assetId)}:${address}`;

// The shapes read with the TAP SDK's schemas where they fit: amounts, CAIP-19 assets and the TAIP-5 agent (its
// `@id` and `for` widened to any IRI: TAP's DID pattern refuses the colons of `did:pkh:` and of path DIDs, and
// Notabene marks `for` optional). Only fields the service uses are declared; anything else is ignored.
const AgentRead = AgentSchema.pick({ role: true }).extend({ "@id": IRISchema, for: IRISchema.optional(), status: AgentSchema.shape.role });
const PartyRead = AgentSchema.pick({}).extend({ "@id": IRISchema });

function firstIssue(r: { success: false; error: { issues: readonly { path: readonly PropertyKey[] }[] } }, prefix: string): string {
  const p = r.error.issues[0]?.path ?? [];
  return [prefix, ...p.map((x) => (typeof x === "number" ? `[${x}]` : String(x)))].join(".").replace(/\.\[/g, "[");
}

const optStr = (v: unknown, max = 1024): string | null | undefined => (v === undefined || v === null ? null : typeof v === "string" && v.length > 0 && v.length <= max ? v : undefined);

/** One side's IVMS101, from `ivms101.<side>` or from the party object itself; either edition. */
function sidePersons(t: Rec, which: "originator" | "beneficiary"): { ok: true; side: { persons: Person[]; accountNumber: string[] } | null } | { ok: false; path: string } {
  const keys = which === "originator" ? ["originatorPersons", "originatorPerson"] : ["beneficiaryPersons", "beneficiaryPerson"];
  const ivms = t.ivms101;
  const candidates: [unknown, string][] = [];
  if (isRec(ivms) && ivms[which] !== undefined && ivms[which] !== null) candidates.push([ivms[which], `transfer.ivms101.${which}`]);
  const party = t[which];
  if (isRec(party) && keys.some((k) => party[k] !== undefined)) candidates.push([party, `transfer.${which}`]);
  const first = candidates[0];
  if (!first) return { ok: true, side: null };
  // (readSide's path parameter is typed after its default, the side's name; any prefix is meant.)
  const r = readSide(first[0], which, first[1] as typeof which);
  if (!r.ok) return r;
  // Account numbers may be written as CAIP-10 accounts (`did:pkh:eip155:1:0x…`): the bare address is what is compared.
  const accountNumber = r.value.accountNumber.map((a) => parseAccount(a)?.address ?? a);
  return { ok: true, side: { persons: r.value.persons, accountNumber } };
}

/**
 * The provider's transfer answer (`{ "transfer": { ... } }`: a read, or the answer of a create), or the path of the
 * first field that is not of that shape (INVALID_RESPONSE). Fields the service does not use are never checked.
 */
export function readTransfer(answer: unknown): TxRead {
  if (!isRec(answer)) return { ok: false, path: "(body)" };
  const t = answer.transfer;
  if (!isRec(t)) return { ok: false, path: "transfer" };
  const id = optStr(t["@id"], 255) ?? optStr(t.id, 255);
  if (!id) return { ok: false, path: "transfer.@id" };
  const status = optStr(t.status, 64);
  if (!status) return { ok: false, path: "transfer.status" };
  if (!CAIP19Schema.safeParse(t.asset).success) return { ok: false, path: "transfer.asset" };
  if (!AmountSchema.safeParse(t.amount).success) return { ok: false, path: "transfer.amount" };
  const ref = optStr(t.ref, 255);
  if (ref === undefined) return { ok: false, path: "transfer.ref" };
  // Not used to decide anything (our side is found by our DID): taken when it is a string, never refused.
  const direction = typeof t.direction === "string" && t.direction.length <= 32 ? t.direction : null;
  const originator = PartyRead.safeParse(t.originator);
  if (!originator.success) return { ok: false, path: firstIssue(originator, "transfer.originator") };
  const beneficiary = PartyRead.safeParse(t.beneficiary);
  if (!beneficiary.success) return { ok: false, path: firstIssue(beneficiary, "transfer.beneficiary") };
  if (!Array.isArray(t.agents)) return { ok: false, path: "transfer.agents" };
  const agents: Agent[] = [];
  for (const [i, raw] of t.agents.entries()) {
    // A field sent as null is a field not sent.
    const a = AgentRead.safeParse(isRec(raw) ? Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null)) : raw);
    if (!a.success) return { ok: false, path: firstIssue(a, `transfer.agents[${i}]`) };
    const name = isRec(raw) && typeof raw.name === "string" && raw.name.length <= 255 ? raw.name : null;
    agents.push({ did: a.data["@id"], for: a.data.for ?? null, role: a.data.role ?? "Unknown", status: a.data.status ?? null, name });
  }
  // Addresses: the settlement address agent (else the transfer's `settlementAddress`), the source address agent.
  const addressOf = (role: string, fallback: unknown): { ok: true; v: { chain: string; address: string } | null } | { ok: false; path: string } => {
    const i = agents.findIndex((a) => a.role === role);
    if (i >= 0) {
      const acc = parseAccount(agents[i].did);
      return acc ? { ok: true, v: acc } : { ok: false, path: `transfer.agents[${i}].@id` };
    }
    if (typeof fallback === "string") {
      const acc = parseAccount(fallback);
      return acc ? { ok: true, v: acc } : { ok: false, path: "transfer.settlementAddress" };
    }
    return { ok: true, v: null };
  };
  const dest = addressOf("SettlementAddress", t.settlementAddress);
  if (!dest.ok) return dest;
  const source = addressOf("SourceAddress", undefined);
  if (!source.ok) return source;
  const settlementAgent = t.agents.find((a) => isRec(a) && a.role === "SettlementAddress") as Rec | undefined;
  const memo = optStr(t.memoTag ?? settlementAgent?.memoTag, 255);
  if (memo === undefined) return { ok: false, path: "transfer.memoTag" };
  const rawFlags = t.flags === undefined || t.flags === null ? [] : t.flags;
  if (!Array.isArray(rawFlags)) return { ok: false, path: "transfer.flags" };
  // A flag is any entry: a code, or an object naming one (its type, code or name); each one holds the transfer.
  const flags = rawFlags.map((f) => (typeof f === "string" ? f : isRec(f) ? String(f.type ?? f.code ?? f.name ?? f["@type"] ?? "FLAG") : "FLAG"));
  const settlementId = optStr(t.settlementId, 255);
  if (settlementId === undefined) return { ok: false, path: "transfer.settlementId" };
  const o = sidePersons(t, "originator");
  if (!o.ok) return o;
  const b = sidePersons(t, "beneficiary");
  if (!b.ok) return b;
  const updated = [t.updatedTime, t.updatedAt, t.settledTime, t.authorizedTime, t.createdTime].find((x) => typeof x === "string");
  return {
    ok: true,
    tx: {
      id,
      ref,
      status,
      direction,
      asset: t.asset as string,
      amount: t.amount as string,
      originatorDid: originator.data["@id"],
      beneficiaryDid: beneficiary.data["@id"],
      originatorAddress: source.v?.address ?? null,
      beneficiaryAddress: dest.v?.address ?? null,
      beneficiaryChain: dest.v?.chain ?? null,
      memo,
      agents,
      flags,
      settlement: settlementId ? { id: settlementId } : null,
      ivms101: {
        ...(o.side ? { originator: { originatorPersons: o.side.persons, accountNumber: o.side.accountNumber } } : {}),
        ...(b.side ? { beneficiary: { beneficiaryPersons: b.side.persons, accountNumber: b.side.accountNumber } } : {}),
      },
      updatedAt: (updated as string | undefined) ?? null,
    },
  };
}

/** The transfer of an answer, or null when it is not of that shape. */
export const readTx = (answer: unknown): ProviderTx | null => {
  const r = readTransfer(answer);
  return r.ok ? r.tx : null;
};

const partyDid = (tx: ProviderTx, role: PartyRole) => (role === "ORIGINATOR" ? tx.originatorDid : tx.beneficiaryDid);

/** The VASP acting for a party: the `VASP` agent whose `for` is that party's DID. */
export const agentOf = (tx: ProviderTx, role: PartyRole): Agent | undefined => tx.agents.find((a) => a.role === "VASP" && a.for === partyDid(tx, role));

/** An entity's side of the transfer, found by its DID among the `VASP` agents; null when it is not one of them. */
export function roleOf(tx: ProviderTx, did: string): PartyRole | null {
  const a = tx.agents.find((x) => x.role === "VASP" && x.did === did);
  if (!a) return null;
  if (a.for === tx.originatorDid) return "ORIGINATOR";
  if (a.for === tx.beneficiaryDid) return "BENEFICIARY";
  return null;
}

/**
 * Only direct transfers between two VASPs: one `VASP` agent for each party (two different VASPs), at most one
 * source and one settlement address acting for its side, and no custodian, gateway or other agent.
 */
export function agentChainOk(tx: ProviderTx): boolean {
  const o = tx.agents.filter((a) => a.role === "VASP" && a.for === tx.originatorDid);
  const b = tx.agents.filter((a) => a.role === "VASP" && a.for === tx.beneficiaryDid);
  if (o.length !== 1 || b.length !== 1 || o[0].did === b[0].did) return false;
  for (const a of tx.agents) {
    if (a === o[0] || a === b[0]) continue;
    if (a.role === "SourceAddress" && (a.for === null || a.for === o[0].did || a.for === tx.originatorDid)) continue;
    if (a.role === "SettlementAddress" && (a.for === null || a.for === b[0].did || a.for === tx.beneficiaryDid)) continue;
    return false;
  }
  return tx.agents.filter((a) => a.role === "SourceAddress").length <= 1 && tx.agents.filter((a) => a.role === "SettlementAddress").length <= 1;
}

/** Part 3 status table: FLAGGED and the revert family hold the transfer, as does any flag on it. */
export const HOLDING_STATUSES: readonly string[] = ["FLAGGED", "FLAGGED-SETTLEMENT", "FROZEN", "REVERTED", "REVERT-REQUESTED", "REVERT-AUTHORIZED", "REVERT-REJECTED", "REVERT-FLAGGED"];
const ACCEPTING = ["AUTHORIZED", "SETTLED", "CLEARED"];
/** An agent that has decided (the provider's agent statuses); PROCESSING, PENDING or none have not. */
const ACTED = ["AUTHORIZED", "REJECTED", "SETTLED"];

export const isFlagged = (tx: ProviderTx): boolean => HOLDING_STATUSES.includes(tx.status) || tx.flags.length > 0;
export const isSettled = (tx: ProviderTx): boolean => (tx.status === "SETTLED" || tx.status === "CLEARED") && tx.settlement !== null;

/** The counterparty's side as the status table reads it: its own agent status, or the transfer's once settled. */
export function counterpartyStatus(tx: ProviderTx, counterparty: PartyRole): string {
  if (tx.status === "SETTLED" || tx.status === "CLEARED") return tx.status;
  return agentOf(tx, counterparty)?.status ?? "PENDING";
}
export const counterpartyAccepted = (tx: ProviderTx, counterparty: PartyRole): boolean => ACCEPTING.includes(counterpartyStatus(tx, counterparty));
export const isRejected = (tx: ProviderTx, counterparty: PartyRole): boolean => tx.status === "REJECTED" || agentOf(tx, counterparty)?.status === "REJECTED";
/** Our own side's status after our authorization (read back): AUTHORIZED, or the transfer settled. */
export const ourSideAuthorized = (tx: ProviderTx, us: PartyRole): boolean => ACCEPTING.includes(counterpartyStatus(tx, us));


/** The provider's account form: `address:memo` when a memo exists. */
export const accountOf = (address: string, memo: string | null): string => (memo ? `${address}:${memo}` : address);

/** EVM addresses are one account in any letter case (EIP-55 is a checksum, not a different address). */
export const sameAddress = (a: string, b: string): boolean => (a.startsWith("0x") && b.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b);

export interface Binding {
  assetId: string;
  amount: string;
  originatorAddress: string | null;
  /** Canonical form (with `?memo=`). */
  beneficiaryAddress: string;
  originatorDid: string | null;
  beneficiaryDid: string | null;
}

/** TRANSFER_BINDING_MISMATCH: amount, asset, network, addresses, memo or VASPs differ from the transfer's. */
export function bindingMismatch(tx: ProviderTx, b: Binding): string | null {
  const dest = splitDestination(b.beneficiaryAddress);
  const sameAmount = (x: string, y: string) => x.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "") === y.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
  if (tx.asset !== b.assetId) return "asset";
  if (!sameAmount(tx.amount, b.amount)) return "amount";
  if (tx.beneficiaryAddress === null || !sameAddress(tx.beneficiaryAddress, dest.address) || (tx.memo ?? null) !== dest.memo) return "beneficiary address";
  // A settlement address on another chain than the asset's is another network.
  if (tx.beneficiaryChain !== null && tx.beneficiaryChain !== chainOf(b.assetId)) return "network";
  if (b.originatorAddress !== null && tx.originatorAddress !== null && !sameAddress(splitDestination(b.originatorAddress).address, tx.originatorAddress)) return "originator address";
  if (b.originatorDid && agentOf(tx, "ORIGINATOR")?.did !== b.originatorDid) return "originating VASP";
  if (b.beneficiaryDid && agentOf(tx, "BENEFICIARY")?.did !== b.beneficiaryDid) return "beneficiary VASP";
  return null;
}

/**
 * Part 3 "Data handling": before screening the counterparty's IVMS101, its persons form a valid group
 * (INVALID_PEER_IDENTITY) and its account numbers include the transfer's address (PII_ACCOUNT_MISMATCH).
 */
export function peerIdentityProblem(side: { persons: Person[]; accountNumber: string[] }, address: string | null): "INVALID_PEER_IDENTITY" | "PII_ACCOUNT_MISMATCH" | null {
  if (side.persons.length === 0 || validatePersons(side.persons).length > 0) return "INVALID_PEER_IDENTITY";
  // A legal person may only lead the group; the persons after the first are natural persons (its representatives).
  if (side.persons.slice(1).some((p) => !p.naturalPerson)) return "INVALID_PEER_IDENTITY";
  if (address !== null) {
    const { address: a, memo } = splitDestination(address);
    const wanted = [accountOf(a, memo), a].map((x) => x.toLowerCase());
    const listed = side.accountNumber.map((x) => x.toLowerCase());
    if (!listed.some((x) => x === wanted[0] || (memo === null && x === wanted[1]))) return "PII_ACCOUNT_MISMATCH";
  }
  return null;
}

/** Part 3 incoming step 3: each beneficiary person the originating VASP named matches the verified identity. */
export function beneficiaryNamesMatch(sent: readonly Person[], identity: readonly Person[]): boolean {
  return sent.every((p) => identity.some((k) => samePerson(p, k)));
}

/** A stable fingerprint of persons, to notice "new or changed counterparty information" (Part 3). */
export function personsFingerprint(persons: readonly Person[]): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canon) : isRec(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
  return JSON.stringify(canon(persons));
}

/**
 * Outgoing step 3: the beneficiary VASP's information is present once that VASP acted on the transfer (its agent
 * AUTHORIZED, REJECTED or SETTLED, not merely PROCESSING) or its beneficiary persons differ from the ones the service appended itself (`sent`).
 */
export function beneficiaryInformationPresent(tx: ProviderTx, persons: readonly Person[], sent: readonly Person[]): boolean {
  if (ACTED.includes(agentOf(tx, "BENEFICIARY")?.status ?? "PENDING")) return true;
  return personsFingerprint(persons) !== personsFingerprint(sent);
}
