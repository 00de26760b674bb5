// provider_b (CodeVASP) wire format: headers, Request- and Response-API bodies, and the IVMS101 payload dialect; pure.
import type { CountryCode, LegalPerson, NaturalPerson, NaturalPersonNameId, LocalNaturalPersonNameId, Person } from "../../../domain/ivms101/types.ts";
import { readSide } from "../../../domain/ivms101/editions.ts";

// Sources: PROVIDERS.md "provider_b — CodeVASP", Part 3 "provider_b transfers" / "provider_b callbacks", and
// CodeVASP's public API reference (codevasp-lab/codevasp-skills, references/api/*), which fills in the
// answer shapes PROVIDERS.md only names (vasps list, v2 VerifyAddress, status search, verification/tx).

// ---------------------------------------------------------------------------------------------
// Headers

export const HEADER = {
  datetime: "X-Code-Req-Datetime",
  nonce: "X-Code-Req-Nonce",
  pubKey: "X-Code-Req-PubKey",
  signature: "X-Code-Req-Signature",
  origin: "X-Request-Origin",
  remotePubKey: "X-Code-Req-Remote-PubKey",
} as const;

/** The alliance prefix of `X-Request-Origin` for CodeVASP members (`code:<entityId>`). */
export const ALLIANCE = "code";

/** Part 3, Settings of provider_b: `vaspEntityId` is letters, digits, `_`, `-`. */
export const ENTITY_ID = /^[A-Za-z0-9_-]{1,100}$/;

export const formatOrigin = (entityId: string): string => `${ALLIANCE}:${entityId}`;

/** `X-Request-Origin` → its alliance and entity ID (`code:coinone`, `verifyvasp:1595…`), or null when malformed. */
export function parseOrigin(value: string | null | undefined): { alliance: string; entityId: string } | null {
  const m = /^([a-z0-9]{1,32}):([A-Za-z0-9_-]{1,100})$/.exec(value ?? "");
  return m ? { alliance: m[1]!, entityId: m[2]! } : null;
}

/** `X-Code-Req-Datetime`: ISO-8601 UTC to the second (`2026-01-02T03:04:05Z`), the form of CodeVASP's examples. */
export function formatDatetime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

// CodeVASP's own samples write `2024-03-04T15:10Z` (no seconds) and Go's `…T15:04:05+0000`: accept both forms.
const DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Epoch ms of an `X-Code-Req-Datetime`, or null unless it is ISO-8601 with an explicit zone. */
export function parseDatetime(value: string | null | undefined): number | null {
  const m = DATETIME.exec(value ?? "");
  if (!m) return null;
  const zone = m[5] === "Z" ? "Z" : `${m[5]!.slice(0, 3)}:${m[5]!.slice(-2)}`;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3] ?? "00"}.${(m[4] ?? "0").padEnd(3, "0").slice(0, 3)}${zone}`);
  return Number.isNaN(ms) ? null : ms;
}

/** `X-Code-Req-Nonce` is an unsigned 32-bit integer in decimal (Dev 03 - Header Parameter). */
export function parseNonce(value: string | null | undefined): number | null {
  if (!/^\d{1,10}$/.test(value ?? "")) return null;
  const n = Number(value);
  return n <= 0xffff_ffff ? n : null;
}

export interface SignedHeaders {
  entityId: string;
  publicKeyBase64: string;
  datetime: string;
  nonce: number;
  signature: string;
  /** The receiver's key the payload was sealed for; sent with encrypted bodies so a stale key is refused (422 INVALID_RECEIVER_PUBLIC_KEY). */
  remotePubKey?: string;
  /** Set when the request has a JSON body. */
  json?: boolean;
}

export function buildRequestHeaders(h: SignedHeaders): Record<string, string> {
  const out: Record<string, string> = {
    accept: "application/json",
    [HEADER.datetime]: h.datetime,
    [HEADER.nonce]: String(h.nonce),
    [HEADER.pubKey]: h.publicKeyBase64,
    [HEADER.signature]: h.signature,
    [HEADER.origin]: formatOrigin(h.entityId),
  };
  if (h.remotePubKey) out[HEADER.remotePubKey] = h.remotePubKey;
  if (h.json) out["content-type"] = "application/json";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Codes

/** Part 3, provider_b transfers: the `reasonType`s of a `denied` authorization (and `invalid` address check). */
export const TRANSFER_REASONS = [
  "NOT_SUPPORTED_SYMBOL",
  "NOT_FOUND_ADDRESS",
  "NOT_KYC_USER",
  "SANCTION_LIST",
  "INPUT_NAME_MISMATCHED",
  "LACK_OF_INFORMATION",
  "UNKNOWN",
] as const;
export type TransferReason = (typeof TRANSFER_REASONS)[number];

/** v2 discovery `reasonType`s (Search VASP by Wallet Result). */
export const DISCOVERY_REASON = {
  notFound: "NOT_FOUND_ADDRESS",
  unknownRequest: "LACK_OF_INFORMATION",
  pending: "PROCESSING",
  ambiguous: "ALLIANCE_DATA_NON_UNIQUE_RESULT",
} as const;

/** An `errorType` is passed on only when it looks like a code, never free text (Part 3, What the service does, 4). */
export const ERROR_TYPE = /^[A-Z][A-Z0-9_]{0,63}$/;

// ---------------------------------------------------------------------------------------------
// Request API (Caravan → CodeVASP)

export interface VaspPubkey {
  pubkey: string;
  expiresAt?: string;
}

/** One entry of `GET /v1/code/vasps` (VASP List Search). */
export interface VaspEntry {
  vaspEntityId: string;
  vaspName: string;
  vaspLegalName?: string;
  countryOfRegistration?: string;
  /** `up` / `down`: CodeVASP's health check of the VASP's API. */
  health: string;
  allianceName?: string;
  pubkeys: VaspPubkey[];
}
export interface VaspsAnswer {
  vasps: VaspEntry[];
}
/** `GET /v1/code/Vasp/{id}/pubkey`. */
export interface PubkeyAnswer {
  pubkeys: VaspPubkey[];
}

/** `POST /v1/code/VerifyAddress/{id}` and callback `v1/beneficiary/VerifyAddress`: payload holds `Beneficiary.accountNumber`. */
export interface VerifyAddressRequest {
  currency: string;
  payload: string;
  address?: string;
  tag?: string;
  network?: string;
}
export interface VerifyAddressAnswer {
  result: "valid" | "invalid";
  reasonType?: string;
  reasonMsg?: string;
  beneficiaryVaspEntityId?: string;
}

/** `POST /v1/code/transfer/{id}` and callback `v1/beneficiary/transfer` (Asset Transfer Authorization). */
export interface TransferRequest {
  /** UUIDv4 chosen by the originator. */
  transferId: string;
  currency: string;
  amount: string;
  historicalCost?: string;
  /** Fiat value of the amount: Part 3 sends the USD value with `tradeCurrency` `USD`. */
  tradePrice: string;
  tradeCurrency: string;
  /** A string in CodeVASP's JSON ("all values are UTF-8 strings", Dev 04), though one sample shows a boolean. */
  isExceedingThreshold: "true" | "false";
  originatingVasp?: unknown;
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
  /** Documented as "Beneficiary VASP information"; every CodeVASP example sends `{}`. */
  beneficiaryVasp?: unknown;
  /** Sealed for the originator: Originator, OriginatingVASP, Beneficiary copied, BeneficiaryVASP added. */
  payload?: string;
}

/** `POST /v1/code/transfer/{id}/txid` and callback `v1/beneficiary/transfer/txid` (plain JSON). */
export interface TxidRequest {
  transferId: string;
  txid: string;
  vout?: string;
}
/** `PUT /v1/code/transfer/{id}/status` and callback `PUT v1/vasp/transfer/status` (Finish Transfer). */
export interface StatusUpdateRequest {
  transferId: string;
  status: "canceled";
  reasonType?: string;
}
/** Answer of a txid report or a cancellation. */
export interface ResultAnswer {
  transferId?: string;
  result: "normal" | "error";
  reasonType?: string;
}

/** `POST /v2/code/VerifyAddress` (Search VASP by Wallet Request): asynchronous, read back by `requestId`. */
export interface DiscoveryRequest {
  currency: string;
  /** The address, with `:<memo>` when there is one. */
  addressNumber: string;
  network?: string;
  requestId: string;
  callbackUrl?: string;
}
export interface DiscoveryRequestAnswer {
  /** `SUCCESS` when accepted. */
  result: string;
  requestId?: string;
}
/** `GET /v2/code/VerifyAddress/{requestId}` (Search VASP by Wallet Result). */
export interface DiscoveryResultAnswer {
  result: "valid" | "invalid";
  /** When invalid: NOT_FOUND_ADDRESS, LACK_OF_INFORMATION (unknown requestId), PROCESSING, ALLIANCE_DATA_NON_UNIQUE_RESULT. */
  reasonType?: string;
  reasonMsg?: string;
  beneficiaryVaspEntityId?: string;
  requestId?: string;
  analysisResult?: { entityId: string; result: string }[];
}

/** Every refusal: `{ errorType, errorMsg? }` (422 validation, 408, 429, 500 by CodeVASP; 503 by the VASP). */
export interface ErrorBody {
  errorType: string;
  errorMsg?: string;
}

// ---------------------------------------------------------------------------------------------
// Response API (CodeVASP → Caravan's callbacks, Part 3 "provider_b callbacks")

export const CALLBACK_ENDPOINTS = [
  "v1/vasp/health",
  "v1/beneficiary/VerifyAddress",
  "v1/beneficiary/transfer",
  "v1/beneficiary/transfer/txid",
  "v1/vasp/transfer/status",
  "v1/verification/tx",
] as const;
export type CallbackEndpoint = (typeof CALLBACK_ENDPOINTS)[number];

/** Part 3, Callback paths: `/api/system/trp/provider_b/<environment>/connections/<providerId>/<endpoint>`. */
export function callbackPath(environment: string, providerId: string, endpoint: CallbackEndpoint): string {
  return `/api/system/trp/provider_b/${environment}/connections/${encodeURIComponent(providerId)}/${endpoint}`;
}

export type BeneficiaryVerifyAddressRequest = VerifyAddressRequest;
export type BeneficiaryVerifyAddressAnswer = VerifyAddressAnswer;
export type BeneficiaryTransferRequest = TransferRequest;
export type BeneficiaryTransferAnswer = TransferAnswer;
export type BeneficiaryTxidRequest = TxidRequest;
export type FinishTransferRequest = StatusUpdateRequest;

/** `POST v1/vasp/transfer/status` (Transaction Status Search): the caller asks about our outgoing transfer. */
export interface TransferStatusQuery {
  transferId: string;
}
export interface TransferStatusAnswer {
  transferId: string;
  /** Part 3 answers `pending`, `processing` (transaction reported) or `canceled`; CodeVASP also lists wait-confirm, confirmed. */
  status: "pending" | "processing" | "wait-confirm" | "confirmed" | "canceled";
  txid?: string;
  vout?: string;
}

/** `POST v1/verification/tx` (Search VASP by TXID): is this transaction ours, to this address? */
export interface VerificationTxRequest {
  txid: string;
  /** With `:<memo>` when there is one. */
  beneficiaryAddress: string;
}
export interface VerificationTxAnswer {
  result: "valid" | "invalid";
}

/** `PUT v1/verification/tx` (Asset Transfer Data Request): payload holds Beneficiary and BeneficiaryVASP. */
export interface TransferDataRequest {
  transferId: string;
  txid: string;
  beneficiaryAddress: string;
  payload: string;
}
export interface TransferDataAnswer {
  result: "normal" | "error";
  /** When error: NOT_FOUND_TXID or LACK_OF_INFORMATION (Part 3). */
  reasonType?: string;
  reasonMsg?: string;
  transferId?: string;
  currency?: string;
  amount?: string;
  historicalCost?: string;
  tradePrice?: string;
  tradeCurrency?: string;
  isExceedingThreshold?: "true" | "false";
  payload?: string;
}

// ---------------------------------------------------------------------------------------------
// IVMS101 dialect (PROVIDERS.md; Dev 04 - IVMS101): PascalCase entities, camelCase inside, the IVMS101 2020
// element names our persons already use (`nameIdentifierType`, `customerIdentification`, `postCode`), and a
// natural person's `secondaryIdentifier` always present, `""` when the person has none.

export type WireNameId = Omit<NaturalPersonNameId, "secondaryIdentifier"> & { secondaryIdentifier: string };
export type WireLocalNameId = Omit<LocalNaturalPersonNameId, "secondaryIdentifier"> & { secondaryIdentifier: string };
export interface WireNaturalPerson extends Omit<NaturalPerson, "name"> {
  name: { nameIdentifier: WireNameId[]; localNameIdentifier?: WireLocalNameId[]; phoneticNameIdentifier?: WireLocalNameId[] };
}
export type WirePerson = { naturalPerson: WireNaturalPerson; legalPerson?: never } | { legalPerson: LegalPerson; naturalPerson?: never };
/** A VASP in the payload: `{ legalPerson }` (IVMS101 allows a natural person; CodeVASP requires the legal one). */
export interface VaspPerson {
  legalPerson: LegalPerson;
}

export interface Ivms101Message {
  Originator?: { originatorPersons: WirePerson[]; accountNumber: string[] };
  Beneficiary?: { beneficiaryPersons: WirePerson[]; accountNumber: string[] };
  OriginatingVASP?: { originatingVASP: VaspPerson };
  BeneficiaryVASP?: { beneficiaryVASP: VaspPerson };
}
/** The plaintext of every `payload`: `{"ivms101": {...}}`. */
export interface Ivms101Payload {
  ivms101: Ivms101Message;
}

const wireNames = <T extends { secondaryIdentifier?: string }>(ids: T[] | undefined) =>
  ids?.map((n) => ({ ...n, secondaryIdentifier: n.secondaryIdentifier ?? "" }));
const plainNames = <T extends { secondaryIdentifier?: string }>(ids: T[] | undefined) =>
  ids?.map((n) => {
    const { secondaryIdentifier, ...rest } = n;
    return secondaryIdentifier ? { ...rest, secondaryIdentifier } : rest;
  });
const dropUndefined = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

/** Our persons → the dialect (copies; `secondaryIdentifier` filled in). */
export function toWirePersons(persons: readonly Person[]): WirePerson[] {
  return persons.map((p) => {
    if (!p.naturalPerson) return dropUndefined({ legalPerson: p.legalPerson });
    const { name, ...rest } = p.naturalPerson;
    return dropUndefined({
      naturalPerson: {
        ...rest,
        name: {
          nameIdentifier: wireNames(name.nameIdentifier)!,
          localNameIdentifier: wireNames(name.localNameIdentifier),
          phoneticNameIdentifier: wireNames(name.phoneticNameIdentifier),
        },
      },
    });
  });
}

/**
 * Dialect persons → our shape (an empty `secondaryIdentifier` dropped). Structural only: persons from a
 * counterparty must still pass `validatePersons` before use.
 */
export function fromWirePersons(persons: readonly WirePerson[]): Person[] {
  return persons.map((p) => {
    if (!p.naturalPerson) return dropUndefined({ legalPerson: p.legalPerson }) as Person;
    const { name, ...rest } = p.naturalPerson;
    return dropUndefined({
      naturalPerson: {
        ...rest,
        name: {
          nameIdentifier: plainNames(name?.nameIdentifier) ?? [],
          localNameIdentifier: plainNames(name?.localNameIdentifier),
          phoneticNameIdentifier: plainNames(name?.phoneticNameIdentifier),
        },
      },
    }) as Person;
  });
}

/**
 * A VASP as IVMS101 legal person: Part 3, Settings of provider_b — `legalName` and `country` are the company's
 * VASP in the payload (as originating and as beneficiary VASP); the company profile is not used.
 */
export function vaspLegalPerson(vasp: { legalName: string; country: CountryCode }): VaspPerson {
  return {
    legalPerson: {
      name: { nameIdentifier: [{ legalPersonName: vasp.legalName, legalPersonNameIdentifierType: "LEGL" }] },
      countryOfRegistration: vasp.country,
    },
  };
}

/** PROVIDERS.md: an account number carries a memo as `address:memo`. */
export function accountNumber(address: string, tag?: string | null): string {
  return tag ? `${address}:${tag}` : address;
}

/**
 * `address[:memo]` → parts. Only networks with memos are split (at the last `:`), since some addresses hold a
 * colon themselves (`bitcoincash:qp…`); the caller knows the network.
 */
export function splitAccountNumber(value: string, networkHasMemo: boolean): { address: string; tag?: string } {
  const i = value.lastIndexOf(":");
  if (!networkHasMemo || i <= 0 || i === value.length - 1) return { address: value };
  return { address: value.slice(0, i), tag: value.slice(i + 1) };
}

export interface TransferMessageInput {
  originatorPersons: readonly Person[];
  originatorAccount: string;
  beneficiaryPersons: readonly Person[];
  beneficiaryAccount: string;
  originatingVasp: { legalName: string; country: CountryCode };
}

/** The authorization request's payload (Part 3, provider_b transfers, Outgoing). */
export function buildTransferMessage(t: TransferMessageInput): Ivms101Payload {
  return {
    ivms101: {
      Originator: { originatorPersons: toWirePersons(t.originatorPersons), accountNumber: [t.originatorAccount] },
      Beneficiary: { beneficiaryPersons: toWirePersons(t.beneficiaryPersons), accountNumber: [t.beneficiaryAccount] },
      OriginatingVASP: { originatingVASP: vaspLegalPerson(t.originatingVasp) },
    },
  };
}

/** The address check's payload: CodeVASP asks only `Beneficiary.accountNumber`, with `beneficiaryPersons` empty unless names are to be matched. */
export function buildVerifyAddressMessage(beneficiaryAccount: string, beneficiaryPersons: readonly Person[] = []): Ivms101Payload {
  return { ivms101: { Beneficiary: { beneficiaryPersons: toWirePersons(beneficiaryPersons), accountNumber: [beneficiaryAccount] } } };
}

/**
 * A beneficiary's answer payload: PROVIDERS.md — copy Originator, OriginatingVASP and Beneficiary from the request
 * and add BeneficiaryVASP. `beneficiaryPersons` replaces the request's persons when the answering VASP sends its own.
 */
export function buildTransferAnswerMessage(
  request: Ivms101Message,
  answer: { beneficiaryVasp: { legalName: string; country: CountryCode }; beneficiaryPersons?: readonly Person[] },
): Ivms101Payload {
  const beneficiary = request.Beneficiary ?? { beneficiaryPersons: [], accountNumber: [] };
  return {
    ivms101: {
      ...(request.Originator ? { Originator: request.Originator } : {}),
      Beneficiary: answer.beneficiaryPersons
        ? { beneficiaryPersons: toWirePersons(answer.beneficiaryPersons), accountNumber: beneficiary.accountNumber }
        : beneficiary,
      ...(request.OriginatingVASP ? { OriginatingVASP: request.OriginatingVASP } : {}),
      BeneficiaryVASP: { beneficiaryVASP: vaspLegalPerson(answer.beneficiaryVasp) },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reading what arrives: structural checks that turn `unknown` JSON into the types above, or say what is wrong.

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === "string";
const isStrArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
/** Absent, null or a string; null and "" are read as absent (CodeVASP sends `"reasonType": ""` on success). */
const optStr = (v: unknown): string | undefined | false => (v === undefined || v === null || v === "" ? undefined : isStr(v) ? v : false);
const isPersonList = (v: unknown): v is WirePerson[] =>
  Array.isArray(v) && v.every((p) => isRec(p) && (isRec(p.naturalPerson) !== isRec(p.legalPerson)));
const isVaspPerson = (v: unknown): v is VaspPerson => isRec(v) && isRec(v.legalPerson);

export type ReadResult<T> = { ok: true; value: T } | { ok: false; path: string };

// A counterparty may write its persons in either IVMS101 edition. CodeVASP documents the 2020 element names
// (`originatorPersons`, `nameIdentifierType`); a member on the 2023 edition sends `originatorPerson`,
// `beneficiaryPerson` and `naturalPersonNameIdentifierType`, possibly under the standard's camelCase entity keys
// (`originator`, `originatingVASP`). Either is read here and handed on in the 2020 spelling, the 2023 one through
// the domain's edition reader (the ivms101 package's conversion), so every caller sees one shape.

/** The entity's key as sent: CodeVASP's PascalCase, else the IVMS101 standard's camelCase; null when absent. */
function entityKey(m: Rec, pascal: string): string | null {
  if (m[pascal] !== undefined) return pascal;
  const camel = pascal[0]!.toLowerCase() + pascal.slice(1);
  return m[camel] !== undefined ? camel : null;
}

/** One side (originator or beneficiary) in either edition. */
function readParty(side: unknown, which: "originator" | "beneficiary", path: string, personsOptional: boolean): ReadResult<{ persons: WirePerson[]; accountNumber: string[] }> {
  const key2020 = which === "originator" ? "originatorPersons" : "beneficiaryPersons";
  const key2023 = which === "originator" ? "originatorPerson" : "beneficiaryPerson";
  if (!isRec(side)) return { ok: false, path };
  if (side[key2020] === undefined && side[key2023] !== undefined) {
    const read = readSide(side, which);
    // The reader names paths from the side (`originator.originatorPerson`); ours start at the payload's entity.
    if (!read.ok) return { ok: false, path: path + read.path.slice(which.length) };
    const persons = read.value.persons as unknown[];
    const bad = persons.findIndex((p) => !(isRec(p) && isRec(p.naturalPerson) !== isRec(p.legalPerson)));
    if (bad >= 0) return { ok: false, path: `${path}.${key2023}[${bad}]` };
    if (side.accountNumber === undefined) return { ok: false, path: `${path}.accountNumber` };
    try {
      return { ok: true, value: { persons: toWirePersons(read.value.persons), accountNumber: read.value.accountNumber } };
    } catch {
      return { ok: false, path: `${path}.${key2023}` };
    }
  }
  // Address checks may omit the beneficiary's persons (CodeVASP's own sample does); an absent list reads as empty.
  const persons = side[key2020] ?? (personsOptional ? [] : undefined);
  if (!isPersonList(persons)) return { ok: false, path: `${path}.${key2020}` };
  if (!isStrArray(side.accountNumber)) return { ok: false, path: `${path}.accountNumber` };
  return { ok: true, value: { persons, accountNumber: side.accountNumber } };
}

/** A VASP entity: `{ originatingVASP: { legalPerson } }` as documented, or the person itself (the package's 2023 form). */
function readVasp(entity: unknown, inner: string, path: string): ReadResult<VaspPerson> {
  const person = isRec(entity) && entity[inner] !== undefined ? entity[inner] : entity;
  return isVaspPerson(person) ? { ok: true, value: person } : { ok: false, path: `${path}.${inner}.legalPerson` };
}

/**
 * CodeVASP's own published example writes an address's post code `postcode` (as the ivms101 package does), where the
 * IVMS101 element, and Caravan, is `postCode`. Both are read, as `postCode` (which wins when both are given), in every
 * `geographicAddress` of the message (either party's persons and the VASPs); only `postCode` is ever sent.
 */
function postCodeSpelling(message: Ivms101Message): Ivms101Message {
  const copy = structuredClone(message);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isRec(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "geographicAddress" && Array.isArray(x))
        for (const a of x)
          if (isRec(a) && Object.hasOwn(a, "postcode")) {
            if (a.postCode === undefined) a.postCode = a.postcode;
            delete a.postcode;
          }
      walk(x);
    }
  };
  walk(copy);
  return copy;
}

/**
 * A decrypted payload → its message, in the 2020 spelling whichever edition was sent (a post code as `postCode`). Each entity present must be
 * well formed; which entities are required depends on the call (see `missingEntity`). Person contents are not
 * validated here. A refusal names the field path that failed (never a value), for the log.
 */
export function readIvms101(value: unknown): ReadResult<Ivms101Message> {
  if (!isRec(value) || !isRec(value.ivms101)) return { ok: false, path: "ivms101" };
  const m = value.ivms101;
  const out: Ivms101Message = {};
  const o = entityKey(m, "Originator");
  if (o) {
    const r = readParty(m[o], "originator", `ivms101.${o}`, false);
    if (!r.ok) return r;
    out.Originator = { originatorPersons: r.value.persons, accountNumber: r.value.accountNumber };
  }
  const b = entityKey(m, "Beneficiary");
  if (b) {
    const r = readParty(m[b], "beneficiary", `ivms101.${b}`, true);
    if (!r.ok) return r;
    out.Beneficiary = { beneficiaryPersons: r.value.persons, accountNumber: r.value.accountNumber };
  }
  const ov = entityKey(m, "OriginatingVASP");
  if (ov) {
    const r = readVasp(m[ov], "originatingVASP", `ivms101.${ov}`);
    if (!r.ok) return r;
    out.OriginatingVASP = { originatingVASP: r.value };
  }
  const bv = entityKey(m, "BeneficiaryVASP");
  if (bv) {
    const r = readVasp(m[bv], "beneficiaryVASP", `ivms101.${bv}`);
    if (!r.ok) return r;
    out.BeneficiaryVASP = { beneficiaryVASP: r.value };
  }
  return { ok: true, value: postCodeSpelling(out) };
}

/** The first entity of `names` the message lacks, or null. */
export function missingEntity(m: Ivms101Message, names: readonly (keyof Ivms101Message)[]): keyof Ivms101Message | null {
  return names.find((n) => m[n] === undefined) ?? null;
}

function readFields<T>(v: unknown, req: readonly string[], opt: readonly string[]): T | null {
  if (!isRec(v)) return null;
  const out: Rec = {};
  for (const k of req) {
    if (!isStr(v[k]) || v[k] === "") return null;
    out[k] = v[k];
  }
  for (const k of opt) {
    const s = optStr(v[k]);
    if (s === false) return null;
    if (s !== undefined) out[k] = s;
  }
  return out as T;
}

const oneOf = <T extends string>(v: string, allowed: readonly T[]): v is T => (allowed as readonly string[]).includes(v);

function readPubkeys(v: unknown): VaspPubkey[] | null {
  if (!Array.isArray(v)) return null;
  const out: VaspPubkey[] = [];
  for (const k of v) {
    const r = readFields<VaspPubkey>(k, ["pubkey"], ["expiresAt"]);
    if (!r) return null;
    out.push(r);
  }
  return out;
}

// Answer readers: each returns the documented fields only (nothing else the counterparty sent is kept), or
// null when the answer does not have the documented shape. `reasonMsg` is free text and is dropped.

export function readVaspsAnswer(v: unknown): VaspsAnswer | null {
  if (!isRec(v) || !Array.isArray(v.vasps)) return null;
  const vasps: VaspEntry[] = [];
  for (const e of v.vasps) {
    const r = readFields<VaspEntry>(e, ["vaspEntityId", "health"], ["vaspName", "vaspLegalName", "countryOfRegistration", "allianceName"]);
    const pubkeys = isRec(e) ? readPubkeys(e.pubkeys ?? []) : null;
    if (!r || !pubkeys) return null;
    vasps.push({ ...r, vaspName: r.vaspName ?? r.vaspEntityId, pubkeys });
  }
  return { vasps };
}

export function readPubkeyAnswer(v: unknown): PubkeyAnswer | null {
  const pubkeys = isRec(v) ? readPubkeys(v.pubkeys) : null;
  return pubkeys ? { pubkeys } : null;
}

export function readVerifyAddressAnswer(v: unknown): VerifyAddressAnswer | null {
  const r = readFields<VerifyAddressAnswer>(v, ["result"], ["reasonType", "beneficiaryVaspEntityId"]);
  return r && oneOf(r.result, ["valid", "invalid"] as const) ? r : null;
}

export function readTransferAnswer(v: unknown): TransferAnswer | null {
  const r = readFields<TransferAnswer>(v, ["result"], ["reasonType", "transferId", "payload"]);
  if (!r || !oneOf(r.result, ["verified", "denied"] as const)) return null;
  return r;
}

export function readResultAnswer(v: unknown): ResultAnswer | null {
  const r = readFields<ResultAnswer>(v, ["result"], ["transferId", "reasonType"]);
  return r && oneOf(r.result, ["normal", "error"] as const) ? r : null;
}

export function readDiscoveryRequestAnswer(v: unknown): DiscoveryRequestAnswer | null {
  return readFields<DiscoveryRequestAnswer>(v, ["result"], ["requestId"]);
}

export function readDiscoveryResultAnswer(v: unknown): DiscoveryResultAnswer | null {
  const r = readFields<DiscoveryResultAnswer>(v, ["result"], ["reasonType", "beneficiaryVaspEntityId", "requestId"]);
  if (!r || !oneOf(r.result, ["valid", "invalid"] as const) || !isRec(v)) return null;
  if (v.analysisResult !== undefined && v.analysisResult !== null) {
    if (!Array.isArray(v.analysisResult)) return null;
    const rows: { entityId: string; result: string }[] = [];
    for (const row of v.analysisResult) {
      const x = readFields<{ entityId: string; result: string }>(row, ["entityId", "result"], []);
      if (!x) return null;
      rows.push(x);
    }
    r.analysisResult = rows;
  }
  return r;
}

/** The `errorType` of a refusal body when it looks like a code; null otherwise (the body is then not used at all). */
export function readErrorType(v: unknown): string | null {
  return isRec(v) && isStr(v.errorType) && ERROR_TYPE.test(v.errorType) ? v.errorType : null;
}

/** `isExceedingThreshold` as sent: the documented string, or the boolean one CodeVASP sample shows. */
export function readThresholdFlag(v: unknown): boolean | null {
  if (v === true || v === "true") return true;
  if (v === false || v === "false") return false;
  return null;
}
