// screening_d (Crystal-style address risk): one POST /risk-check per address, the connection test, every refusal as a code.
// Part 3 "Settings of screening_d", "screening_d screening", Errors (screening_d row), Limits, Authentication 5.
import { sameScreenedAddress, screeningDBlockchain, type ScreeningDBlockchain } from "../../../domain/screening/networks.ts";
import { exchange as send, type ExchangeFetch } from "../../net/exchange.ts";
import { vendorFailure } from "../failures.ts";
import type { OutboundFetch } from "../../providers/outbound.ts";
import type { CheckResult, ScreeningAdapter, ScreeningContext, ScreeningSubject, SubjectScreening } from "../types.ts";

/**
 * The vendor's documented base address (Crystal Blockchain "Expert" API, the host its integrations call with the
 * `X-Auth-Apikey` header: https://apiexpert.crystalblockchain.com). `CARAVAN_SCREENING_D_URL` replaces it (the sandbox).
 */
export const SCREENING_D_DEFAULT_URL = "https://apiexpert.crystalblockchain.com";
/** Part 3, Limits: timeout 10 seconds, no retries; response at most 2 MiB. */
export const SCREENING_D_TIMEOUT_MS = 10_000;
export const SCREENING_D_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
export const RISK_CHECK_PATH = "/risk-check";
export const CURRENCY_LIST_PATH = "/monitor/currency/list";
/** The connection test's fixed success message (Part 3: "passes with a fixed success message"). */
export const CONNECTION_OK_MESSAGE = "Connected: screening_d answered with its currency list";

/** Every code a screening_d screening, check or connection test can fail with. */
export type ScreeningDCode =
  | "NOT_CONFIGURED"
  | "INVALID_CONFIGURATION"
  | "UNSUPPORTED_NETWORK"
  | "UNSUPPORTED_OPERATION"
  | "BAD_REQUEST"
  | `HTTP_${number}`
  | `SCREENING_D_${number}`
  | "INVALID_RESPONSE"
  | "SUBJECT_MISMATCH"
  | "TIMEOUT"
  | "RESPONSE_TOO_LARGE"
  | "NETWORK_ERROR";

export interface ScreeningDOptions {
  baseUrl: string;
  /** Default 10 s (Part 3); tests inject a short one. */
  timeoutMs?: number;
}

export interface ScreeningDAdapter extends ScreeningAdapter {
  readonly name: "screening_d";
  readonly type: "blockchain_analytics";
  /** Transaction hashes are not screened (Part 3): always a failed check with UNSUPPORTED_OPERATION, no request. */
  screenTransaction(txHash: string, network: string, ctx: ScreeningContext): Promise<CheckResult>;
}

/** `CARAVAN_SCREENING_D_URL` or the vendor's address: an http(s) origin with an optional path, no query or credentials. */
export function screeningDUrlFromEnv(env: Record<string, string | undefined>): string {
  const text = env.CARAVAN_SCREENING_D_URL?.trim();
  if (!text) return SCREENING_D_DEFAULT_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RangeError(`CARAVAN_SCREENING_D_URL is not a URL: "${text}"`);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password || url.search || url.hash) {
    throw new RangeError(`CARAVAN_SCREENING_D_URL must be an http(s) address without credentials, query or fragment: "${text}"`);
  }
  return text;
}

/** Part 3: text `true` sends true; `false` or no value sends false; any other value fails until corrected. */
export function entityListSetting(value: string | undefined): boolean | null {
  if (value === undefined || value === "" || value === "false") return false;
  if (value === "true") return true;
  return null;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; code: ScreeningDCode };

const failed = (code: ScreeningDCode): { ok: false; code: ScreeningDCode } => ({ ok: false, code });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The vendor's `meta.error_code`: 0, another integer (→ SCREENING_D_<code>), or not readable (→ INVALID_RESPONSE). */
function vendorErrorCode(body: Record<string, unknown>): ScreeningDCode | null {
  const meta = body.meta;
  if (!isObject(meta)) return "INVALID_RESPONSE";
  const code = meta.error_code;
  if (code === 0) return null;
  if (typeof code === "number" && Number.isSafeInteger(code)) return `SCREENING_D_${code}`;
  return "INVALID_RESPONSE";
}

/**
 * One request under the 10 s budget (connection, answer and body together), no retry, through the shared exchange
 * (capped, depth-limited read). A non-2xx answer is `HTTP_<status>` and its body is never read: vendor bodies can
 * hold personal data (Part 3 "What the service does" 4).
 */
async function exchange(
  fetch: OutboundFetch,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<Outcome<unknown>> {
  const r = await send(fetch as ExchangeFetch, { ...init, url, timeoutMs, maxBytes: SCREENING_D_MAX_RESPONSE_BYTES });
  return r.ok ? { ok: true, value: r.body } : failed(vendorFailure(r));
}

/** Part 3: a screening succeeds only on error_code 0, exactly the requested blockchain, a 0..1 score, the same address. */
export function judgeRiskCheck(body: unknown, blockchain: ScreeningDBlockchain, address: string): ScreeningDCode | null {
  if (!isObject(body)) return "INVALID_RESPONSE";
  const vendor = vendorErrorCode(body);
  if (vendor) return vendor;
  const data = body.data;
  if (!isObject(data)) return "INVALID_RESPONSE";
  const chains = data.blockchains;
  if (!Array.isArray(chains) || chains.length !== 1 || typeof chains[0] !== "string") return "INVALID_RESPONSE";
  // An answer about the same address on another blockchain is an answer about another subject.
  if (chains[0].toLowerCase() !== blockchain) return "SUBJECT_MISMATCH";
  const counterparty = data.counterparty;
  if (!isObject(counterparty)) return "INVALID_RESPONSE";
  const score = counterparty.riskscore;
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1) return "INVALID_RESPONSE";
  const named = counterparty.address;
  if (named !== undefined && named !== null) {
    if (typeof named !== "string") return "INVALID_RESPONSE";
    if (!sameScreenedAddress(blockchain, address, named)) return "SUBJECT_MISMATCH";
  }
  return null;
}

const joinUrl = (base: string, path: string) => base.replace(/\/+$/, "") + path;

/** The key and entity-list flag for this environment, or why the check fails before any request. */
function settingsOf(ctx: ScreeningContext): Outcome<{ apiKey: string; entityList: boolean }> {
  const apiKey = ctx.credentials?.apiKey;
  if (!apiKey) return failed("NOT_CONFIGURED");
  const entityList = entityListSetting(ctx.credentials?.entityList);
  if (entityList === null) return failed("INVALID_CONFIGURATION");
  return { ok: true, value: { apiKey, entityList } };
}

export function screeningD(opts: ScreeningDOptions): ScreeningDAdapter {
  const baseUrl = opts.baseUrl;
  const timeoutMs = opts.timeoutMs ?? SCREENING_D_TIMEOUT_MS;

  async function screenAddress(
    subject: Extract<ScreeningSubject, { kind: "address" }>,
    settings: { apiKey: string; entityList: boolean },
    ctx: ScreeningContext,
  ): Promise<SubjectScreening> {
    const fail = (code: ScreeningDCode): SubjectScreening => ({ party: subject.party, kind: "address", status: "error", response: null, error: code });
    const address = typeof subject.address === "string" ? subject.address.trim() : "";
    if (!address) return fail("BAD_REQUEST");
    const mapped = screeningDBlockchain(subject.network);
    if (!mapped.ok) return fail(mapped.code);
    // Part 3: the request carries only these four fields.
    const body = JSON.stringify({ type: "address", address, blockchain: mapped.blockchain, entity_list: settings.entityList });
    const answer = await exchange(
      ctx.fetch,
      joinUrl(baseUrl, RISK_CHECK_PATH),
      { method: "POST", headers: { "content-type": "application/json", accept: "application/json", "X-Auth-Apikey": settings.apiKey }, body },
      timeoutMs,
    );
    if (!answer.ok) return fail(answer.code);
    const problem = judgeRiskCheck(answer.value, mapped.blockchain, address);
    if (problem) return fail(problem);
    return { party: subject.party, kind: "address", status: "success", response: answer.value };
  }

  return {
    name: "screening_d",
    type: "blockchain_analytics",
    accepts: (subject) => subject.kind === "address",

    async screen(subjects, ctx) {
      const started = performance.now();
      const addresses = subjects.filter((s): s is Extract<ScreeningSubject, { kind: "address" }> => s.kind === "address");
      const settings = settingsOf(ctx);
      let screenings: SubjectScreening[];
      if (!settings.ok) {
        // No key, or an entityList value that is neither true nor false: the check fails before any request.
        screenings = addresses.map((s) => ({ party: s.party, kind: "address", status: "error", response: null, error: settings.code }));
      } else {
        screenings = await Promise.all(addresses.map((s) => screenAddress(s, settings.value, ctx)));
      }
      const firstError = !settings.ok ? settings.code : screenings.find((s) => s.status === "error")?.error;
      const result: CheckResult = {
        integration: "screening_d",
        status: firstError ? "error" : "success",
        screenings,
        durationMs: Math.round(performance.now() - started),
      };
      if (firstError) result.error = firstError;
      return result;
    },

    async screenTransaction() {
      return { integration: "screening_d", status: "error", screenings: [], error: "UNSUPPORTED_OPERATION", durationMs: 0 };
    },

    async testConnection(ctx) {
      const settings = settingsOf(ctx);
      if (!settings.ok) return { success: false, message: testFailure(settings.code), error: settings.code };
      const answer = await exchange(
        ctx.fetch,
        joinUrl(baseUrl, CURRENCY_LIST_PATH),
        { method: "GET", headers: { accept: "application/json", "X-Auth-Apikey": settings.value.apiKey } },
        timeoutMs,
      );
      if (!answer.ok) return { success: false, message: testFailure(answer.code), error: answer.code };
      const body = answer.value;
      const code = isObject(body) ? vendorErrorCode(body) : "INVALID_RESPONSE";
      if (code) return { success: false, message: testFailure(code), error: code };
      if (!Array.isArray((body as Record<string, unknown>).data)) return { success: false, message: testFailure("INVALID_RESPONSE"), error: "INVALID_RESPONSE" };
      return { success: true, message: CONNECTION_OK_MESSAGE };
    },
  };
}

const TEST_FAILURES: Partial<Record<string, string>> = {
  NOT_CONFIGURED: "No API key is saved for this environment",
  INVALID_CONFIGURATION: "entityList must be true or false",
  TIMEOUT: `screening_d did not answer within ${SCREENING_D_TIMEOUT_MS / 1000} seconds`,
  RESPONSE_TOO_LARGE: "screening_d answered with more than 2 MiB",
  INVALID_RESPONSE: "screening_d answered with something other than its currency list",
  NETWORK_ERROR: "screening_d could not be reached (connection failed or redirected)",
};

/** A short text of ours for a failed test; the vendor's body is never quoted. */
function testFailure(code: ScreeningDCode): string {
  const known = TEST_FAILURES[code];
  if (known) return known;
  if (code.startsWith("HTTP_")) return `screening_d answered HTTP ${code.slice(5)}`;
  return `screening_d refused the request (error code ${code.slice("SCREENING_D_".length)})`;
}

