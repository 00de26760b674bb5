// The sandbox provider_b network playing a counterparty VASP toward Caravan's callbacks (Part 3, provider_b callbacks).
import type { Person } from "../../domain/ivms101/types.ts";
import { open, seal, sign } from "./crypto.ts";
import {
  HEADER,
  accountOf,
  addressCheckMessage,
  callbackPath,
  datetimeOf,
  in2023Edition,
  originOf,
  readMessage,
  transferMessage,
  vaspPerson,
  writePersons,
  type CallbackEndpoint,
  type Ivms101Message,
  type Ivms101Payload,
  type ResultAnswer,
  type TransferAnswer,
  type TransferDataAnswer,
  type TransferRequest,
  type TransferStatusAnswer,
  type VerificationTxAnswer,
  type VerifyAddressAnswer,
} from "./wire.ts";
import type { Directory } from "./directory.ts";

export interface CallbackContext {
  directory: Directory;
  /** `CF-Connecting-IP` the peer sends by default (Part 3, Authentication 3: callbacks are allowed by source address). */
  connectingIp: () => string;
  now: () => number;
}

export interface CallbackTarget {
  /** The sandbox VASP that sends: its entity ID is `X-Request-Origin`, its key signs and seals. */
  fromEntityId: string;
  /** `<environment>` of the callback path. */
  toCaravanEnv: string;
  /** `<providerId>` of the callback path. */
  providerId: string;
  /** Which registered Caravan entity is called; default the one registered last. */
  caravanEntityId?: string;
  /** `CF-Connecting-IP` for this call; default the peer's. */
  connectingIp?: string;
  /** Extra or replaced headers; `null` removes one (to test a missing header). */
  headers?: Record<string, string | null>;
}

export interface CallbackReply<T> {
  status: number;
  /** The answer's JSON; null when it is not JSON. */
  body: T | null;
  /** The answer's `payload` opened with the sender's key; null when there is none. */
  ivms101: Ivms101Message | null;
  /** Why a `payload` that was sent back did not open (ENCODING, DECRYPT, JSON, SHAPE). */
  payloadError?: string;
}

export interface IncomingTransferInput extends CallbackTarget {
  /** Default: a fresh UUIDv4. */
  transferId?: string;
  asset: string;
  network?: string;
  amount: string;
  /** USD value; default "0". */
  tradePrice?: string;
  tradeCurrency?: string;
  isExceedingThreshold?: boolean;
  /** The beneficiary's address at Caravan and its memo. */
  address: string;
  tag?: string;
  originatorAddress?: string;
  originatorPersons: Person[];
  beneficiaryPersons: Person[];
  /** Replace the built plaintext (to send incomplete IVMS101). */
  message?: Ivms101Payload;
  /** The IVMS101 edition the member writes: CodeVASP's documented 2020 names (default) or the 2023 edition. */
  edition?: "2020" | "2023";
  /** Replace the sealed payload verbatim (to send one that does not decrypt). */
  payload?: string;
}

/** One signed call to Caravan: signature over datetime ‖ body ‖ nonce, as a member's request would carry. */
export async function callCaravan<T>(
  ctx: CallbackContext,
  t: CallbackTarget,
  endpoint: CallbackEndpoint,
  method: "GET" | "POST" | "PUT",
  body: unknown,
  opts: { sealed?: boolean } = {},
): Promise<CallbackReply<T>> {
  const vasp = ctx.directory.vasp(t.fromEntityId);
  const caravan = ctx.directory.caravan(t.caravanEntityId);
  const text = body === undefined ? "" : JSON.stringify(body);
  const bytes = new TextEncoder().encode(text);
  const datetime = datetimeOf(ctx.now());
  const nonce = crypto.getRandomValues(new Uint32Array(1))[0]!;
  const headers: Record<string, string> = {
    accept: "application/json",
    "CF-Connecting-IP": t.connectingIp ?? ctx.connectingIp(),
  };
  // Part 3, Authentication 3: health needs neither origin nor key; every other call names its sender and key.
  // (The real CodeVASP server does not forward the signature; sending it is harmless and lets Caravan log it.)
  if (endpoint !== "v1/vasp/health") {
    headers[HEADER.datetime] = datetime;
    headers[HEADER.nonce] = String(nonce);
    headers[HEADER.pubKey] = vasp.publicKeyBase64;
    headers[HEADER.signature] = sign(vasp.seedBase64, datetime, bytes, nonce);
    headers[HEADER.origin] = originOf(vasp.entityId);
    if (opts.sealed) headers[HEADER.remotePubKey] = caravan.publicKeyBase64;
  }
  if (body !== undefined) headers["content-type"] = "application/json";
  for (const [k, v] of Object.entries(t.headers ?? {})) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    if (v !== null) headers[k] = v;
  }
  const res = await fetch(caravan.callbackBaseUrl + callbackPath(t.toCaravanEnv, t.providerId, endpoint), {
    method,
    headers,
    ...(body === undefined ? {} : { body: bytes }),
    redirect: "manual",
    signal: AbortSignal.timeout(15_000),
  });
  const answerText = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(answerText);
  } catch {
    json = null;
  }
  const reply: CallbackReply<T> = { status: res.status, body: json as T | null, ivms101: null };
  const payload = (json as { payload?: unknown } | null)?.payload;
  if (typeof payload === "string" && payload !== "") {
    const opened = open(payload, caravan.publicKeyBase64, vasp.seedBase64);
    const read = opened.ok ? readMessage(opened.value) : null;
    if (read) reply.ivms101 = read;
    else reply.payloadError = opened.ok ? "SHAPE" : opened.reason;
  }
  return reply;
}

/** `POST v1/beneficiary/transfer`: a signed, sealed authorization request; the answer's payload comes back opened. */
export async function sendIncomingTransfer(ctx: CallbackContext, i: IncomingTransferInput): Promise<CallbackReply<TransferAnswer> & { transferId: string }> {
  const vasp = ctx.directory.vasp(i.fromEntityId);
  const caravan = ctx.directory.caravan(i.caravanEntityId);
  const transferId = i.transferId ?? crypto.randomUUID();
  const message =
    i.message ??
    transferMessage({
      originatorPersons: i.originatorPersons,
      originatorAccount: i.originatorAddress ?? `sandbox-${vasp.entityId}-hot-wallet`,
      beneficiaryPersons: i.beneficiaryPersons,
      beneficiaryAccount: accountOf(i.address, i.tag),
      originatingVasp: vasp,
    });
  const body: TransferRequest = {
    transferId,
    currency: i.asset,
    amount: i.amount,
    tradePrice: i.tradePrice ?? "0",
    tradeCurrency: i.tradeCurrency ?? "USD",
    isExceedingThreshold: i.isExceedingThreshold === false ? "false" : "true",
    payload: i.payload ?? seal(i.edition === "2023" ? in2023Edition(message) : message, caravan.publicKeyBase64, vasp.seedBase64),
    address: i.address,
    ...(i.tag ? { tag: i.tag } : {}),
    ...(i.network ? { network: i.network } : {}),
  };
  return { ...(await callCaravan<TransferAnswer>(ctx, i, "v1/beneficiary/transfer", "POST", body, { sealed: true })), transferId };
}

/** `POST v1/beneficiary/transfer/txid` (plain JSON). */
export function sendTxid(ctx: CallbackContext, i: CallbackTarget & { transferId: string; txid: string; vout?: string }): Promise<CallbackReply<ResultAnswer>> {
  return callCaravan(ctx, i, "v1/beneficiary/transfer/txid", "POST", { transferId: i.transferId, txid: i.txid, ...(i.vout !== undefined ? { vout: i.vout } : {}) });
}

/** `PUT v1/vasp/transfer/status` with `canceled` (Finish Transfer). */
export function sendCancel(ctx: CallbackContext, i: CallbackTarget & { transferId: string; reasonType?: string }): Promise<CallbackReply<ResultAnswer>> {
  return callCaravan(ctx, i, "v1/vasp/transfer/status", "PUT", { transferId: i.transferId, status: "canceled", ...(i.reasonType ? { reasonType: i.reasonType } : {}) });
}

/** `POST v1/vasp/transfer/status`: the status of Caravan's outgoing transfer to this VASP. */
export function askStatus(ctx: CallbackContext, i: CallbackTarget & { transferId: string }): Promise<CallbackReply<TransferStatusAnswer>> {
  return callCaravan(ctx, i, "v1/vasp/transfer/status", "POST", { transferId: i.transferId });
}

/** `POST v1/beneficiary/VerifyAddress`: does Caravan hold this address (and, with persons, for them)? */
export function verifyAddress(
  ctx: CallbackContext,
  i: CallbackTarget & { currency: string; address: string; tag?: string; network?: string; beneficiaryPersons?: Person[]; payload?: string },
): Promise<CallbackReply<VerifyAddressAnswer>> {
  const vasp = ctx.directory.vasp(i.fromEntityId);
  const caravan = ctx.directory.caravan(i.caravanEntityId);
  const payload = i.payload ?? seal(addressCheckMessage(accountOf(i.address, i.tag), i.beneficiaryPersons), caravan.publicKeyBase64, vasp.seedBase64);
  return callCaravan(ctx, i, "v1/beneficiary/VerifyAddress", "POST", {
    currency: i.currency,
    payload,
    address: i.address,
    ...(i.tag ? { tag: i.tag } : {}),
    ...(i.network ? { network: i.network } : {}),
  }, { sealed: true });
}

/** `POST v1/verification/tx`: is this transaction Caravan's outgoing transfer to this VASP? */
export function verificationTx(ctx: CallbackContext, i: CallbackTarget & { txid: string; beneficiaryAddress: string }): Promise<CallbackReply<VerificationTxAnswer>> {
  return callCaravan(ctx, i, "v1/verification/tx", "POST", { txid: i.txid, beneficiaryAddress: i.beneficiaryAddress });
}

/** `PUT v1/verification/tx` (Asset Transfer Data Request): the VASP's Beneficiary and BeneficiaryVASP, sealed; Caravan answers the originator's data. */
export function requestTransferData(
  ctx: CallbackContext,
  i: CallbackTarget & { transferId?: string; txid: string; beneficiaryAddress: string; beneficiaryPersons: Person[] },
): Promise<CallbackReply<TransferDataAnswer>> {
  const vasp = ctx.directory.vasp(i.fromEntityId);
  const caravan = ctx.directory.caravan(i.caravanEntityId);
  const message: Ivms101Payload = {
    ivms101: {
      Beneficiary: { beneficiaryPersons: writePersons(i.beneficiaryPersons), accountNumber: [i.beneficiaryAddress] },
      BeneficiaryVASP: { beneficiaryVASP: vaspPerson(vasp) },
    },
  };
  return callCaravan(ctx, i, "v1/verification/tx", "PUT", {
    transferId: i.transferId ?? crypto.randomUUID(),
    txid: i.txid,
    beneficiaryAddress: i.beneficiaryAddress,
    payload: seal(message, caravan.publicKeyBase64, vasp.seedBase64),
  }, { sealed: true });
}

/** `GET v1/vasp/health`, as CodeVASP polls it about every five minutes. */
export function health(ctx: CallbackContext, i: CallbackTarget): Promise<CallbackReply<Record<string, never>>> {
  return callCaravan(ctx, i, "v1/vasp/health", "GET", undefined);
}
