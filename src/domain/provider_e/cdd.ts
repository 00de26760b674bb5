// provider_e information requests (CDD) without I/O (Part 1 "Information requests", Part 3 "provider_e transfers →
// Information requests"): the actions as validated, the requested fields in one canonical form, who may do what in
// which direction, what a review needs, the draft answer drawn from a verified identity, masking. Time is passed in.
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Issue } from "../errors.ts";
import type { Person } from "../ivms101/index.ts";

export type CddType = "REQUEST_CDD" | "RESPOND_CDD" | "POST_CDD" | "REVIEW";
export type CddDirection = "inbound" | "outbound" | "internal";
/** Outbound: queued → sent, or failed (retry → queued). Inbound: received. Internal (a review): reviewed. */
export type CddStatus = "queued" | "sent" | "failed" | "received" | "reviewed";

/** One message as the transfer's flow keeps it (content sealed; the wire body as sent, for an identical resend). */
export interface CddRecord {
  id: string;
  /** `message_id` on the wire: ours is our own ID; theirs as the counterparty named it. */
  wireId: string;
  direction: CddDirection;
  type: CddType;
  status: CddStatus;
  inReplyToId: string | null;
  idempotencyKey: string | null;
  /** Sealed JSON of the content (fields asked, information given, or the review). */
  sealed: string;
  /** Canonical form of the fields asked (requests only): an identical request is refused. */
  fieldsKey?: string;
  /** The signature of the message on the wire (inbound: repeats are recognised by it). */
  signature?: string;
  /** Our signed wire body, recorded before the first send, sent again unchanged by `retry` after a failure; dropped once sent. */
  wire?: Record<string, unknown>;
  /** The provider's refusal code of the last failed send. */
  error?: string;
  createdAt: string;
  sentAt?: string;
  reviewedAt: string | null;
}

/** Part 3, Limits: information object 50 KB (read as 50 × 1024 bytes of its JSON text, UTF-8). */
export const MAX_INFORMATION_BYTES = 50 * 1024;
/** Not shown: a review note of at most 2,000 characters; at most 100 messages named in one review; 50 messages per transfer. */
export const MAX_NOTE = 2000;
export const MAX_REVIEWED_IDS = 100;
export const MAX_MESSAGES = 50;
export const MAX_OTHER_INFO = 2000;

/** The fields each list-valued item may name (IVMS101 field names, snake case as the provider writes them). */
export const FIELD_LISTS = {
  geographic_address: [
    "address_type", "department", "sub_department", "street_name", "building_number", "building_name", "floor", "post_box", "room",
    "post_code", "town_name", "town_location_name", "district_name", "country_sub_division", "address_line", "country",
  ],
  national_identification: ["national_identifier", "national_identifier_type", "country_of_issue", "registration_authority"],
  date_and_place_of_birth: ["date_of_birth", "place_of_birth"],
} as const;
export const FIELD_FLAGS = ["customer_identification", "country_of_residence"] as const;

export interface RequestedFields {
  geographic_address?: string[];
  national_identification?: string[];
  date_and_place_of_birth?: string[];
  customer_identification?: true;
  country_of_residence?: true;
  other_cdd_info?: string;
}

export type CddAction =
  | { action: "request"; idempotencyKey: string; fields: RequestedFields }
  | { action: "reply"; idempotencyKey: string; requestId: string; information: Record<string, unknown> }
  | { action: "post"; idempotencyKey: string; information: Record<string, unknown> }
  | { action: "review"; reviewedMessageIds: string[]; note: string }
  | { action: "retry"; messageId: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

const ALLOWED: Record<CddAction["action"], string[]> = {
  request: ["action", "idempotencyKey", "fields"],
  reply: ["action", "idempotencyKey", "requestId", "information"],
  post: ["action", "idempotencyKey", "information"],
  review: ["action", "reviewedMessageIds", "note"],
  retry: ["action", "messageId"],
};

/** The fields of a request, checked; `issues` paths are prefixed with `prefix`. */
export function readFields(v: unknown, prefix = "fields"): { ok: true; fields: RequestedFields } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  if (!isObj(v)) return { ok: false, issues: [{ path: prefix, message: "must be an object naming at least one field" }] };
  const out: RequestedFields = {};
  for (const [k, val] of Object.entries(v)) {
    const path = `${prefix}.${k}`;
    if (k in FIELD_LISTS) {
      const allowed = FIELD_LISTS[k as keyof typeof FIELD_LISTS] as readonly string[];
      if (!Array.isArray(val) || val.length === 0) issues.push({ path, message: `must be a non-empty list of: ${allowed.join(", ")}` });
      else if (val.some((x) => typeof x !== "string" || !allowed.includes(x))) issues.push({ path, message: `may name only: ${allowed.join(", ")}` });
      else if (new Set(val).size !== val.length) issues.push({ path, message: "names a field twice" });
      else out[k as keyof typeof FIELD_LISTS] = [...(val as string[])];
    } else if ((FIELD_FLAGS as readonly string[]).includes(k)) {
      if (val !== true) issues.push({ path, message: "must be true" });
      else out[k as (typeof FIELD_FLAGS)[number]] = true;
    } else if (k === "other_cdd_info") {
      if (typeof val !== "string" || val.trim() === "") issues.push({ path, message: "must be non-empty text" });
      else if (Array.from(val).length > MAX_OTHER_INFO) issues.push({ path, message: `must be at most ${MAX_OTHER_INFO} characters` });
      else out.other_cdd_info = val;
    } else issues.push({ path, message: "is not a field that can be asked" });
  }
  if (issues.length) return { ok: false, issues };
  if (Object.keys(out).length === 0) return { ok: false, issues: [{ path: prefix, message: "must name at least one field" }] };
  return { ok: true, fields: out };
}

/**
 * One digest per set of fields asked (lists sorted, keys sorted, the free text trimmed): two requests asking the same
 * are recognised without keeping the question's text in the clear.
 */
export function fieldsKey(f: RequestedFields): string {
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(f).sort()) {
    const v = f[k as keyof RequestedFields];
    o[k] = Array.isArray(v) ? [...v].sort() : typeof v === "string" ? v.trim() : v;
  }
  return bytesToHex(sha256(new TextEncoder().encode(JSON.stringify(o))));
}

function readInformation(v: unknown, issues: Issue[]): Record<string, unknown> | null {
  if (!isObj(v)) {
    issues.push({ path: "information", message: "must be a JSON object" });
    return null;
  }
  if (Object.keys(v).length === 0) issues.push({ path: "information", message: "must not be empty" });
  else if (bytes(v) > MAX_INFORMATION_BYTES) issues.push({ path: "information", message: `must be at most ${MAX_INFORMATION_BYTES} bytes as JSON` });
  return v;
}

/** Part 1: one action per call; anything else is INVALID_INFORMATION_REQUEST with these issues. */
export function readCddAction(body: unknown): { ok: true; action: CddAction } | { ok: false; issues: Issue[] } {
  if (!isObj(body)) return { ok: false, issues: [{ path: "(body)", message: "must be a JSON object with an action" }] };
  const action = body.action;
  if (typeof action !== "string" || !(action in ALLOWED))
    return { ok: false, issues: [{ path: "action", message: "must be one of request, reply, post, review, retry" }] };
  const a = action as CddAction["action"];
  const issues: Issue[] = [];
  for (const k of Object.keys(body)) if (!ALLOWED[a].includes(k)) issues.push({ path: k, message: `is not taken by ${a}` });
  const key = () => {
    if (typeof body.idempotencyKey !== "string" || !UUID.test(body.idempotencyKey)) issues.push({ path: "idempotencyKey", message: "must be a UUID" });
    return String(body.idempotencyKey).toLowerCase();
  };
  switch (a) {
    case "request": {
      const idempotencyKey = key();
      const f = readFields(body.fields);
      if (!f.ok) issues.push(...f.issues);
      return issues.length || !f.ok ? { ok: false, issues } : { ok: true, action: { action: a, idempotencyKey, fields: f.fields } };
    }
    case "reply": {
      const idempotencyKey = key();
      if (typeof body.requestId !== "string" || body.requestId === "" || body.requestId.length > 100) issues.push({ path: "requestId", message: "must be the ID of a received request" });
      const information = readInformation(body.information, issues);
      return issues.length ? { ok: false, issues } : { ok: true, action: { action: a, idempotencyKey, requestId: body.requestId as string, information: information! } };
    }
    case "post": {
      const idempotencyKey = key();
      const information = readInformation(body.information, issues);
      return issues.length ? { ok: false, issues } : { ok: true, action: { action: a, idempotencyKey, information: information! } };
    }
    case "review": {
      const ids = body.reviewedMessageIds;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_REVIEWED_IDS || ids.some((x) => typeof x !== "string" || x === ""))
        issues.push({ path: "reviewedMessageIds", message: `must list 1 to ${MAX_REVIEWED_IDS} message IDs` });
      else if (new Set(ids).size !== ids.length) issues.push({ path: "reviewedMessageIds", message: "lists a message twice" });
      if (typeof body.note !== "string" || body.note.trim() === "") issues.push({ path: "note", message: "is required text" });
      else if (Array.from(body.note).length > MAX_NOTE) issues.push({ path: "note", message: `must be at most ${MAX_NOTE} characters` });
      return issues.length ? { ok: false, issues } : { ok: true, action: { action: a, reviewedMessageIds: ids as string[], note: body.note as string } };
    }
    case "retry":
      if (typeof body.messageId !== "string" || body.messageId === "") issues.push({ path: "messageId", message: "must be the ID of a failed message" });
      return issues.length ? { ok: false, issues } : { ok: true, action: { action: a, messageId: body.messageId as string } };
  }
}

/**
 * Part 3: information flows one way. On an incoming transfer (we are the beneficiary VASP) we ask and receive
 * answers and unasked information; on an outgoing one we receive requests and reply or post.
 */
export function directionFits(direction: "incoming" | "outgoing", what: "request" | "reply" | "post" | CddType, inbound: boolean): boolean {
  if (inbound) return direction === "incoming" ? what === "RESPOND_CDD" || what === "POST_CDD" : what === "REQUEST_CDD";
  return direction === "incoming" ? what === "request" : what === "reply" || what === "post";
}

/** Messages awaiting review: every received message and every request we sent, until a review lists it. */
export const awaitsReview = (m: CddRecord) => m.reviewedAt === null && (m.direction === "inbound" || (m.direction === "outbound" && m.type === "REQUEST_CDD"));

/** `pending` of Part 1: a request or answer waits for review (the transfer is held until then). */
export const isPending = (ms: CddRecord[]) => ms.some(awaitsReview);

/** Whether a request has its answer (ours for a received request; theirs for one we sent). */
export const isAnswered = (ms: CddRecord[], request: CddRecord) => ms.some((m) => m.type === "RESPOND_CDD" && m.inReplyToId === request.id && m.direction !== request.direction);

export type ReviewRefusal = "CDD_REVIEW_CHANGED" | "CDD_DELIVERY_PENDING" | "CDD_RESPONSE_REQUIRED";

/**
 * Part 3: a review lists every unreviewed message (else CDD_REVIEW_CHANGED: something arrived or was reviewed since),
 * needs every message we sent delivered (CDD_DELIVERY_PENDING) and every request answered (CDD_RESPONSE_REQUIRED).
 */
export function reviewRefusal(ms: CddRecord[], listed: string[]): { code: ReviewRefusal; ids: string[] } | null {
  const open = ms.filter(awaitsReview).map((m) => m.id);
  const want = new Set(open);
  if (listed.length !== want.size || listed.some((id) => !want.has(id))) return { code: "CDD_REVIEW_CHANGED", ids: open };
  const undelivered = ms.filter((m) => m.direction === "outbound" && m.status !== "sent").map((m) => m.id);
  if (undelivered.length) return { code: "CDD_DELIVERY_PENDING", ids: undelivered };
  const unanswered = ms.filter((m) => m.type === "REQUEST_CDD" && !isAnswered(ms, m)).map((m) => m.id);
  if (unanswered.length) return { code: "CDD_RESPONSE_REQUIRED", ids: unanswered };
  return null;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function pick(source: Record<string, unknown> | undefined, names: string[]): Record<string, unknown> | null {
  if (!source) return null;
  const out: Record<string, unknown> = {};
  for (const n of names) {
    const v = source[camel(n)];
    if (v !== undefined && v !== null && v !== "") out[n] = v;
  }
  return Object.keys(out).length ? out : null;
}

/**
 * Part 1: a request received for our customer carries a draft answer drawn from the customer's verified identity
 * (its first person); what the identity does not hold is listed in `missing` (and `other_cdd_info` is always the
 * caller's to write). Nothing is sent until the caller replies.
 */
export function draftAnswer(fields: RequestedFields, identity: Person[] | null): { information: Record<string, unknown>; missing: string[] } {
  const p = identity?.[0];
  const person = (p?.naturalPerson ?? p?.legalPerson) as Record<string, unknown> | undefined;
  const information: Record<string, unknown> = {};
  const missing: string[] = [];
  const put = (k: string, v: unknown) => (v === null || v === undefined ? missing.push(k) : (information[k] = v));
  if (fields.geographic_address) put("geographic_address", pick((person?.geographicAddress as Record<string, unknown>[] | undefined)?.[0], fields.geographic_address));
  if (fields.national_identification) put("national_identification", pick(person?.nationalIdentification as Record<string, unknown> | undefined, fields.national_identification));
  if (fields.date_and_place_of_birth) put("date_and_place_of_birth", pick(person?.dateAndPlaceOfBirth as Record<string, unknown> | undefined, fields.date_and_place_of_birth));
  if (fields.customer_identification) put("customer_identification", person?.customerIdentification ?? null);
  if (fields.country_of_residence) put("country_of_residence", person?.countryOfResidence ?? person?.countryOfRegistration ?? null);
  if (fields.other_cdd_info !== undefined) missing.push("other_cdd_info");
  return { information, missing };
}

/** Person data hidden whole for a role without pii:view: every text and number becomes `***`, the shape is kept. */
export function maskDeep(v: unknown): unknown {
  if (typeof v === "string" || typeof v === "number") return "***";
  if (Array.isArray(v)) return v.map(maskDeep);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskDeep(x)]));
  return v;
}

/** A text answer on the wire reads as `{ additional_information: <text> }` (Part 3). */
export const asInformation = (v: unknown): Record<string, unknown> | null => (typeof v === "string" ? { additional_information: v } : isObj(v) ? v : null);

export const informationTooLarge = (v: unknown) => bytes(v) > MAX_INFORMATION_BYTES;
