// Part 2 "Webhook subscription", "Events" and "Limits" without I/O: bodies, catalogue, event bodies, signature, verification helper, masking, search, retries, auto-disable.
import { test, expect, describe } from "bun:test";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import {
  CASE_EVENT_FIELDS,
  DEFAULT_AUTO_DISABLE,
  DELIVERY,
  EVENT_TYPES,
  SUBSCRIBABLE_EVENTS,
  TRANSFER_EVENT_FIELDS,
  eventBody,
  maskUrl,
  newSecret,
  parseAutoDisable,
  retryDelayMs,
  searchMatches,
  shouldAutoDisable,
  signatureHeader,
  subscribes,
  validateCreateWebhook,
  validateUpdateWebhook,
} from "../../src/domain/webhooks.ts";
import { verifyWebhookSignature } from "../../src/adapters/webhooks/verify.ts";

const valid = { name: "Ops", url: "https://hooks.example.com/caravan?token=abc", events: ["transfer.created"] };
const issues = (r: ReturnType<typeof validateCreateWebhook>) => (r.ok ? [] : r.issues.map((i) => i.path));
const independentSig = (secret: string, t: number, body: string) => bytesToHex(hmac(sha256, utf8ToBytes(secret), utf8ToBytes(`${t}.${body}`)));

describe("create body", () => {
  test("name, url, events required; description optional (null when absent)", () => {
    expect(validateCreateWebhook(valid)).toEqual({ ok: true, value: { ...valid, description: null } });
    expect(issues(validateCreateWebhook({}))).toEqual(["name", "url", "events"]);
    expect(issues(validateCreateWebhook([]))).toEqual([""]);
    expect(issues(validateCreateWebhook(null))).toEqual([""]);
  });

  test("limits: name 1–100, description 500, url 2,048 characters (counted as characters, not bytes)", () => {
    expect(validateCreateWebhook({ ...valid, name: "é".repeat(100) }).ok).toBe(true);
    expect(issues(validateCreateWebhook({ ...valid, name: "x".repeat(101) }))).toEqual(["name"]);
    expect(issues(validateCreateWebhook({ ...valid, name: "   " }))).toEqual(["name"]);
    expect(validateCreateWebhook({ ...valid, description: "d".repeat(500) }).ok).toBe(true);
    expect(issues(validateCreateWebhook({ ...valid, description: "d".repeat(501) }))).toEqual(["description"]);
    const base = "https://hooks.example.com/";
    expect(validateCreateWebhook({ ...valid, url: base + "a".repeat(2048 - base.length) }).ok).toBe(true);
    expect(validateCreateWebhook({ ...valid, url: base + "a".repeat(2049 - base.length) })).toEqual({ ok: false, issues: [], invalidUrl: "the URL is longer than 2048 characters" });
  });

  test("the URL: not a URL, another scheme or credentials are INVALID_URL; a URL that is not text is a VALIDATION_ERROR", () => {
    for (const url of ["not a url", "ftp://hooks.example.com/", "https://user:pw@hooks.example.com/", "javascript:alert(1)"]) {
      const r = validateCreateWebhook({ ...valid, url });
      expect(r.ok).toBe(false);
      expect("invalidUrl" in r).toBe(true);
    }
    expect(issues(validateCreateWebhook({ ...valid, url: 42 }))).toEqual(["url"]);
  });

  test("events: one or more catalogue types, or [*] alone; test.ping and unknown types refused; duplicates dropped", () => {
    expect(validateCreateWebhook({ ...valid, events: ["*"] }).ok).toBe(true);
    expect(issues(validateCreateWebhook({ ...valid, events: [] }))).toEqual(["events"]);
    expect(issues(validateCreateWebhook({ ...valid, events: "transfer.created" }))).toEqual(["events"]);
    expect(issues(validateCreateWebhook({ ...valid, events: ["*", "transfer.created"] }))).toEqual(["events.0"]);
    expect(issues(validateCreateWebhook({ ...valid, events: ["test.ping"] }))).toEqual(["events.0"]);
    expect(issues(validateCreateWebhook({ ...valid, events: ["transfer.created", "transfer.exploded", 7] }))).toEqual(["events.1", "events.2"]);
    const r = validateCreateWebhook({ ...valid, events: ["case.created", "case.created", "transfer.held"] });
    expect(r.ok && r.value.events).toEqual(["case.created", "transfer.held"]);
  });

  test("unknown fields are refused; body problems come before the URL's", () => {
    expect(issues(validateCreateWebhook({ ...valid, secret: "x" }))).toEqual(["secret"]);
    expect(issues(validateCreateWebhook({ ...valid, url: "ftp://x/", name: "" }))).toEqual(["name"]);
  });
});

describe("PATCH body", () => {
  test("any of name, url, events, status, description, regenerateSecret; at least one; status one of the three", () => {
    expect(validateUpdateWebhook({ status: "paused" })).toEqual({ ok: true, value: { status: "paused" } });
    expect(validateUpdateWebhook({ regenerateSecret: true, description: null })).toEqual({ ok: true, value: { regenerateSecret: true, description: null } });
    const all = validateUpdateWebhook({ name: "n", url: "https://a.example/", events: ["*"], status: "disabled", description: "d", regenerateSecret: false });
    expect(all.ok).toBe(true);
    for (const body of [{}, { status: "deleted" }, { regenerateSecret: "yes" }, { id: "whk_x" }, { events: [] }]) expect(validateUpdateWebhook(body).ok).toBe(false);
    expect("invalidUrl" in validateUpdateWebhook({ url: "http//x" })).toBe(true);
  });
});

describe("catalogue and event bodies", () => {
  test("13 event types and audit.checkpoint; test.ping is not subscribable; [*] receives everything but test.ping and audit.checkpoint", () => {
    expect(EVENT_TYPES.length).toBe(14);
    expect(SUBSCRIBABLE_EVENTS).not.toContain("test.ping");
    expect(SUBSCRIBABLE_EVENTS.length).toBe(13);
    for (const t of SUBSCRIBABLE_EVENTS.filter((t) => t !== "audit.checkpoint")) expect(subscribes(["*"], t)).toBe(true);
    expect(subscribes(["*"], "test.ping")).toBe(false);
    expect(subscribes(["*"], "audit.checkpoint")).toBe(false);
    expect(subscribes(["transfer.created", "audit.checkpoint"], "audit.checkpoint")).toBe(true);
    expect(subscribes(["transfer.created"], "transfer.completed")).toBe(false);
  });

  test("transfer and case data are cut to exactly the Part 2 fields (free text never leaves)", () => {
    const transfer = Object.fromEntries(TRANSFER_EVENT_FIELDS.map((f) => [f, `v-${f}`]));
    const b = JSON.parse(eventBody("transfer.completed", "2026-01-01T00:00:00.000Z", { ...transfer, originatorName: "Jane Doe", notes: "x" }));
    expect(Object.keys(b)).toEqual(["event", "timestamp", "data"]);
    expect(b.event).toBe("transfer.completed");
    expect(Object.keys(b.data).sort()).toEqual([...TRANSFER_EVENT_FIELDS].sort());
    const c = JSON.parse(eventBody("case.created", "2026-01-01T00:00:00.000Z", { id: "case_1", title: "Suspicious", description: "free text", notes: [] }));
    expect(Object.keys(c.data).sort()).toEqual([...CASE_EVENT_FIELDS].sort());
    expect(c.data.id).toBe("case_1");
    expect(c.data.resolvedAt).toBeNull();
    expect(JSON.stringify(c)).not.toContain("Suspicious");
  });
});

describe("signature and the receivers' verification helper", () => {
  const secret = newSecret();
  const body = eventBody("test.ping", "2026-01-01T00:00:00.000Z", { webhookId: "whk_1" });
  const t = 1_800_000_000;

  test("secret: 64 lower-case hex characters, different each time", () => {
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(newSecret()).not.toBe(secret);
  });

  test("header t=<unix>,alg=hmac-sha256,sig=<hex> over `<t>.<raw body>` (checked with an independent HMAC)", () => {
    expect(signatureHeader(secret, t, body)).toBe(`t=${t},alg=hmac-sha256,sig=${independentSig(secret, t, body)}`);
  });

  test("verifies: good signature, raw bytes, 5 minutes old; refuses other alg, older, more than 1 minute ahead, a changed body, another secret, garbage", () => {
    const header = signatureHeader(secret, t, body);
    expect(verifyWebhookSignature({ header, body, secret, now: t })).toEqual({ ok: true, timestamp: t });
    expect(verifyWebhookSignature({ header, body: utf8ToBytes(body), secret, now: t + 300 }).ok).toBe(true);
    expect(verifyWebhookSignature({ header, body, secret, now: t - 60 }).ok).toBe(true);
    expect(verifyWebhookSignature({ header, body, secret, now: t + 301 })).toEqual({ ok: false, reason: "too_old" });
    expect(verifyWebhookSignature({ header, body, secret, now: t - 61 })).toEqual({ ok: false, reason: "in_future" });
    expect(verifyWebhookSignature({ header: header.replace("hmac-sha256", "hmac-sha1"), body, secret, now: t })).toEqual({ ok: false, reason: "unsupported_alg" });
    expect(verifyWebhookSignature({ header, body: body.replace("whk_1", "whk_2"), secret, now: t })).toEqual({ ok: false, reason: "mismatch" });
    // Re-serialized JSON is not the raw body: the helper must be given the bytes as received.
    expect(verifyWebhookSignature({ header, body: JSON.stringify(JSON.parse(body), null, 1), secret, now: t }).ok).toBe(false);
    expect(verifyWebhookSignature({ header, body, secret: newSecret(), now: t })).toEqual({ ok: false, reason: "mismatch" });
    for (const h of [null, "", "t=abc,alg=hmac-sha256,sig=00", `alg=hmac-sha256,sig=${"0".repeat(64)}`, `t=${t},alg=hmac-sha256`])
      expect(verifyWebhookSignature({ header: h, body, secret, now: t })).toEqual({ ok: false, reason: "malformed" });
  });
});

describe("masking and search", () => {
  test("a masked URL is its origin followed by /***", () => {
    expect(maskUrl("https://hooks.example.com:8443/path/to?token=secret#x")).toBe("https://hooks.example.com:8443/***");
    expect(maskUrl("https://hooks.example.com/")).toBe("https://hooks.example.com/***");
  });

  test("search: part of ID, name, URL, status or description (case and accents folded), or a whole event type received", () => {
    const w = { id: "whk_01abc", name: "Zürich Ops", url: "https://hooks.example.com/***", status: "paused", description: "Ledger sync", events: ["transfer.held"] };
    for (const s of ["01ABC", "zurich", "example.com", "PAUSED", "ledger", "transfer.held"]) expect(searchMatches(w, s)).toBe(true);
    expect(searchMatches(w, "transfer.completed")).toBe(false);
    expect(searchMatches(w, "token")).toBe(false);
    expect(searchMatches({ ...w, events: ["*"] }, "case.resolved")).toBe(true);
    expect(searchMatches({ ...w, events: ["*"] }, "case.resol")).toBe(false);
  });
});

describe("retries and automatic disabling", () => {
  test("3 attempts: 1 s after the first, 5 s after the second, none after the third", () => {
    expect(DELIVERY).toEqual({ timeoutMs: 10_000, maxAttempts: 3, retryDelaysMs: [1_000, 5_000] });
    expect([1, 2, 3].map(retryDelayMs)).toEqual([1_000, 5_000, null]);
  });

  test("disabled after 50 failed deliveries in a row spanning at least 24 h (both), configurable, or off", () => {
    const day = 24 * 3600 * 1000;
    const now = 10 * day;
    expect(DEFAULT_AUTO_DISABLE).toEqual({ failures: 50, periodMs: day });
    expect(shouldAutoDisable(50, now - day, now, DEFAULT_AUTO_DISABLE)).toBe(true);
    expect(shouldAutoDisable(49, now - 5 * day, now, DEFAULT_AUTO_DISABLE)).toBe(false);
    expect(shouldAutoDisable(500, now - day + 1, now, DEFAULT_AUTO_DISABLE)).toBe(false);
    expect(shouldAutoDisable(50, null, now, DEFAULT_AUTO_DISABLE)).toBe(false);
    expect(parseAutoDisable(undefined)).toEqual(DEFAULT_AUTO_DISABLE);
    expect(parseAutoDisable("3/0")).toEqual({ failures: 3, periodMs: 0 });
    expect(parseAutoDisable("off")).toBeNull();
    expect(shouldAutoDisable(1000, 0, now, null)).toBe(false);
    for (const bad of ["0/10", "50", "x/y", "50/-1"]) expect(() => parseAutoDisable(bad)).toThrow(RangeError);
  });
});
