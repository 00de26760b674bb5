// screening_c (name screening, type `sanctions`): one `POST /searches` per name at the regional base address, 10 s, no retries;
// `GET /users` as the connection test (Part 3 "Settings of screening_c", "screening_c screening", Authentication 5).
import { exchange, type ExchangeFetch } from "../../net/exchange.ts";
import { vendorFailure } from "../failures.ts";
import type { CheckResult, ScreeningAdapter, ScreeningContext, ScreeningSubject, SubjectScreening } from "../types.ts";
import { screeningName, searchTerm } from "../../../domain/screening/names.ts";
import { DEFAULT_URLS, isUsersAnswer, judgeSearch, parseFuzziness, parseRegion, searchBody, type Region } from "./wire.ts";

/** Part 3: screening_c times out after 10 seconds and never retries. */
export const SCREENING_C_TIMEOUT_MS = 10_000;
/** A search answer larger than this is not read (100 hits with their documents fit well below it). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface ScreeningCOptions {
  /** Base address per region (CARAVAN_SCREENING_C_URLS); defaults to the vendor's regional roots. */
  urls?: Readonly<Record<Region, string>>;
  /** Per request, queueing for a call slot included; tests shorten it. */
  timeoutMs?: number;
}

type Call = { ok: true; status: number; body: unknown } | { ok: false; code: string; status?: number };

const NAME_SUBJECT = (s: ScreeningSubject): s is Extract<ScreeningSubject, { kind: "name" }> => s.kind === "name";

export function screeningC(opts: ScreeningCOptions = {}): ScreeningAdapter {
  const urls = opts.urls ?? DEFAULT_URLS;
  const timeoutMs = opts.timeoutMs ?? SCREENING_C_TIMEOUT_MS;

  /** One request, no retry. Failures are codes; a vendor's body never leaves this function on a failure. */
  async function call(ctx: ScreeningContext, method: "GET" | "POST", url: string, apiKey: string, body?: unknown): Promise<Call> {
    const r = await exchange(ctx.fetch as ExchangeFetch, { method, url, headers: { authorization: `Token ${apiKey}` }, json: body, timeoutMs, maxBytes: MAX_RESPONSE_BYTES });
    return r.ok ? { ok: true, status: r.status, body: r.body } : { ok: false, code: vendorFailure(r), ...(r.status !== undefined ? { status: r.status } : {}) };
  }

  async function screenName(ctx: ScreeningContext, subject: Extract<ScreeningSubject, { kind: "name" }>, base: string, apiKey: string, fuzziness: number | null): Promise<SubjectScreening> {
    const failed = (error: string, response: unknown = null): SubjectScreening => ({ party: subject.party, kind: "name", status: "error", response, error });
    const term = searchTerm(screeningName(subject.person));
    if (!term.ok) return failed(term.code);
    if (fuzziness === null) return failed("INVALID_FUZZINESS");
    const r = await call(ctx, "POST", `${base}/searches`, apiKey, searchBody(term.term, fuzziness));
    if (!r.ok) return failed(r.code);
    const verdict = judgeSearch(r.body);
    // Part 3: an incomplete result keeps the response; any other unusable answer does not.
    if (!verdict.ok) return failed(verdict.code, verdict.code === "INCOMPLETE_RESULTS" ? r.body : null);
    return { party: subject.party, kind: "name", status: "success", response: r.body };
  }

  return {
    name: "screening_c",
    type: "sanctions",
    accepts: NAME_SUBJECT,

    async screen(subjects, ctx): Promise<CheckResult> {
      const started = Date.now();
      const names = subjects.filter(NAME_SUBJECT);
      const done = (status: CheckResult["status"], screenings: SubjectScreening[], error?: string): CheckResult => ({
        integration: "screening_c",
        status,
        screenings,
        ...(error ? { error } : {}),
        durationMs: Date.now() - started,
      });
      const apiKey = ctx.credentials?.apiKey?.trim();
      // Part 3: without an API key for the environment the check fails, `response: null`, no request, no sandbox fallback.
      if (!apiKey) return done("error", [], "NOT_CONFIGURED");
      const region = parseRegion(ctx.credentials?.region);
      if (region === null)
        return done("error", names.map((s) => ({ party: s.party, kind: "name" as const, status: "error" as const, response: null, error: "INVALID_REGION" })), "INVALID_REGION");
      const fuzziness = parseFuzziness(ctx.credentials?.fuzziness);
      const screenings = await Promise.all(names.map((s) => screenName(ctx, s, urls[region], apiKey, fuzziness)));
      const firstError = screenings.find((s) => s.status === "error")?.error;
      return firstError ? done("error", screenings, firstError) : done("success", screenings);
    },

    async testConnection(ctx) {
      const apiKey = ctx.credentials?.apiKey?.trim();
      if (!apiKey) return { success: false, message: "No API key is saved for this environment", error: "NOT_CONFIGURED" };
      const region = parseRegion(ctx.credentials?.region);
      if (region === null) return { success: false, message: "The region must be eu, us or apac", error: "INVALID_REGION" };
      // Read-only: lists the account's users and creates no search (Part 3 "Connection test").
      const r = await call(ctx, "GET", `${urls[region]}/users`, apiKey);
      if (r.ok && isUsersAnswer(r.body)) return { success: true, message: "Connected to screening_c: the API key was accepted" };
      if (r.ok) return { success: false, message: "screening_c answered with an invalid response", error: "INVALID_RESPONSE" };
      return { success: false, message: failureText(r.code), error: r.code };
    },
  };
}

function failureText(code: string): string {
  if (code.startsWith("HTTP_")) return `screening_c answered HTTP ${code.slice(5)}`;
  switch (code) {
    case "TIMEOUT":
      return "screening_c did not answer within 10 seconds";
    case "INVALID_RESPONSE":
      return "screening_c answered with an invalid response";
    case "RESPONSE_TOO_LARGE":
      return "screening_c answered with a response too large to read";
    default:
      return "screening_c could not be reached";
  }
}

