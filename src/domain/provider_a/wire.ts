// What Caravan sends to provider_a (Notabene Transact v2, built on TAP): the create body (TAIP-3 transfer with
// TAIP-5 agents in Notabene's role names), the append body (IVMS101 in the 2023 edition, as Notabene documents it),
// the relationship, reject and settle bodies. Pure: the reader of the answers is transfer.ts.
import type { Person } from "../ivms101/index.ts";
import { personsTo2023 } from "../ivms101/editions.ts";
import { accountOf, pkh } from "./transfer.ts";

export interface AgentOut {
  "@id": string;
  for: string;
  role: "VASP" | "SourceAddress" | "SettlementAddress";
}

export interface CreateBody {
  ref: string;
  originator: { "@id": string };
  beneficiary: { "@id": string };
  asset: string;
  amount: string;
  agents: AgentOut[];
  memoTag?: string;
}

export interface CreateInput {
  /** The service's transfer ID (Notabene: `^[a-zA-Z0-9_-]{1,64}$`). */
  ref: string;
  /** CAIP-19. */
  assetId: string;
  amount: string;
  ourDid: string;
  beneficiaryVaspDid: string;
  /** Bare addresses and the destination memo. */
  originatorAddress: string | null;
  beneficiaryAddress: string;
  memo: string | null;
}

/**
 * The parties' DIDs. TAP names each party by a DID; Caravan names the beneficiary by its settlement address
 * (`did:pkh:`), and the originator by its source address when it has one, else by a DID under the company's own
 * entity DID for this transfer (no personal data: the transfer ID).
 */
export function partyDids(i: Pick<CreateInput, "ref" | "assetId" | "ourDid" | "originatorAddress" | "beneficiaryAddress">): { originator: string; beneficiary: string } {
  return {
    originator: i.originatorAddress ? pkh(i.assetId, i.originatorAddress) : `${i.ourDid}:transfers:${i.ref}:originator`,
    beneficiary: pkh(i.assetId, i.beneficiaryAddress),
  };
}

/** `POST /entities/{did}/tx`: one VASP agent for each party, the source and settlement addresses as agents of their VASP. */
export function createBody(i: CreateInput): CreateBody {
  const parties = partyDids(i);
  const agents: AgentOut[] = [];
  if (i.originatorAddress) agents.push({ "@id": pkh(i.assetId, i.originatorAddress), for: i.ourDid, role: "SourceAddress" });
  agents.push({ "@id": i.ourDid, for: parties.originator, role: "VASP" });
  agents.push({ "@id": i.beneficiaryVaspDid, for: parties.beneficiary, role: "VASP" });
  agents.push({ "@id": pkh(i.assetId, i.beneficiaryAddress), for: i.beneficiaryVaspDid, role: "SettlementAddress" });
  return {
    ref: i.ref,
    originator: { "@id": parties.originator },
    beneficiary: { "@id": parties.beneficiary },
    asset: i.assetId,
    amount: i.amount,
    agents,
    ...(i.memo ? { memoTag: i.memo } : {}),
  };
}

export interface AppendSides {
  originator?: { persons: readonly Person[]; address: string | null; memo?: string | null };
  beneficiary?: { persons: readonly Person[]; address: string | null; memo?: string | null };
}

/**
 * `POST /entities/{did}/transfers/{id}/append`: the parties by DID and the IVMS101 of the sides given, in the 2023
 * edition (`originatorPerson[]`, `beneficiaryPerson[]`, `naturalPersonNameIdentifierType`), each with its account.
 */
export function appendBody(parties: { originator: string; beneficiary: string }, sides: AppendSides) {
  const ivms101: Record<string, unknown> = {};
  if (sides.originator) ivms101.originator = { originatorPerson: personsTo2023(sides.originator.persons), accountNumber: sides.originator.address ? [accountOf(sides.originator.address, sides.originator.memo ?? null)] : [] };
  if (sides.beneficiary) ivms101.beneficiary = { beneficiaryPerson: personsTo2023(sides.beneficiary.persons), accountNumber: sides.beneficiary.address ? [accountOf(sides.beneficiary.address, sides.beneficiary.memo ?? null)] : [] };
  return { originator: { "@id": parties.originator }, beneficiary: { "@id": parties.beneficiary }, ivms101 };
}

/** `POST /entities/{did}/relationships`: the address (as `did:pkh:`) belongs to the entity. */
export const relationshipBody = (assetId: string, address: string, ourDid: string) => ({ from: pkh(assetId, address), to: ourDid });

/** The two rejection reasons the service uses (Part 3); the officer's details are never sent. */
export type RejectReason = "SANCTION_SCREENING" | "COMPLIANCE_POLICIES";
export const rejectBody = (reason: RejectReason) => ({ reason });
export const settleBody = (settlementId: string) => ({ settlementId });
