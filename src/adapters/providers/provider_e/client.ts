// provider_e (Sygna Bridge) HTTP client: `x-api-key` on every call, JSON in and out, answers as values (never the
// provider's raw error bodies: Part 3 "What the service does" 4). Timeout and redirects are the outbound client's.
import { exchange, type ExchangeFetch, type Exchanged } from "../../net/exchange.ts";
import { PATH, readAddressAnswer, readCurrencies, readDirectory, readStatus, type AddressAnswer, type Currency, type DirectoryAnswer, type Parsed, type StatusAnswer } from "./wire.ts";

/** A refusal: `code` is ours (`HTTP_<status>`, `TRANSPORT_ERROR`, `INVALID_RESPONSE`); `providerCode` the provider's own code when it sent one. */
export type Result<T> = { ok: true; body: T } | { ok: false; code: string; status?: number; providerCode?: string; path?: string };

/** The provider's own error code, taken only when it looks like a code (never free text: bodies can hold personal data). */
function codeOf(body: unknown): string | undefined {
  const c = (body as { code?: unknown } | null | undefined)?.code;
  return typeof c === "string" && /^[A-Z][A-Z0-9_]{2,63}$/.test(c) ? c : undefined;
}

/** The shared exchange's failures in provider_e's codes: no answer is TRANSPORT_ERROR, a non-2xx HTTP_<status>. */
function mapped(r: Exchanged): Result<unknown> {
  if (r.ok) return { ok: true, body: r.body === undefined ? {} : r.body };
  switch (r.failure) {
    case "http": {
      const providerCode = codeOf(r.body);
      return { ok: false, code: `HTTP_${r.status}`, status: r.status, ...(providerCode ? { providerCode } : {}) };
    }
    case "too_large":
    case "not_json":
      return { ok: false, code: "INVALID_RESPONSE", status: r.status };
    default:
      return { ok: false, code: "TRANSPORT_ERROR", ...(r.status !== undefined && r.failure !== "redirect" ? { status: r.status } : {}) };
  }
}

/** 429, 5xx and no answer are asked again later (Part 3, discovery); anything else is final. */
export const isRetryable = (r: { code: string; status?: number }) => r.code === "TRANSPORT_ERROR" || r.status === 429 || (r.status !== undefined && r.status >= 500);

const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

export class ProviderEClient {
  constructor(
    private readonly base: string,
    private readonly apiKey: string,
    private readonly fetch: typeof globalThis.fetch,
  ) {}

  private async call(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<Result<unknown>> {
    // The provider's answers are untrusted too: nesting bounded before anything (a signature check) serialises them.
    const url = this.base.replace(/\/+$/, "") + path;
    return mapped(await exchange(this.fetch as ExchangeFetch, { method, url, headers: { "x-api-key": this.apiKey }, json: body, signal, maxBytes: MAX_ANSWER_BYTES, errorBody: true, allowEmpty: true }));
  }

  /** A 2xx answer read by `reader`; one that does not fit is INVALID_RESPONSE with the field path (for the log). */
  private async read<T>(method: "GET" | "POST", path: string, reader: (v: unknown) => Parsed<T>, body?: unknown, signal?: AbortSignal): Promise<Result<T>> {
    const r = await this.call(method, path, body, signal);
    if (!r.ok) return r;
    const v = reader(r.body);
    return v.ok ? { ok: true, body: v.value } : { ok: false, code: "INVALID_RESPONSE", status: 200, path: v.path };
  }

  directory(): Promise<Result<DirectoryAnswer>> {
    return this.read("GET", PATH.vasps, readDirectory);
  }

  currencies(): Promise<Result<Currency[]>> {
    return this.read("GET", PATH.currencies, readCurrencies);
  }

  status(transferId: string): Promise<Result<StatusAnswer>> {
    return this.read("GET", `${PATH.status}?transfer_id=${encodeURIComponent(transferId)}`, readStatus);
  }

  askAddress(question: unknown, signal?: AbortSignal): Promise<Result<AddressAnswer>> {
    return this.read("POST", PATH.addressValidation, readAddressAnswer, question, signal);
  }

  permissionRequest(body: unknown): Promise<Result<{ transfer_id: string }>> {
    return this.read("POST", PATH.permissionRequest, (v) => (typeof (v as { transfer_id?: unknown })?.transfer_id === "string" ? { ok: true, value: v as { transfer_id: string } } : { ok: false, path: "transfer_id" }), body);
  }

  /** permission, txid, retry, cancel, cdd: any 2xx JSON answer is taken. */
  post(path: string, body: unknown): Promise<Result<unknown>> {
    return this.call("POST", path, body);
  }
}
