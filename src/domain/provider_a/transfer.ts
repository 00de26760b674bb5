// provider_a's transfer as the provider returns it (read with decryption), and the pure rules of Part 3
// "provider_a transfers": the status table, binding, the counterparty's IVMS101 checks and the agent chain.
import type { Person } from "../ivms101/index.ts";
import { validatePersons } from "../ivms101/index.ts";
import { samePerson } from "../provider_b/names.ts";

/** Part 3: networks sent through provider_a. */
export const CARRIED_NETWORKS = [
  "bitcoin", "ethereum", "polygon", "solana", "tron", "bsc", "avalanche", "arbitrum", "optimism", "base",
  "litecoin", "ripple", "stellar", "algorand", "dogecoin", "cardano", "cosmos", "near", "polkadot",
] as const;

export const carries = (network: string): boolean => (CARRIED_NETWORKS as readonly string[]).includes(network);

/** The provider's asset-network code for discovery (`USDC-POLYGON`). */
export const assetNetwork = (asset: string, network: string): string => `${asset.toUpperCase()}-${network.toUpperCase()}`;

export type PartyRole = "ORIGINATOR" | "BENEFICIARY";

export interface Agent {
  did: string;
  name: string | null;
  /** ORIGINATOR, BENEFICIARY; anything else (CUSTODIAN, GATEWAY, INTERMEDIARY) is another agent in the chain. */
  role: string;
  /** PENDING, AUTHORIZED, REJECTED. */
  status: string;
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
  /** CAIP-19 asset ID. */
  asset: string;
  amount: string;
  originatorAddress: string | null;
  beneficiaryAddress: string;
  memo: string | null;
  agents: Agent[];
  flags: string[];
  settlement: { id: string } | null;
  ivms101: Ivms101Sides;
  updatedAt: string | null;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown, max = 1024): string | null => (typeof v === "string" && v.length > 0 && v.length <= max ? v : null);
const optStr = (v: unknown): string | null | undefined => (v === undefined || v === null ? null : str(v) ?? undefined);

function readSide(v: unknown, field: "originatorPersons" | "beneficiaryPersons"): { persons: Person[]; accountNumber: string[] } | null | undefined {
  if (v === undefined || v === null) return null;
  if (!isRec(v) || !Array.isArray(v[field])) return undefined;
  const accounts = v.accountNumber === undefined ? [] : v.accountNumber;
  if (!Array.isArray(accounts) || !accounts.every((a) => typeof a === "string")) return undefined;
  return { persons: v[field] as Person[], accountNumber: accounts as string[] };
}

/** The provider's transfer answer, or null when it is not of that shape (INVALID_RESPONSE). */
export function readTx(v: unknown): ProviderTx | null {
  if (!isRec(v)) return null;
  const id = str(v.id, 255);
  const status = str(v.status, 64);
  const asset = str(v.asset, 255);
  const amount = typeof v.amount === "string" && /^\d+(\.\d+)?$/.test(v.amount) ? v.amount : null;
  const beneficiaryAddress = str(v.beneficiaryAddress);
  const ref = optStr(v.ref);
  const originatorAddress = optStr(v.originatorAddress);
  const memo = optStr(v.memo);
  if (!id || !status || !asset || !amount || !beneficiaryAddress || ref === undefined || originatorAddress === undefined || memo === undefined) return null;
  if (!Array.isArray(v.agents)) return null;
  const agents: Agent[] = [];
  for (const a of v.agents) {
    if (!isRec(a) || !str(a.did, 255) || !str(a.role, 64)) return null;
    agents.push({ did: a.did as string, name: typeof a.name === "string" ? a.name : null, role: a.role as string, status: typeof a.status === "string" ? a.status : "PENDING" });
  }
  const flags = v.flags === undefined || v.flags === null ? [] : v.flags;
  if (!Array.isArray(flags) || !flags.every((f) => typeof f === "string")) return null;
  let settlement: { id: string } | null = null;
  if (v.settlement !== undefined && v.settlement !== null) {
    if (!isRec(v.settlement) || !str(v.settlement.id, 255)) return null;
    settlement = { id: v.settlement.id as string };
  }
  const ivms = v.ivms101 === undefined || v.ivms101 === null ? {} : v.ivms101;
  if (!isRec(ivms)) return null;
  const o = readSide(ivms.originator, "originatorPersons");
  const b = readSide(ivms.beneficiary, "beneficiaryPersons");
  if (o === undefined || b === undefined) return null;
  return {
    id,
    ref,
    status,
    asset,
    amount,
    originatorAddress,
    beneficiaryAddress,
    memo,
    agents,
    flags: flags as string[],
    settlement,
    ivms101: {
      ...(o ? { originator: { originatorPersons: o.persons, accountNumber: o.accountNumber } } : {}),
      ...(b ? { beneficiary: { beneficiaryPersons: b.persons, accountNumber: b.accountNumber } } : {}),
    },
    updatedAt: typeof v.updatedAt === "string" ? v.updatedAt : null,
  };
}

export const agentOf = (tx: ProviderTx, role: PartyRole): Agent | undefined => tx.agents.find((a) => a.role === role);

/** Only direct transfers between two VASPs: exactly one VASP per party and no custodian, gateway or other agent. */
export function agentChainOk(tx: ProviderTx): boolean {
  const o = tx.agents.filter((a) => a.role === "ORIGINATOR").length;
  const b = tx.agents.filter((a) => a.role === "BENEFICIARY").length;
  return o === 1 && b === 1 && tx.agents.length === 2;
}

/** Part 3 status table: FLAGGED and the revert family hold the transfer, as does any flag on it. */
export const HOLDING_STATUSES: readonly string[] = ["FLAGGED", "FLAGGED-SETTLEMENT", "FROZEN", "REVERTED", "REVERT-REQUESTED", "REVERT-AUTHORIZED", "REVERT-REJECTED", "REVERT-FLAGGED"];
const ACCEPTING = ["AUTHORIZED", "SETTLED", "CLEARED"];

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

/** The canonical registry form `addr?memo=x` / `addr?dt=1` split into address and memo. */
export function splitDestination(canonical: string): { address: string; memo: string | null } {
  const q = canonical.indexOf("?");
  if (q < 0) return { address: canonical, memo: null };
  const v = new URLSearchParams(canonical.slice(q + 1));
  return { address: canonical.slice(0, q), memo: v.get("dt") ?? v.get("memo") ?? v.get("tag") };
}

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
  if (!sameAddress(tx.beneficiaryAddress, dest.address) || (tx.memo ?? null) !== dest.memo) return "beneficiary address";
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
 * Outgoing step 3: the beneficiary VASP's information is present once that VASP acted on the transfer (its agent is
 * no longer PENDING) or its beneficiary persons differ from the ones the service appended itself (`sent`).
 */
export function beneficiaryInformationPresent(tx: ProviderTx, persons: readonly Person[], sent: readonly Person[]): boolean {
  if ((agentOf(tx, "BENEFICIARY")?.status ?? "PENDING") !== "PENDING") return true;
  return personsFingerprint(persons) !== personsFingerprint(sent);
}
