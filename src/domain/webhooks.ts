// Webhooks, pure: body validation, the event catalogue and bodies, the signature, URL masking, retry and auto-disable rules (Part 2).
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { Issue } from "./errors.ts";
import { normalizeForSearch } from "./customers.ts";
import { isBlank } from "./text.ts";

/** Part 2, Events: the catalogue. `test.ping` is sent by the test endpoint only and cannot be subscribed to. */
export const EVENT_TYPES = [
  "transfer.created",
  "transfer.updated",
  "transfer.completed",
  "transfer.accepted",
  "transfer.rejected",
  "transfer.cancelled",
  "transfer.held",
  "transfer.failed",
  "case.created",
  "case.updated",
  "case.resolved",
  "compliance.screening_complete",
  "audit.checkpoint",
  "test.ping",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const SUBSCRIBABLE_EVENTS: readonly EventType[] = EVENT_TYPES.filter((t) => t !== "test.ping");

export const WEBHOOK_STATUSES = ["active", "paused", "disabled"] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const DELIVERY_STATUSES = ["pending", "sent", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Part 2, Limits. */
export const LIMITS = { name: 100, url: 2048, description: 500, search: 100 } as const;
/** Part 2, Events and Limits: timeout 10 s, 3 attempts, 1 s then 5 s between them. */
export const DELIVERY = { timeoutMs: 10_000, maxAttempts: 3, retryDelaysMs: [1_000, 5_000] } as const;
export const SIGNATURE = { alg: "hmac-sha256", maxAgeSeconds: 300, maxFutureSeconds: 60 } as const;
export const RECENT_DELIVERIES = 20;

/** Part 2, Events: a transfer event's `data`, exactly these fields. */
export const TRANSFER_EVENT_FIELDS = [
  "id", "externalId", "direction", "state", "amount", "asset", "network", "originatingVaspId", "originatingVaspName", "beneficiaryVaspId",
  "beneficiaryVaspName", "complianceStatus", "originatorStatus", "beneficiaryStatus", "createdAt", "updatedAt",
] as const;
/** Part 2, Events: a case event's `data`; free text (title, description, notes) is left out. */
export const CASE_EVENT_FIELDS = [
  "id", "caseNumber", "type", "category", "priority", "status", "resolution", "assigneeId", "ruleId", "transferIds", "source", "createdAt", "updatedAt",
  "resolvedAt",
] as const;

export interface WebhookInput {
  name: string;
  url: string;
  events: string[];
  description: string | null;
}

export interface WebhookChange {
  name?: string;
  url?: string;
  events?: string[];
  status?: WebhookStatus;
  description?: string | null;
  regenerateSecret?: boolean;
}

/** A subscription as a change is decided against (its events parsed). */
export interface Subscription {
  name: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  description: string | null;
}

/**
 * A change to a subscription: the fields whose values move (a field sent with its current value does not), and the
 * audit entry's detail; null when nothing moves and no new secret is made (nothing written, nothing audited).
 */
export function decideSubscriptionChange(
  current: Subscription,
  change: WebhookChange,
): { set: Partial<Subscription>; fields: string[]; detail: Record<string, unknown> } | null {
  const set: Partial<Subscription> = {};
  if (change.name !== undefined && change.name !== current.name) set.name = change.name;
  if (change.url !== undefined && change.url !== current.url) set.url = change.url;
  if (change.events !== undefined && JSON.stringify(change.events) !== JSON.stringify(current.events)) set.events = change.events;
  if (change.description !== undefined && change.description !== current.description) set.description = change.description;
  if (change.status !== undefined && change.status !== current.status) set.status = change.status;
  const fields = Object.keys(set);
  const secret = change.regenerateSecret === true;
  if (fields.length === 0 && !secret) return null;
  return { set, fields, detail: { fields, ...(secret ? { secretRegenerated: true } : {}), ...(set.status ? { status: set.status } : {}) } };
}

/** Body problems are 422 VALIDATION_ERROR; a URL that cannot be accepted is 422 INVALID_URL (checked after the body). */
export type Checked<T> = { ok: true; value: T } | { ok: false; issues: Issue[] } | { ok: false; issues: []; invalidUrl: string };

const chars = (s: string) => Array.from(s).length;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The URL's own form (the address it resolves to is the adapter's check): absolute http(s), no credentials, at most 2,048 characters. */
export function urlProblem(url: string): string | null {
  if (chars(url) > LIMITS.url) return `the URL is longer than ${LIMITS.url} characters`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "not a valid absolute URL";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return `the scheme must be https, not ${u.protocol.replace(/:$/, "")}`;
  if (u.username || u.password) return "the URL must not carry credentials";
  return null;
}

function checkName(v: unknown, issues: Issue[]): void {
  if (typeof v !== "string") issues.push({ path: "name", message: "must be text" });
  else if (isBlank(v)) issues.push({ path: "name", message: "must not be blank" });
  else if (chars(v) > LIMITS.name) issues.push({ path: "name", message: `must be at most ${LIMITS.name} characters` });
}

function checkDescription(v: unknown, issues: Issue[]): void {
  if (v === null) return;
  if (typeof v !== "string") issues.push({ path: "description", message: "must be text or null" });
  else if (chars(v) > LIMITS.description) issues.push({ path: "description", message: `must be at most ${LIMITS.description} characters` });
}

/** One or more subscribable event types, or `["*"]` alone; duplicates are dropped, order kept. */
function checkEvents(v: unknown, issues: Issue[]): string[] {
  if (!Array.isArray(v) || v.length === 0) {
    issues.push({ path: "events", message: 'must be a non-empty array of event types, or ["*"] for all' });
    return [];
  }
  const out: string[] = [];
  v.forEach((t, i) => {
    if (typeof t !== "string") issues.push({ path: `events.${i}`, message: "must be an event type" });
    else if (t === "*") {
      if (v.length !== 1) issues.push({ path: `events.${i}`, message: '"*" stands for all events and must be alone' });
    } else if (t === "test.ping") issues.push({ path: `events.${i}`, message: "test.ping cannot be subscribed to (the test endpoint sends it)" });
    else if (!(SUBSCRIBABLE_EVENTS as readonly string[]).includes(t)) issues.push({ path: `events.${i}`, message: `is not an event type (${SUBSCRIBABLE_EVENTS.join(", ")})` });
    if (typeof t === "string" && !out.includes(t)) out.push(t);
  });
  return out;
}

function checkUrl(v: unknown, issues: Issue[]): { url?: string; invalid?: string } {
  if (typeof v !== "string") {
    issues.push({ path: "url", message: "must be text" });
    return {};
  }
  const problem = urlProblem(v);
  return problem ? { invalid: problem } : { url: v };
}

function unknownFields(body: Record<string, unknown>, allowed: readonly string[], issues: Issue[]): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) issues.push({ path: k, message: "is not an accepted field" });
}

export function validateCreateWebhook(body: unknown): Checked<WebhookInput> {
  if (!isObject(body)) return { ok: false, issues: [{ path: "", message: "the body must be a JSON object" }] };
  const issues: Issue[] = [];
  unknownFields(body, ["name", "url", "events", "description"], issues);
  for (const f of ["name", "url", "events"] as const) if (body[f] === undefined) issues.push({ path: f, message: "is required" });
  if (body.name !== undefined) checkName(body.name, issues);
  const events = body.events === undefined ? [] : checkEvents(body.events, issues);
  if (body.description !== undefined) checkDescription(body.description, issues);
  const url = body.url === undefined ? {} : checkUrl(body.url, issues);
  if (issues.length) return { ok: false, issues };
  if (url.invalid) return { ok: false, issues: [], invalidUrl: url.invalid };
  return { ok: true, value: { name: body.name as string, url: url.url!, events, description: (body.description as string | null | undefined) ?? null } };
}

export function validateUpdateWebhook(body: unknown): Checked<WebhookChange> {
  if (!isObject(body)) return { ok: false, issues: [{ path: "", message: "the body must be a JSON object" }] };
  const issues: Issue[] = [];
  unknownFields(body, ["name", "url", "events", "status", "description", "regenerateSecret"], issues);
  if (Object.keys(body).length === 0) issues.push({ path: "", message: "name at least one of name, url, events, status, description, regenerateSecret" });
  const out: WebhookChange = {};
  if (body.name !== undefined) (checkName(body.name, issues), (out.name = body.name as string));
  if (body.events !== undefined) out.events = checkEvents(body.events, issues);
  if (body.description !== undefined) (checkDescription(body.description, issues), (out.description = body.description as string | null));
  if (body.status !== undefined) {
    if (!(WEBHOOK_STATUSES as readonly unknown[]).includes(body.status)) issues.push({ path: "status", message: `must be one of ${WEBHOOK_STATUSES.join(", ")}` });
    else out.status = body.status as WebhookStatus;
  }
  if (body.regenerateSecret !== undefined) {
    if (typeof body.regenerateSecret !== "boolean") issues.push({ path: "regenerateSecret", message: "must be true or false" });
    else out.regenerateSecret = body.regenerateSecret;
  }
  const url = body.url === undefined ? {} : checkUrl(body.url, issues);
  if (issues.length) return { ok: false, issues };
  if (url.invalid) return { ok: false, issues: [], invalidUrl: url.invalid };
  if (url.url !== undefined) out.url = url.url;
  return { ok: true, value: out };
}

/** Part 2, Webhook subscription: a key that may not change webhooks sees the origin followed by `/***`. */
export function maskUrl(url: string): string {
  try {
    return `${new URL(url).origin}/***`;
  } catch {
    return "/***";
  }
}

/** Whether a subscription to `events` receives an event of `type` (never `test.ping`: Part 2, Events). */
export function subscribes(events: readonly string[], type: string): boolean {
  if (type === "test.ping") return false;
  // Audit checkpoints go to the subscriptions that name the type (designed here): `["*"]` keeps meaning Part 2's catalogue.
  if (type === "audit.checkpoint") return events.includes(type);
  return events.includes("*") || events.includes(type);
}

/**
 * List search (Part 2, at most 100 characters): part of the ID, name, URL (as the caller sees it), status or
 * description, case- and accent-insensitive; or a whole event type the subscription receives (so `[*]` matches any).
 */
export function searchMatches(w: { id: string; name: string; url: string; status: string; description: string | null; events: readonly string[] }, search: string): boolean {
  const needle = normalizeForSearch(search);
  if (needle === "") return true;
  if ([w.id, w.name, w.url, w.status, w.description].some((s) => s !== null && normalizeForSearch(s).includes(needle))) return true;
  const type = search.trim();
  return (SUBSCRIBABLE_EVENTS as readonly string[]).includes(type) && subscribes(w.events, type);
}

function pick(data: unknown, fields: readonly string[]): Record<string, unknown> {
  const src = isObject(data) ? data : {};
  return Object.fromEntries(fields.map((f) => [f, src[f] ?? null]));
}

/**
 * The exact raw body sent and signed: `{event, timestamp, data}`. Transfer and case data are cut to the fields
 * Part 2 lists (no free text, whatever the producer wrote); other events' data as written.
 */
export function eventBody(type: string, timestamp: string, data: unknown): string {
  const d = type.startsWith("transfer.") ? pick(data, TRANSFER_EVENT_FIELDS) : type.startsWith("case.") ? pick(data, CASE_EVENT_FIELDS) : (data ?? {});
  return JSON.stringify({ event: type, timestamp, data: d });
}

/** HMAC-SHA256 over `<t>.<raw body>` with the subscription secret (its 64 hex characters as UTF-8), hex. */
export function signatureDigest(secret: string, t: number, body: string): string {
  return bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`${t}.${body}`)));
}

/** The X-Webhook-Signature header value: `t=<unix>,alg=hmac-sha256,sig=<hex>`. */
export function signatureHeader(secret: string, t: number, body: string): string {
  return `t=${t},alg=${SIGNATURE.alg},sig=${signatureDigest(secret, t, body)}`;
}

/** A new signing secret: 32 random bytes as 64 lower-case hex characters. */
export function newSecret(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** Delay before the next automatic attempt after `attemptsMade` attempts, or null when none is left. */
export function retryDelayMs(attemptsMade: number): number | null {
  if (attemptsMade >= DELIVERY.maxAttempts) return null;
  return DELIVERY.retryDelaysMs[attemptsMade - 1] ?? null;
}

/**
 * Automatic disabling (the spec leaves it open): a subscription is disabled once `failures` deliveries in a row
 * have failed (each after all its attempts) and the first of them failed at least `periodMs` ago. Both, so that
 * neither a burst of failures nor one failure a day disables a receiver that is down briefly or failing rarely.
 */
export interface AutoDisableRule {
  failures: number;
  periodMs: number;
}
export const DEFAULT_AUTO_DISABLE: AutoDisableRule = { failures: 50, periodMs: 24 * 3600 * 1000 };

/** `<failures>/<seconds>` (default `50/86400`) or `off`. Throws RangeError otherwise. */
export function parseAutoDisable(text: string | undefined): AutoDisableRule | null {
  if (text === undefined || text.trim() === "") return DEFAULT_AUTO_DISABLE;
  if (text.trim() === "off") return null;
  const m = /^\s*(\d{1,6})\s*\/\s*(\d{1,9})\s*$/.exec(text);
  if (!m || Number(m[1]) < 1) throw new RangeError(`must be <failures>/<seconds> (failures at least 1) or off, got "${text}"`);
  return { failures: Number(m[1]), periodMs: Number(m[2]) * 1000 };
}

export function shouldAutoDisable(consecutiveFailures: number, failingSince: number | null, now: number, rule: AutoDisableRule | null): boolean {
  if (!rule || failingSince === null) return false;
  return consecutiveFailures >= rule.failures && now - failingSince >= rule.periodMs;
}

/** The default of CARAVAN_EVENTS_RETENTION: 30 days. */
export const DEFAULT_EVENTS_RETENTION_MS = 30 * 24 * 3_600_000;

/**
 * `CARAVAN_EVENTS_RETENTION`: how long delivered events (and done webhook deliveries) are kept: a whole number with
 * a unit, `s`, `m`, `h` or `d` (`30d`, `12h`), at least one second; `off` keeps them forever. Unset: 30 days.
 * Returns null for `off`; throws with a message naming the variable otherwise.
 */
export function parseEventsRetention(text: string | undefined): number | null {
  if (text === undefined || text.trim() === "") return DEFAULT_EVENTS_RETENTION_MS;
  const t = text.trim();
  if (t === "off") return null;
  const m = /^([0-9]{1,9})([smhd])$/.exec(t);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
  if (!m || Number(m[1]) < 1) throw new Error(`CARAVAN_EVENTS_RETENTION must be a whole number with a unit s, m, h or d (like "30d") or "off"; got "${text}"`);
  return Number(m[1]) * unit[m[2] as keyof typeof unit];
}
