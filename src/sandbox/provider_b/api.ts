// The sandbox provider_b network's Request API (what Caravan calls), answered from the directory with real decryption.
import type { Person } from "../../domain/ivms101/types.ts";
import { open, seal } from "./crypto.ts";
import {
  HEADER,
  answerMessage,
  readFlag,
  readMessage,
  type DiscoveryResultAnswer,
  type Ivms101Message,
  type ResultAnswer,
  type TransferAnswer,
  type VerifyAddressAnswer,
  type WirePerson,
} from "./wire.ts";
import type { Directory, SandboxVasp } from "./directory.ts";

/** Search VASP by Wallet Result: the `reasonType`s of an `invalid` answer. */
const DISCOVERY_REASON = {
  notFound: "NOT_FOUND_ADDRESS",
  unknownRequest: "LACK_OF_INFORMATION",
  pending: "PROCESSING",
  ambiguous: "ALLIANCE_DATA_NON_UNIQUE_RESULT",
} as const;

export const ROUTES = ["vasps", "pubkey", "verifyAddress", "transfer", "txid", "status", "discoveryRequest", "discoveryResult"] as const;
export type ProviderBRoute = (typeof ROUTES)[number];

/** A transfer authorization a sandbox VASP received, and what became of it. */
export interface ReceivedTransfer {
  transferId: string;
  fromEntityId: string;
  toEntityId: string;
  currency: string;
  amount: string;
  tradePrice: string;
  tradeCurrency: string;
  isExceedingThreshold: boolean;
  address?: string;
  tag?: string;
  network?: string;
  /** The decrypted request payload. */
  ivms101: Ivms101Message;
  result: "verified" | "denied";
  reasonType?: string;
  /** verified → canceled by a status PUT. */
  canceled: boolean;
  cancelReason?: string;
  txid?: string;
  vout?: string;
  /** Request content (minus the random-nonce ciphertext), to tell a retry from a different transfer under the same ID. */
  fingerprint: string;
}

interface Discovery {
  fromEntityId: string;
  currency: string;
  addressNumber: string;
  network?: string;
  pendingLeft: number;
}

export interface NetworkState {
  directory: Directory;
  transfers: Map<string, ReceivedTransfer>;
  discoveries: Map<string, Discovery>;
  /** GETs answered PROCESSING before a discovery result is given. */
  discoveryPendingPolls: number;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  /** The decrypted request payload, for the request log. */
  payload?: Ivms101Message;
}

export type Route = { route: ProviderBRoute; entityId?: string; requestId?: string };

/** Method and path → route; null for anything the Request API does not have. */
export function matchRoute(method: string, path: string): Route | null {
  let m: RegExpExecArray | null;
  if (method === "GET" && path === "/v1/code/vasps") return { route: "vasps" };
  if (method === "GET" && (m = /^\/v1\/code\/Vasp\/([^/]+)\/pubkey$/.exec(path))) return { route: "pubkey", entityId: decodeURIComponent(m[1]!) };
  if (method === "POST" && (m = /^\/v1\/code\/VerifyAddress\/([^/]+)$/.exec(path))) return { route: "verifyAddress", entityId: decodeURIComponent(m[1]!) };
  if (method === "POST" && (m = /^\/v1\/code\/transfer\/([^/]+)$/.exec(path))) return { route: "transfer", entityId: decodeURIComponent(m[1]!) };
  if (method === "POST" && (m = /^\/v1\/code\/transfer\/([^/]+)\/txid$/.exec(path))) return { route: "txid", entityId: decodeURIComponent(m[1]!) };
  if (method === "PUT" && (m = /^\/v1\/code\/transfer\/([^/]+)\/status$/.exec(path))) return { route: "status", entityId: decodeURIComponent(m[1]!) };
  if (method === "POST" && path === "/v2/code/VerifyAddress") return { route: "discoveryRequest" };
  if (method === "GET" && (m = /^\/v2\/code\/VerifyAddress\/([^/]+)$/.exec(path))) return { route: "discoveryResult", requestId: decodeURIComponent(m[1]!) };
  return null;
}

const error = (status: number, errorType: string): ApiAnswer => ({ status, body: { errorType, errorMsg: "" } });
const ok = (body: unknown, payload?: Ivms101Message): ApiAnswer => ({ status: 200, body, ...(payload ? { payload } : {}) });
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const str = (v: unknown): v is string => typeof v === "string" && v !== "";
const optStr = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** Answers one authenticated Request-API call from `sender`. */
export function answer(state: NetworkState, r: Route, sender: { entityId: string; publicKeyBase64: string }, headers: Headers, body: unknown): ApiAnswer {
  const d = state.directory;
  switch (r.route) {
    case "vasps":
      return ok({ vasps: d.entries() });
    case "pubkey": {
      const v = d.vasps.get(r.entityId!);
      const c = d.caravans.get(r.entityId!);
      if (v) return ok({ pubkeys: [{ pubkey: v.publicKeyBase64, expiresAt: v.keyExpiresAt }] });
      if (c) return ok({ pubkeys: [{ pubkey: c.publicKeyBase64, expiresAt: "2099-12-31T23:59:59Z" }] });
      return error(422, "INVALID_TARGET_VASP_ID");
    }
    case "verifyAddress":
    case "transfer": {
      const v = d.vasps.get(r.entityId!);
      if (!v) return error(422, "INVALID_TARGET_VASP_ID");
      // The CodeVASP server forwards to the VASP; a VASP that is down does not answer in time (Dev 10: 408).
      if (v.health === "down") return error(408, "BENEFICIARY_VASP_REQUEST_TIMEOUT");
      const remote = headers.get(HEADER.remotePubKey);
      if (remote !== null && remote !== v.publicKeyBase64) return error(422, "INVALID_RECEIVER_PUBLIC_KEY");
      return r.route === "verifyAddress" ? verifyAddress(state, v, sender, body) : transfer(state, v, sender, body);
    }
    case "txid":
      return txid(state, r.entityId!, sender.entityId, body);
    case "status":
      return cancel(state, r.entityId!, sender.entityId, body);
    case "discoveryRequest":
      return discoveryRequest(state, sender.entityId, body);
    case "discoveryResult":
      return discoveryResult(state, sender.entityId, r.requestId!);
  }
}

/** Opens a request payload sealed by the sender for the VASP; a payload that does not open is the VASP's 503 INVALID_ENCRYPTED_BODY. */
function openRequest(v: SandboxVasp, sender: { publicKeyBase64: string }, payload: unknown): Ivms101Message | ApiAnswer {
  if (!str(payload)) return error(422, "MISSING_REQUIRED_MSG_FIELD");
  const opened = open(payload, sender.publicKeyBase64, v.seedBase64);
  if (!opened.ok) return error(503, "INVALID_ENCRYPTED_BODY");
  return readMessage(opened.value) ?? error(503, "INVALID_ENCRYPTED_BODY");
}
const isAnswer = (x: Ivms101Message | ApiAnswer): x is ApiAnswer => "status" in x;

function verifyAddress(state: NetworkState, v: SandboxVasp, sender: { publicKeyBase64: string }, body: unknown): ApiAnswer {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!str(b.currency)) return error(422, "MISSING_REQUIRED_MSG_FIELD");
  const msg = openRequest(v, sender, b.payload);
  if (isAnswer(msg)) return msg;
  const account = msg.Beneficiary?.accountNumber[0];
  const answer = (result: VerifyAddressAnswer["result"], reasonType = ""): ApiAnswer =>
    ok({ result, reasonType, reasonMsg: "", beneficiaryVaspEntityId: v.entityId } satisfies VerifyAddressAnswer, msg);
  if (!account) return answer("invalid", "LACK_OF_INFORMATION");
  const found = state.directory.lookup(v, account);
  if (found.kind === "unknown") return answer("invalid", "NOT_FOUND_ADDRESS");
  if (found.kind === "denied") return answer("invalid", found.reasonType);
  const sent = msg.Beneficiary!.beneficiaryPersons;
  if (sent.length > 0 && !sameFirstName(sent, found.persons)) return answer("invalid", "INPUT_NAME_MISMATCHED");
  return answer("valid");
}

function transfer(state: NetworkState, v: SandboxVasp, sender: { entityId: string; publicKeyBase64: string }, body: unknown): ApiAnswer {
  const b = (body ?? {}) as Record<string, unknown>;
  for (const k of ["transferId", "currency", "amount", "tradePrice", "tradeCurrency", "payload"]) if (!str(b[k])) return error(422, "MISSING_REQUIRED_MSG_FIELD");
  const exceeding = readFlag(b.isExceedingThreshold);
  if (exceeding === null) return error(422, "MISSING_REQUIRED_MSG_FIELD");
  if (!UUID_V4.test(b.transferId as string)) return error(422, "INVALID_MSG_FIELD_VALUE");
  const msg = openRequest(v, sender, b.payload);
  if (isAnswer(msg)) return msg;
  const transferId = b.transferId as string;
  const { payload: _sealed, ...fields } = b;
  const fingerprint = JSON.stringify([fields, msg]);

  const answerFor = (t: ReceivedTransfer): ApiAnswer => {
    const out: TransferAnswer = { result: t.result, reasonType: t.reasonType ?? "", reasonMsg: "", transferId, beneficiaryVasp: {} };
    if (t.result === "verified") {
      const found = state.directory.lookup(v, t.ivms101.Beneficiary!.accountNumber[0]!);
      const persons = found.kind === "wallet" ? found.persons : [];
      // Sealed anew for the sender's current key on every answer, repeats included.
      out.payload = seal(answerMessage(t.ivms101, v, persons), sender.publicKeyBase64, v.seedBase64);
    }
    return ok(out, msg);
  };

  const earlier = state.transfers.get(transferId);
  if (earlier) {
    if (earlier.fromEntityId !== sender.entityId || earlier.toEntityId !== v.entityId || earlier.fingerprint !== fingerprint) return error(503, "DUPLICATED_TRANSFER_ID");
    return answerFor(earlier);
  }

  const decide = (): { result: "verified" | "denied"; reasonType?: string } => {
    if (!msg.Originator || !msg.Beneficiary || !msg.OriginatingVASP) return { result: "denied", reasonType: "LACK_OF_INFORMATION" };
    if (msg.Originator!.originatorPersons.length === 0 || msg.Originator!.accountNumber.length === 0) return { result: "denied", reasonType: "LACK_OF_INFORMATION" };
    const account = msg.Beneficiary!.accountNumber[0];
    if (!account) return { result: "denied", reasonType: "LACK_OF_INFORMATION" };
    const found = state.directory.lookup(v, account);
    if (found.kind === "unknown") return { result: "denied", reasonType: "NOT_FOUND_ADDRESS" };
    if (found.kind === "denied") return { result: "denied", reasonType: found.reasonType };
    const sent = msg.Beneficiary!.beneficiaryPersons;
    if (sent.length > 0 && !sameFirstName(sent, found.persons)) return { result: "denied", reasonType: "INPUT_NAME_MISMATCHED" };
    return { result: "verified" };
  };
  const t: ReceivedTransfer = {
    transferId,
    fromEntityId: sender.entityId,
    toEntityId: v.entityId,
    currency: b.currency as string,
    amount: b.amount as string,
    tradePrice: b.tradePrice as string,
    tradeCurrency: b.tradeCurrency as string,
    isExceedingThreshold: exceeding,
    address: optStr(b.address),
    tag: optStr(b.tag),
    network: optStr(b.network),
    ivms101: msg,
    ...decide(),
    canceled: false,
    fingerprint,
  };
  state.transfers.set(transferId, t);
  return answerFor(t);
}

/** The transfer a txid report or cancellation names, when the same sender sent it to the same VASP. */
function ownTransfer(state: NetworkState, toEntityId: string, fromEntityId: string, transferId: unknown): ReceivedTransfer | null {
  const t = str(transferId) ? state.transfers.get(transferId) : undefined;
  return t && t.fromEntityId === fromEntityId && t.toEntityId === toEntityId ? t : null;
}

function txid(state: NetworkState, toEntityId: string, fromEntityId: string, body: unknown): ApiAnswer {
  const b = (body ?? {}) as Record<string, unknown>;
  const transferId = b.transferId;
  const hash = b.txid;
  if (!str(transferId) || !str(hash)) return error(422, "MISSING_REQUIRED_MSG_FIELD");
  const t = ownTransfer(state, toEntityId, fromEntityId, transferId);
  const result = (reasonType?: string): ApiAnswer =>
    ok({ transferId, result: reasonType ? "error" : "normal", reasonType: reasonType ?? "" } satisfies ResultAnswer);
  if (!t) return result("UNKNOWN_TRANSFER_ID");
  if (t.result !== "verified" || t.canceled) return result("TRANSFER_ALREADY_FAILED");
  const vout = optStr(b.vout);
  // Part 3: the same txid and vout again is `normal`; another txid is TXID_ALREADY_EXISTS.
  if (t.txid !== undefined) return t.txid === hash && t.vout === vout ? result() : result("TXID_ALREADY_EXISTS");
  t.txid = hash;
  t.vout = vout;
  return result();
}

function cancel(state: NetworkState, toEntityId: string, fromEntityId: string, body: unknown): ApiAnswer {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!str(b.transferId) || !str(b.status)) return error(422, "MISSING_REQUIRED_MSG_FIELD");
  if (b.status !== "canceled") return error(422, "INVALID_MSG_FIELD_VALUE");
  const t = ownTransfer(state, toEntityId, fromEntityId, b.transferId);
  if (!t) return ok({ transferId: b.transferId, result: "error", reasonType: "UNKNOWN_TRANSFER_ID" } satisfies ResultAnswer);
  // Finish Transfer: "an attempted change to the same state is considered a success".
  t.canceled = true;
  t.cancelReason ??= optStr(b.reasonType);
  return ok({ transferId: t.transferId, result: "normal", reasonType: "" } satisfies ResultAnswer);
}

function discoveryRequest(state: NetworkState, fromEntityId: string, body: unknown): ApiAnswer {
  const b = (body ?? {}) as Record<string, unknown>;
  if (!str(b.currency) || !str(b.addressNumber) || !str(b.requestId)) return error(422, "MISSING_REQUIRED_MSG_FIELD");
  const earlier = state.discoveries.get(b.requestId);
  if (earlier) {
    // The request ID must be unique; the same search asked again keeps its progress.
    const same = earlier.fromEntityId === fromEntityId && earlier.currency === b.currency && earlier.addressNumber === b.addressNumber && earlier.network === optStr(b.network);
    if (!same) return error(422, "INVALID_MSG_FIELD_VALUE");
  } else {
    state.discoveries.set(b.requestId, {
      fromEntityId,
      currency: b.currency,
      addressNumber: b.addressNumber,
      network: optStr(b.network),
      pendingLeft: state.discoveryPendingPolls,
    });
  }
  return ok({ result: "SUCCESS", requestId: b.requestId });
}

function discoveryResult(state: NetworkState, fromEntityId: string, requestId: string): ApiAnswer {
  const q = state.discoveries.get(requestId);
  const invalid = (reasonType: string, extra: Partial<DiscoveryResultAnswer> = {}): ApiAnswer =>
    ok({ result: "invalid", reasonType, reasonMsg: "", beneficiaryVaspEntityId: "", requestId, ...extra } satisfies DiscoveryResultAnswer);
  if (!q || q.fromEntityId !== fromEntityId) return invalid(DISCOVERY_REASON.unknownRequest);
  if (q.pendingLeft > 0) {
    q.pendingLeft--;
    return invalid(DISCOVERY_REASON.pending);
  }
  // Every member is asked; one that is down cannot answer (SYSTEM_NOT_AVAILABLE) and so is never found.
  const analysisResult = [...state.directory.vasps.values()].map((v) => ({
    entityId: v.entityId,
    result: v.health === "down" ? "SYSTEM_NOT_AVAILABLE" : state.directory.holders(q.addressNumber).includes(v) ? "FOUND" : "NOT_FOUND_ADDRESS",
  }));
  const found = analysisResult.filter((a) => a.result === "FOUND");
  if (found.length === 0) return invalid(DISCOVERY_REASON.notFound, { analysisResult });
  if (found.length > 1) return invalid(DISCOVERY_REASON.ambiguous, { analysisResult });
  return ok({ result: "valid", reasonType: "", reasonMsg: "", beneficiaryVaspEntityId: found[0]!.entityId, requestId, analysisResult } satisfies DiscoveryResultAnswer);
}

// ---------------------------------------------------------------------------------------------
// Name check of a sandbox beneficiary VASP: the first person's legal name against its customer's, ignoring case,
// spacing and punctuation, given and family names in either order (the rule Part 3 gives Caravan's own check).

const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

function nameKeys(p: Person | WirePerson | undefined): string[] {
  // A counterparty's persons are only read structurally: a name that is not there matches nothing.
  const text = (v: unknown) => (typeof v === "string" ? fold(v) : "");
  if (!p) return [];
  if (p.legalPerson) {
    const ids = p.legalPerson.name?.nameIdentifier ?? [];
    const n = ids.find((x) => x?.legalPersonNameIdentifierType === "LEGL") ?? ids[0];
    return n ? [text(n.legalPersonName)] : [];
  }
  const ids = p.naturalPerson?.name?.nameIdentifier ?? [];
  const n = ids.find((x) => x?.nameIdentifierType === "LEGL") ?? ids[0];
  if (!n) return [];
  const a = text(n.primaryIdentifier);
  const b = text(n.secondaryIdentifier);
  return [a + b, b + a];
}

function sameFirstName(sent: readonly WirePerson[], known: readonly Person[]): boolean {
  const theirs = nameKeys(sent[0]);
  return nameKeys(known[0]).some((k) => k !== "" && theirs.includes(k));
}
