// The sandbox CodeVASP network's own reading and writing of the wire, from CodeVASP's published developer guide and API
// reference (Dev 03 headers, Dev 04 IVMS101, Request and Response API pages); shares nothing with Caravan's adapter.
import type { CountryCode, LegalPerson, NaturalPerson, Person } from "../../domain/ivms101/types.ts";

export const HEADER = {
  datetime: "X-Code-Req-Datetime",
  nonce: "X-Code-Req-Nonce",
  pubKey: "X-Code-Req-PubKey",
  signature: "X-Code-Req-Signature",
  origin: "X-Request-Origin",
  remotePubKey: "X-Code-Req-Remote-PubKey",
} as const;

/** Dev 03: `X-Request-Origin` is `<alliance>:<VASP id>`, e.g. `code:coinone` or `verifyvasp:15952089931162060684`. */
export function readOrigin(value: string | null): { alliance: string; entityId: string } | null {
  const i = value?.indexOf(":") ?? -1;
  if (!value || i <= 0 || i === value.length - 1) return null;
  const alliance = value.slice(0, i);
  const entityId = value.slice(i + 1);
  return /^[a-z0-9]+$/.test(alliance) && /^[A-Za-z0-9_-]+$/.test(entityId) ? { alliance, entityId } : null;
}

export const originOf = (entityId: string): string => `code:${entityId}`;

/** Dev 03: the request time, UTC, ISO 8601 (`2022-06-31T23:59:59Z`); written to the second. */
export const datetimeOf = (ms: number): string => new Date(ms).toISOString().slice(0, 19) + "Z";

/**
 * Epoch ms of a request time, or null. The guide's example is `…T23:59:59Z`; its Go sample writes `…T15:04:05+0000`
 * and others drop the seconds or add fractions: any ISO 8601 date-time with an explicit zone is read.
 */
export function readDatetime(value: string | null): number | null {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.exec(value ?? "");
  if (!m) return null;
  const zone = m[3] === "Z" ? "Z" : m[3]!.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
  const ms = Date.parse(`${m[1]}${m[2] ?? ":00"}${zone}`);
  return Number.isNaN(ms) ? null : ms;
}

/** Dev 03: `X-Code-Req-Nonce` is an unsigned integer; it is signed as four bytes, so it must fit in 32 bits. */
export function readNonce(value: string | null): number | null {
  if (!value || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n <= 0xffff_ffff ? n : null;
}

/** Response API paths as CodeVASP calls them on a member, under the member's registered base. */
export type CallbackEndpoint =
  | "v1/vasp/health"
  | "v1/beneficiary/VerifyAddress"
  | "v1/beneficiary/transfer"
  | "v1/beneficiary/transfer/txid"
  | "v1/vasp/transfer/status"
  | "v1/verification/tx";

/** Caravan registers `<host>/api/system/trp/provider_b/<environment>/connections/<providerId>` as its base. */
export const callbackPath = (environment: string, providerId: string, endpoint: CallbackEndpoint): string =>
  `/api/system/trp/provider_b/${environment}/connections/${encodeURIComponent(providerId)}/${endpoint}`;

/** Dev 05: a memo or tag travels inside the account number as `address:memo`. */
export const accountOf = (address: string, tag?: string | null): string => (tag ? `${address}:${tag}` : address);

/** `reasonType`s a member gives for `denied` or `invalid` (Response API, Asset Transfer Authorization). */
export type DenyReason = "NOT_SUPPORTED_SYMBOL" | "NOT_FOUND_ADDRESS" | "NOT_KYC_USER" | "SANCTION_LIST" | "INPUT_NAME_MISMATCHED" | "LACK_OF_INFORMATION" | "UNKNOWN";

// ---------------------------------------------------------------------------------------------
// Bodies (Request and Response API pages). Every value is a string ("all values are UTF-8 strings", Dev 04).

export interface VaspEntry {
  vaspEntityId: string;
  vaspName: string;
  vaspLegalName: string;
  countryOfRegistration: string;
  health: "up" | "down";
  allianceName: string;
  pubkeys: { pubkey: string; expiresAt: string }[];
}
export interface VerifyAddressAnswer {
  result: "valid" | "invalid";
  reasonType?: string;
  reasonMsg?: string;
  beneficiaryVaspEntityId?: string;
}
export interface TransferRequest {
  transferId: string;
  currency: string;
  amount: string;
  tradePrice: string;
  tradeCurrency: string;
  isExceedingThreshold: "true" | "false";
  payload: string;
  address?: string;
  tag?: string;
  network?: string;
}
export interface TransferAnswer {
  result: "verified" | "denied";
  reasonType?: string;
  reasonMsg?: string;
  transferId?: string;
  beneficiaryVasp?: unknown;
  payload?: string;
}
export interface ResultAnswer {
  transferId?: string;
  result: "normal" | "error";
  reasonType?: string;
}
export interface TransferStatusAnswer {
  transferId: string;
  status: string;
  txid?: string;
}
export interface VerificationTxAnswer {
  result: "valid" | "invalid";
}
export interface TransferDataAnswer {
  result: "normal" | "error";
  reasonType?: string;
  transferId?: string;
  currency?: string;
  amount?: string;
  tradePrice?: string;
  tradeCurrency?: string;
  isExceedingThreshold?: string;
  payload?: string;
}
export interface DiscoveryResultAnswer {
  result: "valid" | "invalid";
  reasonType: string;
  reasonMsg: string;
  beneficiaryVaspEntityId: string;
  requestId: string;
  analysisResult?: { entityId: string; result: string }[];
}

/** `isExceedingThreshold` is documented as the string `"true"`/`"false"`; one published sample sends a boolean. */
export function readFlag(v: unknown): boolean | null {
  if (v === "true" || v === true) return true;
  if (v === "false" || v === false) return false;
  return null;
}

// ---------------------------------------------------------------------------------------------
// IVMS101 as CodeVASP writes it (Dev 04): `Originator`, `Beneficiary`, `OriginatingVASP`, `BeneficiaryVASP` in
// PascalCase, camelCase inside, the 2020 element names (`originatorPersons`, `nameIdentifierType`), and a natural
// person's `secondaryIdentifier` written even when empty (the published examples send `""`).

type NameId = { primaryIdentifier: string; secondaryIdentifier: string; nameIdentifierType: string };
export interface WireNaturalPerson extends Omit<NaturalPerson, "name"> {
  name: { nameIdentifier: NameId[]; localNameIdentifier?: NameId[]; phoneticNameIdentifier?: NameId[] };
}
export type WirePerson = { naturalPerson: WireNaturalPerson; legalPerson?: never } | { legalPerson: LegalPerson; naturalPerson?: never };
export interface VaspPerson {
  legalPerson: LegalPerson;
}
export interface Ivms101Message {
  Originator?: { originatorPersons: WirePerson[]; accountNumber: string[] };
  Beneficiary?: { beneficiaryPersons: WirePerson[]; accountNumber: string[] };
  OriginatingVASP?: { originatingVASP: VaspPerson };
  BeneficiaryVASP?: { beneficiaryVASP: VaspPerson };
}
/** The plaintext of a `payload` (Dev 02 §7): `{"ivms101": {...}}`. */
export interface Ivms101Payload {
  ivms101: Ivms101Message;
}

const names = (list: readonly { primaryIdentifier: string; secondaryIdentifier?: string; nameIdentifierType: string }[] | undefined): NameId[] | undefined =>
  list?.map((n) => ({ ...n, secondaryIdentifier: n.secondaryIdentifier ?? "" }));

/** A member's customer records (IVMS101 persons) as it writes them into a message. */
export function writePersons(persons: readonly Person[]): WirePerson[] {
  return persons.map((p): WirePerson => {
    if (p.legalPerson) return JSON.parse(JSON.stringify({ legalPerson: p.legalPerson }));
    const { name, ...rest } = p.naturalPerson;
    const written = { ...rest, name: { nameIdentifier: names(name.nameIdentifier)!, localNameIdentifier: names(name.localNameIdentifier), phoneticNameIdentifier: names(name.phoneticNameIdentifier) } };
    return JSON.parse(JSON.stringify({ naturalPerson: written }));
  });
}

/** Dev 04: a VASP is a legal person with its registered name (`LEGL`) and country of registration. */
export function vaspPerson(v: { legalName: string; country: CountryCode }): VaspPerson {
  return { legalPerson: { name: { nameIdentifier: [{ legalPersonName: v.legalName, legalPersonNameIdentifierType: "LEGL" }] }, countryOfRegistration: v.country } };
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const isPersons = (v: unknown): v is WirePerson[] => Array.isArray(v) && v.every((p) => isRec(p) && isRec(p.naturalPerson) !== isRec(p.legalPerson));
const isAccounts = (v: unknown): v is string[] => Array.isArray(v) && v.every((a) => typeof a === "string");

/**
 * A decrypted payload as a member reads it: the entities present, each in the documented form; anything else in the
 * message is ignored. Null when an entity it needs cannot be read (the member then answers as for a payload it cannot
 * use). A `Beneficiary` without persons is allowed: the address check sends only its account number.
 */
export function readMessage(value: unknown): Ivms101Message | null {
  if (!isRec(value) || !isRec(value.ivms101)) return null;
  const m = value.ivms101;
  const out: Ivms101Message = {};
  if (m.Originator !== undefined) {
    const o = m.Originator;
    if (!isRec(o) || !isPersons(o.originatorPersons) || !isAccounts(o.accountNumber)) return null;
    out.Originator = { originatorPersons: o.originatorPersons, accountNumber: o.accountNumber };
  }
  if (m.Beneficiary !== undefined) {
    const b = m.Beneficiary;
    const persons = isRec(b) ? (b.beneficiaryPersons ?? []) : null;
    if (!isRec(b) || !isPersons(persons) || !isAccounts(b.accountNumber)) return null;
    out.Beneficiary = { beneficiaryPersons: persons, accountNumber: b.accountNumber };
  }
  for (const [entity, inner] of [["OriginatingVASP", "originatingVASP"], ["BeneficiaryVASP", "beneficiaryVASP"]] as const) {
    const e = m[entity];
    if (e === undefined) continue;
    if (!isRec(e) || !isRec(e[inner]) || !isRec((e[inner] as Rec).legalPerson)) return null;
    (out as Rec)[entity] = { [inner]: e[inner] };
  }
  return out;
}

/** Dev 04, Asset Transfer Authorization: the originator's first message carries Originator, Beneficiary and OriginatingVASP. */
export function transferMessage(t: {
  originatorPersons: readonly Person[];
  originatorAccount: string;
  beneficiaryPersons: readonly Person[];
  beneficiaryAccount: string;
  originatingVasp: { legalName: string; country: CountryCode };
}): Ivms101Payload {
  return {
    ivms101: {
      Originator: { originatorPersons: writePersons(t.originatorPersons), accountNumber: [t.originatorAccount] },
      Beneficiary: { beneficiaryPersons: writePersons(t.beneficiaryPersons), accountNumber: [t.beneficiaryAccount] },
      OriginatingVASP: { originatingVASP: vaspPerson(t.originatingVasp) },
    },
  };
}

/** Dev 02 §7 / Dev 05: the address check's payload names the beneficiary's account, and persons only to have names matched. */
export function addressCheckMessage(account: string, persons: readonly Person[] = []): Ivms101Payload {
  return { ivms101: { Beneficiary: { beneficiaryPersons: writePersons(persons), accountNumber: [account] } } };
}

/**
 * Dev 04, the beneficiary's answer: Originator and OriginatingVASP copied from the request, Beneficiary completed with
 * the member's own customer record, BeneficiaryVASP added.
 */
export function answerMessage(request: Ivms101Message, beneficiaryVasp: { legalName: string; country: CountryCode }, customer: readonly Person[]): Ivms101Payload {
  const accounts = request.Beneficiary?.accountNumber ?? [];
  return {
    ivms101: {
      ...(request.Originator ? { Originator: request.Originator } : {}),
      Beneficiary: { beneficiaryPersons: writePersons(customer), accountNumber: accounts },
      ...(request.OriginatingVASP ? { OriginatingVASP: request.OriginatingVASP } : {}),
      BeneficiaryVASP: { beneficiaryVASP: vaspPerson(beneficiaryVasp) },
    },
  };
}

/**
 * The same message as a member on the IVMS101 2023 edition writes it: `originatorPerson[]` / `beneficiaryPerson[]`,
 * a natural person's name types as `naturalPersonNameIdentifierType`, and `payloadMetadata.payloadVersion` `101.2023`
 * (CodeVASP's PascalCase entities kept). Lets the sandbox play a counterparty that Caravan must read in either edition.
 */
export function in2023Edition(payload: Ivms101Payload): Record<string, unknown> {
  const rename = (ids: unknown) =>
    Array.isArray(ids) ? ids.map(({ nameIdentifierType, ...rest }: Rec) => ({ ...rest, naturalPersonNameIdentifierType: nameIdentifierType })) : undefined;
  const person = (p: WirePerson): Rec => {
    if (!p.naturalPerson) return { legalPerson: p.legalPerson };
    const { name, ...rest } = p.naturalPerson;
    const written = { nameIdentifier: rename(name.nameIdentifier), localNameIdentifier: rename(name.localNameIdentifier), phoneticNameIdentifier: rename(name.phoneticNameIdentifier) };
    return JSON.parse(JSON.stringify({ naturalPerson: { ...rest, name: written } }));
  };
  const m = payload.ivms101;
  return {
    ivms101: {
      ...(m.Originator ? { Originator: { originatorPerson: m.Originator.originatorPersons.map(person), accountNumber: m.Originator.accountNumber } } : {}),
      ...(m.Beneficiary ? { Beneficiary: { beneficiaryPerson: m.Beneficiary.beneficiaryPersons.map(person), accountNumber: m.Beneficiary.accountNumber } } : {}),
      ...(m.OriginatingVASP ? { OriginatingVASP: m.OriginatingVASP } : {}),
      ...(m.BeneficiaryVASP ? { BeneficiaryVASP: m.BeneficiaryVASP } : {}),
      payloadMetadata: { payloadVersion: "101.2023" },
    },
  };
}
