// The shared exchange's failures in the screening vendors' codes (the screening_c and screening_d rows of the error
// table alike): TIMEOUT, NETWORK_ERROR (redirects and refused targets included), HTTP_<status>, RESPONSE_TOO_LARGE,
// INVALID_RESPONSE.
import type { ExchangeFailure } from "../net/exchange.ts";

export type VendorFailureCode = "TIMEOUT" | "NETWORK_ERROR" | `HTTP_${number}` | "RESPONSE_TOO_LARGE" | "INVALID_RESPONSE";

export function vendorFailure(r: { failure: ExchangeFailure; status?: number }): VendorFailureCode {
  switch (r.failure) {
    case "timeout":
      return "TIMEOUT";
    case "http":
      return `HTTP_${r.status ?? 0}`;
    case "too_large":
      return "RESPONSE_TOO_LARGE";
    case "not_json":
      return "INVALID_RESPONSE";
    default:
      return "NETWORK_ERROR";
  }
}
