// provider_e (Sygna Bridge) HTTP client: `x-api-key` on every call, JSON in and out, answers as values (never the
// provider's raw error bodies: Part 3 "What the service does" 4). Timeout and redirects are the outbound client's.
import { parseJsonChecked, readTextCapped } from "../../net/read.ts";
import { PATH, readAddressAnswer, readCurrencies, readDirectory, readStatus, type AddressAnswer, type Currency, type DirectoryAnswer, type StatusAnswer } from "./wire.ts";

/** A refusal: `code` is ours (`HTTP_<status>`, `TRANSPORT_ERROR`, `INVALID_RESPONSE`); `providerCode` the provider's own code when it sent one. */
export type Result<T> = { ok: true; body: T } | { ok: false; code: string; status?: number; providerCode?: string };

/** The provider's own error code, taken only when it looks like a code (never free text: bodies can hold personal data). */
function codeOf(text: string): string | undefined {
  try {
    const c = (parseJsonChecked(text) as { code?: unknown })?.code;
    return typeof c === "string" && /^[A-Z][A-Z0-9_]{2,63}$/.test(c) ? c : undefined;
  } catch {
    return undefined;
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
    let res: Response;
    try {
      const headers: Record<string, string> = { "x-api-key": this.apiKey, accept: "application/json" };
      if (body !== undefined) headers["content-type"] = "application/json";
      res = await this.fetch(this.base.replace(/\/+$/, "") + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, redirect: "manual" } as RequestInit);
    } catch {
      return { ok: false, code: "TRANSPORT_ERROR" };
    }
    let text: string;
    try {
      const capped = await readTextCapped(res, MAX_ANSWER_BYTES);
      if (capped === null) return { ok: false, code: "INVALID_RESPONSE", status: res.status };
      text = capped;
    } catch {
      return { ok: false, code: "TRANSPORT_ERROR", status: res.status };
    }
    if (res.status < 200 || res.status > 299) {
      const providerCode = codeOf(text);
      return { ok: false, code: `HTTP_${res.status}`, status: res.status, ...(providerCode ? { providerCode } : {}) };
    }
    try {
      return { ok: true, body: text === "" ? {} : parseJsonChecked(text) };
    } catch {
      return { ok: false, code: "INVALID_RESPONSE", status: res.status };
    }
  }

  private async read<T>(method: "GET" | "POST", path: string, reader: (v: unknown) => T | null, body?: unknown, signal?: AbortSignal): Promise<Result<T>> {
    const r = await this.call(method, path, body, signal);
    if (!r.ok) return r;
    const v = reader(r.body);
    return v === null ? { ok: false, code: "INVALID_RESPONSE", status: 200 } : { ok: true, body: v };
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
    return this.read("POST", PATH.permissionRequest, (v) => (typeof (v as { transfer_id?: unknown })?.transfer_id === "string" ? (v as { transfer_id: string }) : null), body);
  }

  /** permission, txid, retry, cancel, cdd: any 2xx JSON answer is taken. */
  post(path: string, body: unknown): Promise<Result<unknown>> {
    return this.call("POST", path, body);
  }
}
