// provider_e information requests (CDD) inside the transfer's actor (Part 1 "Information requests", Part 3 "provider_e
// transfers → Information requests"): the `cdd` callback, the caller's actions (request, reply, post, review, retry),
// the hold with its case, the background send (queued → sent, or failed), and the list with draft answers.
// Messages live in the flow's durable state (committed with the transfer's changes, content sealed at rest).
import type { TransferFlowContext } from "../transfer-flow.ts";
import type { AdapterContext } from "../../adapters/providers/types.ts";
import type { Sealer } from "../../adapters/crypto/envelope.ts";
import type { Result } from "../../adapters/providers/provider_e/client.ts";
import type { StatusAnswer } from "../../adapters/providers/provider_e/wire.ts";
import type { ProviderEFlowLookups } from "../../adapters/providers/provider_e/lookups.ts";
import type { ErrorCode } from "../../domain/errors.ts";
import type { Outcome } from "../outcome.ts";
import { credsOf } from "../../adapters/providers/provider_e/adapter.ts";
import { decryptPrivate, encryptObject, signObject, verifyObject } from "../../adapters/providers/provider_e/crypto.ts";
import { PATH, readCdd } from "../../adapters/providers/provider_e/wire.ts";
import { newId } from "../../domain/ids.ts";
import {
  asInformation, directionFits, draftAnswer, fieldsKey, informationTooLarge, isPending, MAX_MESSAGES, readFields, reviewRefusal,
  type CddAction, type CddRecord, type RequestedFields,
} from "../../domain/provider_e/cdd.ts";

type Answer = { status: number; body: Record<string, unknown> };
const OK: Answer = { status: 200, body: { status: "OK" } };
const err = (status: number, error: string): Answer => ({ status, body: { error } });
const FINAL = ["completed", "rejected", "failed"];

/** The flow's CDD state (part of provider_e's flow state). */
export interface CddState extends Record<string, unknown> {
  cdd?: CddRecord[];
  /** Set when information holds the transfer: whether it was approved then (it returns to awaiting_counterparty after review). */
  cddHold?: { approved: boolean; at: string };
}

/** One message as the API lists it (Part 1); `draft` on a received request not answered yet. */
export interface CddView {
  id: string;
  direction: CddRecord["direction"];
  type: CddRecord["type"];
  status: CddRecord["status"];
  inReplyToId: string | null;
  createdAt: string;
  sentAt: string | null;
  reviewedAt: string | null;
  content: unknown;
  error?: string;
  draft?: { information: Record<string, unknown>; missing: string[] };
}

export interface CddHelpers {
  peerKey(f: TransferFlowContext, a: AdapterContext): Promise<string | null>;
  status(f: TransferFlowContext, a: AdapterContext): Promise<Result<StatusAnswer>>;
  send(f: TransferFlowContext, a: AdapterContext, path: string, body: unknown): Promise<Result<unknown>>;
  /** Status reading of an outgoing transfer (after a review). */
  applyOutgoing(f: TransferFlowContext, a: AdapterContext, st: StatusAnswer): Promise<void>;
}

const aad = (f: TransferFlowContext, m: { id: string }) => `transfer:${f.row.id}:cdd:${m.id}`;

/** Part 1: a provider refusal keeps its status when 400, 404 or 409, else 503, with the provider's own code. */
function providerRefusal(r: { code: string; status?: number; providerCode?: string }): Outcome<never> {
  const status = r.status === 400 || r.status === 404 || r.status === 409 ? r.status : 503;
  const code = r.providerCode ?? r.code;
  return { ok: false, code: code as ErrorCode, message: `provider_e refused the request (${code})`, details: { providerStatus: status } };
}

const refusal = (code: ErrorCode, message: string, details?: Record<string, unknown>): Outcome<never> => ({ ok: false, code, message, details });
const invalid = (path: string, message: string) => refusal("INVALID_INFORMATION_REQUEST", `${path}: ${message}`, { issues: [{ path, message }] });

const list = (f: TransferFlowContext): CddRecord[] => (f.flowState<CddState>().cdd ??= []);

/** Part 3: a received message, or a sent request, holds the transfer (held, verdict pending, transfer.held, the case). */
function holdFor(f: TransferFlowContext, reason: string, messageId: string): void {
  const fs = f.flowState<CddState>();
  if (f.row.state === "held") {
    f.note("cdd_hold_kept", { provider: "provider_e", messageId });
    fs.cddHold ??= { approved: false, at: f.at };
    return;
  }
  fs.cddHold = { approved: f.row.status === "approved" && (f.row.state === "awaiting_counterparty" || f.row.state === "accepted"), at: f.at };
  f.hold(reason, { status: "pending", caseType: "compliance_review", severity: "low", detail: { messageId } });
}

function record(cx: Cdd, f: TransferFlowContext, m: Omit<CddRecord, "sealed" | "createdAt" | "reviewedAt">, content: unknown): CddRecord {
  const full: CddRecord = { ...m, sealed: "", createdAt: f.at, reviewedAt: null };
  full.sealed = cx.deps.pii.seal(JSON.stringify(content), aad(f, full));
  list(f).push(full);
  return full;
}

const open = (cx: Cdd, f: TransferFlowContext, m: CddRecord): unknown => JSON.parse(cx.deps.pii.open(m.sealed, aad(f, m)));

/** The `cdd` callback: signed with the counterparty's key kept with the transfer, bound to the signed status. */
async function onCdd(cx: Cdd, f: TransferFlowContext, a: AdapterContext, body: Record<string, unknown>): Promise<Answer> {
  const read = readCdd(body);
  if (!read.ok || read.value.transfer_id !== f.row.providerExternalId) return err(400, "Invalid callback");
  const m = read.value;
  const key = await cx.h.peerKey(f, a);
  if (!key) return err(503, "UNKNOWN_PEER");
  if (!verifyObject(body, key)) return err(401, "INVALID_SIGNATURE");
  const ms = list(f);
  const seen = ms.find((x) => x.direction === "inbound" && x.wireId === m.message_id);
  if (seen) return seen.signature === m.signature ? OK : err(400, "INCOMING_REPLAY_MISMATCH");
  if (!directionFits(f.row.direction as "incoming" | "outgoing", m.type, true)) return err(400, "CDD_DIRECTION_MISMATCH");
  if (FINAL.includes(f.row.state)) return err(400, "TRANSFER_CLOSED");
  if (ms.length >= MAX_MESSAGES) return err(400, "TOO_MANY_MESSAGES");
  let inReplyToId: string | null = null;
  if (m.type === "RESPOND_CDD") {
    const req = ms.find((x) => x.direction === "outbound" && x.type === "REQUEST_CDD" && x.wireId === m.in_reply_to);
    if (!req) return err(400, "CDD_REQUEST_NOT_FOUND");
    inReplyToId = req.id;
  }
  const st = await cx.h.status(f, a);
  if (!st.ok) return st.status && st.status !== 200 ? err(st.status, `HTTP_${st.status}`) : err(503, st.code);
  if (!(st.body.transferData.cdd ?? []).some((x) => x.message_id === m.message_id && x.signature === m.signature)) return err(400, "CDD_BINDING_MISMATCH");
  // A text message arrives as its raw text (the utility encrypts strings unquoted), an object as its JSON.
  const plain = decryptPrivate(m.private_info, credsOf(a).privateKey);
  if (plain === null) return err(400, "UNDECRYPTABLE_PAYLOAD");
  let content: unknown;
  let fk: string | undefined;
  if (m.type === "REQUEST_CDD") {
    const fields = readFields(plain);
    if (!fields.ok) return err(400, "Invalid callback");
    content = fields.fields;
    fk = fieldsKey(fields.fields);
  } else {
    content = asInformation(plain);
    if (content === null) return err(400, "Invalid callback");
    if (informationTooLarge(content)) return err(400, "INFORMATION_TOO_LARGE");
  }
  const r = record(cx, f, { id: newId("cdd", f.now), wireId: m.message_id, direction: "inbound", type: m.type, status: "received", inReplyToId, idempotencyKey: null, signature: m.signature, ...(fk ? { fieldsKey: fk } : {}) }, content);
  f.note("cdd_received", { provider: "provider_e", messageId: r.id, type: r.type });
  f.audit("transfer.information_received", { provider: "provider_e", messageId: r.id, type: r.type });
  holdFor(f, m.type === "REQUEST_CDD" ? "CDD_REQUEST_RECEIVED" : "CDD_INFORMATION_RECEIVED", r.id);
  return OK;
}

function queue(f: TransferFlowContext, m: CddRecord): void {
  f.tell(`transfer:${f.row.id}`, { type: "providerEvent", provider: "provider_e", event: { kind: "cddSend", messageId: m.id }, companyId: f.companyId, environment: f.environment, actor: f.actor });
}

/** The caller's action (validated by the route). */
async function action(cx: Cdd, f: TransferFlowContext, a: AdapterContext, act: CddAction): Promise<Outcome<Record<string, unknown>>> {
  const ms = list(f);
  if (act.action === "review") return review(cx, f, a, act.reviewedMessageIds, act.note);
  if (act.action === "retry") {
    const m = ms.find((x) => x.id === act.messageId && x.direction === "outbound");
    if (!m) return invalid("messageId", "no message of ours with this ID");
    if (m.status !== "failed") return invalid("messageId", `the message is ${m.status}: only a failed message is sent again`);
    const st = await cx.h.status(f, a);
    if (!st.ok) return providerRefusal(st);
    m.status = "queued";
    delete m.error;
    f.note("cdd_retry", { provider: "provider_e", messageId: m.id });
    queue(f, m);
    return { ok: true, status: 202, data: { messageId: m.id, status: m.status } };
  }
  const again = ms.find((x) => x.idempotencyKey === act.idempotencyKey);
  if (again) return { ok: true, status: 202, data: { messageId: again.id, status: again.status } };
  if (!directionFits(f.row.direction as "incoming" | "outgoing", act.action, false))
    return refusal("CDD_DIRECTION_MISMATCH", f.row.direction === "incoming" ? "On an incoming transfer we ask; the originator VASP answers" : "On an outgoing transfer the beneficiary VASP asks; we reply or post");
  if (FINAL.includes(f.row.state)) return invalid("action", `the transfer is ${f.row.state}: no more information is exchanged`);
  if (ms.length >= MAX_MESSAGES) return invalid("action", `a transfer keeps at most ${MAX_MESSAGES} information messages`);
  let inReplyToId: string | null = null;
  let content: unknown;
  let fk: string | undefined;
  if (act.action === "request") {
    if (ms.some((x) => x.direction === "outbound" && x.type === "REQUEST_CDD" && x.reviewedAt === null)) return refusal("CDD_REQUEST_ALREADY_OPEN", "The last request has not been reviewed yet");
    fk = fieldsKey(act.fields);
    if (ms.some((x) => x.direction === "outbound" && x.type === "REQUEST_CDD" && x.fieldsKey === fk)) return refusal("CDD_IDENTICAL_REQUEST_ALREADY_SENT", "The same fields were asked before");
    content = act.fields;
  } else if (act.action === "reply") {
    const req = ms.find((x) => x.id === act.requestId && x.direction === "inbound" && x.type === "REQUEST_CDD" && x.reviewedAt === null);
    if (!req) return refusal("CDD_REQUEST_NOT_FOUND", "No received request under review has this ID", { requestId: act.requestId });
    if (ms.some((x) => x.direction === "outbound" && x.type === "RESPOND_CDD" && x.inReplyToId === req.id)) return refusal("CDD_REPLY_ALREADY_QUEUED", "This request has been answered already", { requestId: req.id });
    inReplyToId = req.id;
    content = act.information;
  } else content = act.information;
  // The provider still knows the transfer (its refusal is the caller's answer); the send itself is in the background.
  const st = await cx.h.status(f, a);
  if (!st.ok) return providerRefusal(st);
  const id = newId("cdd", f.now);
  const type = act.action === "request" ? "REQUEST_CDD" : act.action === "reply" ? "RESPOND_CDD" : "POST_CDD";
  const m = record(cx, f, { id, wireId: id, direction: "outbound", type, status: "queued", inReplyToId, idempotencyKey: act.idempotencyKey, ...(fk ? { fieldsKey: fk } : {}) }, content);
  f.note("cdd_queued", { provider: "provider_e", messageId: m.id, type });
  f.audit("transfer.information_queued", { provider: "provider_e", messageId: m.id, type });
  if (type === "REQUEST_CDD") holdFor(f, "CDD_REQUEST_SENT", m.id);
  queue(f, m);
  return { ok: true, status: 202, data: { messageId: m.id, status: m.status } };
}

/** The background send: signed and recorded before the first attempt (a replay resends the same body), then sent. */
async function sendOne(cx: Cdd, f: TransferFlowContext, a: AdapterContext, messageId: string): Promise<void> {
  const ms = list(f);
  const m = ms.find((x) => x.id === messageId);
  if (!m || m.direction !== "outbound" || m.status !== "queued") return;
  if (!m.wire) {
    const key = await cx.h.peerKey(f, a);
    if (!key) {
      m.status = "failed";
      m.error = "UNKNOWN_PEER";
      return;
    }
    const replyTo = m.inReplyToId ? ms.find((x) => x.id === m.inReplyToId)?.wireId : undefined;
    m.wire = signObject(
      { transfer_id: f.row.providerExternalId ?? "", message_id: m.wireId, type: m.type, ...(replyTo ? { in_reply_to: replyTo } : {}), private_info: encryptObject(open(cx, f, m), key), data_dt: f.at },
      credsOf(a).privateKey,
    );
    await f.checkpoint();
  }
  const r = await cx.h.send(f, a, PATH.cdd, m.wire);
  if (r.ok) {
    m.status = "sent";
    m.sentAt = f.at;
    delete m.error;
    // The signed body is kept only while a resend may need it (a failed send is retried unchanged): once the provider
    // has it, it is dropped so the flow state saved with every message stays small.
    delete m.wire;
    f.note("cdd_sent", { provider: "provider_e", messageId: m.id });
  } else {
    m.status = "failed";
    m.error = r.code;
    f.note("cdd_send_failed", { provider: "provider_e", messageId: m.id, code: r.code });
  }
}

/** Part 3: the review lists every unreviewed message, with everything delivered and answered; then the hold is released. */
async function review(cx: Cdd, f: TransferFlowContext, a: AdapterContext, ids: string[], note: string): Promise<Outcome<Record<string, unknown>>> {
  const ms = list(f);
  const bad = reviewRefusal(ms, ids);
  if (bad) {
    const text = { CDD_REVIEW_CHANGED: "The review must list every unreviewed message (the messages changed)", CDD_DELIVERY_PENDING: "A message of ours is not delivered yet", CDD_RESPONSE_REQUIRED: "A request is not answered yet" }[bad.code];
    return refusal(bad.code, text, { messageIds: bad.ids });
  }
  const fs = f.flowState<CddState>();
  for (const m of ms) if (m.reviewedAt === null && (ids.includes(m.id) || m.direction === "outbound")) m.reviewedAt = f.at;
  const r = record(cx, f, { id: newId("cdd", f.now), wireId: "", direction: "internal", type: "REVIEW", status: "reviewed", inReplyToId: null, idempotencyKey: null }, { note, reviewedMessageIds: ids });
  r.reviewedAt = f.at;
  f.note("cdd_reviewed", { provider: "provider_e", messageId: r.id, reviewed: ids.length });
  f.audit("transfer.information_reviewed", { provider: "provider_e", messageId: r.id, reviewed: ids.length });
  const hold = fs.cddHold;
  delete fs.cddHold;
  if (hold?.approved && f.row.state === "held" && f.row.status === "pending") {
    // Approved when the hold began: back to awaiting_counterparty, and the counterparty screened again.
    f.change("awaiting_counterparty", { status: "approved" }, "cdd_hold_released", { provider: "provider_e" });
    const side = f.row.direction === "outgoing" ? "beneficiary" : "originator";
    await f.screenCounterparty(f.persons(side), side, { onBlock: "hold", eachAlone: true });
  }
  if (f.row.direction === "outgoing" && f.row.providerExternalId && !FINAL.includes(f.row.state)) {
    // Part 3: the provider's status is read after a review.
    const st = await cx.h.status(f, a);
    if (st.ok) await cx.h.applyOutgoing(f, a, st.body);
  }
  return { ok: true, status: 202, data: { status: "reviewed" } };
}

/** Part 1 GET: `pending` and the messages, content opened; a received request of ours to answer carries a draft. */
async function view(cx: Cdd, f: TransferFlowContext): Promise<{ pending: boolean; messages: CddView[] }> {
  const ms = list(f);
  let identity: Awaited<ReturnType<ProviderEFlowLookups["originatorIdentity"]>> | undefined;
  const messages: CddView[] = [];
  for (const m of ms) {
    const content = open(cx, f, m);
    const v: CddView = { id: m.id, direction: m.direction, type: m.type, status: m.status, inReplyToId: m.inReplyToId, createdAt: m.createdAt, sentAt: m.sentAt ?? null, reviewedAt: m.reviewedAt, content };
    if (m.error) v.error = m.error;
    if (m.direction === "inbound" && m.type === "REQUEST_CDD" && f.row.direction === "outgoing" && !ms.some((x) => x.type === "RESPOND_CDD" && x.inReplyToId === m.id)) {
      identity ??= await cx.deps.lookups.originatorIdentity(f.companyId, f.environment, f.row.id);
      v.draft = draftAnswer(content as RequestedFields, identity);
    }
    messages.push(v);
  }
  return { pending: isPending(ms), messages };
}

/** What the information-request steps use: the sealer and lookups, and the flow's own reads and sends. */
interface Cdd {
  deps: { pii: Sealer; lookups: ProviderEFlowLookups };
  h: CddHelpers;
}

export function cddHandlers(deps: { pii: Sealer; lookups: ProviderEFlowLookups }, h: CddHelpers) {
  const cx: Cdd = { deps, h };
  return {
    onCdd: (f: TransferFlowContext, a: AdapterContext, body: Record<string, unknown>) => onCdd(cx, f, a, body),
    action: (f: TransferFlowContext, a: AdapterContext, act: CddAction) => action(cx, f, a, act),
    sendOne: (f: TransferFlowContext, a: AdapterContext, messageId: string) => sendOne(cx, f, a, messageId),
    view: (f: TransferFlowContext) => view(cx, f),
    pending: (f: TransferFlowContext) => isPending(list(f)),
  };
}
