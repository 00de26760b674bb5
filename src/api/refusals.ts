// Each route's own refusals, by "METHOD /path" as the server registers it: the codes its handler (and the actor or
// repository behind it) answers besides the pipeline's. The pipeline's own refusals (authentication, the access
// declaration's scopes and permissions, query, cursor, body, rate limits, readiness) are derived from the route's
// declaration and are not listed here. The OpenAPI document prints both, per status; the server logs a warning when a
// route answers a code that neither lists (docs/api.md, "The OpenAPI document").
import { CDD_CODES, type ErrorCode } from "./errors.ts";

/**
 * A code at its catalogue status, or at the status this route answers it with (VALIDATION_ERROR follows the route);
 * or `{ provider }`: statuses at which the route passes on a provider's own refusal code, which no catalogue lists.
 */
export type Refusal = ErrorCode | readonly [ErrorCode, number] | { readonly provider: readonly number[] };

/** Work handed to an actor: a change that did not finish in time is 503 SERVICE_UNAVAILABLE; a concurrent change 409 CONFLICT. */
const ACTOR: readonly Refusal[] = ["SERVICE_UNAVAILABLE", "CONFLICT"];
/** Answers with personal data opened from its sealed form: 503 SERVICE_UNAVAILABLE when it cannot be decrypted. */
const SEALED: readonly Refusal[] = ["SERVICE_UNAVAILABLE"];
const CUSTOMER_BODY: readonly Refusal[] = ["VALIDATION_ERROR", "MISSING_FIELDS", "INVALID_FIELDS", "UNKNOWN_FIELDS"];
const CONNECTION_BODY: readonly Refusal[] = ["VALIDATION_ERROR", ["UNKNOWN_FIELDS", 422], ["MISSING_FIELDS", 422], ["INVALID_FIELDS", 422]];
const REPORT_STEP: readonly Refusal[] = ["REPORT_NOT_FOUND", "INVALID_REPORT_STATE", "NOT_FILING_READY", "SERVICE_UNAVAILABLE"];

export const ROUTE_REFUSALS: Record<string, readonly Refusal[]> = {
  "GET /api/v2/me": [],
  "GET /api/v2/openapi.json": [],
  "GET /api/v2/audit-log": [],
  "GET /api/v2/audit-log/:id": ["AUDIT_ENTRY_NOT_FOUND"],
  "GET /api/v2/audit-log/checkpoints/latest": ["AUDIT_CHECKPOINT_NOT_FOUND"],
  "GET /api/v2/audit-log/signing-keys": [],
  "GET /api/v2/audit-log/consistency-proof": ["AUDIT_CHECKPOINT_NOT_FOUND"],
  "GET /api/v2/audit-log/:id/inclusion-proof": ["AUDIT_ENTRY_NOT_FOUND", "AUDIT_CHECKPOINT_NOT_FOUND", "AUDIT_ENTRY_NOT_IN_CHECKPOINT"],
  "GET /api/v2/dead-letters": [],
  // signing in (no credential: the pipeline's key refusals do not apply); the calling session
  "POST /api/v2/sessions": ["SIGN_IN_FAILED", "RATE_LIMITED"],
  "POST /api/v2/sessions/setup": ["SIGN_IN_FAILED", "RATE_LIMITED"],
  "POST /api/v2/sessions/setup/confirm": ["SIGN_IN_FAILED", "RATE_LIMITED"],
  "GET /api/v2/sessions/current": ["OFFICER_SESSION_REQUIRED"],
  "DELETE /api/v2/sessions/current": ["OFFICER_SESSION_REQUIRED"],
  // the company's keys and members (an owner's console session)
  "GET /api/v2/keys": [],
  "POST /api/v2/keys": ["MEMBER_NOT_FOUND", "VALIDATION_ERROR"],
  "DELETE /api/v2/keys/:id": ["API_KEY_NOT_FOUND"],
  "GET /api/v2/members": [],
  "POST /api/v2/members": ["MEMBER_EXISTS", "VALIDATION_ERROR"],
  "PATCH /api/v2/members/:id": ["MEMBER_NOT_FOUND", "VALIDATION_ERROR", "CONFLICT"],
  "GET /api/v2/assets": [],
  // customers
  "GET /api/v2/customers": [...SEALED],
  "POST /api/v2/customers": [...CUSTOMER_BODY, "EXTERNAL_ID_IN_USE", ...ACTOR],
  "POST /api/v2/customers/:id/deactivate": ["CUSTOMER_NOT_FOUND", "VALIDATION_ERROR", "REASON_REQUIRED", "CUSTOMER_ERASED", ...ACTOR],
  "POST /api/v2/customers/:id/reactivate": ["CUSTOMER_NOT_FOUND", "CUSTOMER_ERASED", ...ACTOR],
  "POST /api/v2/customers/:id/erase": ["CUSTOMER_NOT_FOUND", "VALIDATION_ERROR", "REASON_REQUIRED", "LEGAL_HOLD", "IN_FLIGHT", ...ACTOR],
  "PUT /api/v2/customers/:id/travel-rule-identity": ["CUSTOMER_NOT_FOUND", ...CUSTOMER_BODY, "CUSTOMER_ERASED", "CUSTOMER_DEACTIVATED", "METADATA_NOT_OBJECT", ...ACTOR],
  "GET /api/v2/customers/:id/overview": ["CUSTOMER_NOT_FOUND", ...SEALED],
  // wallets
  "GET /api/v2/wallets": [],
  "GET /api/v2/wallets/:id": ["WALLET_NOT_FOUND"],
  "GET /api/v2/wallets/:id/travel-address": ["WALLET_NOT_FOUND", "NOT_CONFIGURED", "INVALID_REQUEST"],
  "POST /api/v2/wallets": [...CUSTOMER_BODY, "CUSTOMER_NOT_FOUND", "CUSTOMER_DEACTIVATED", "INVALID_ADDRESS", "UNSUPPORTED_NETWORK", "WALLET_ADDRESS_TAKEN", ...ACTOR],
  "POST /api/v2/wallets/verify": ["VALIDATION_ERROR", "MISSING_FIELDS", "INVALID_FIELDS", "UNSUPPORTED_NETWORK", "INVALID_ADDRESS"],
  "PATCH /api/v2/wallets/:id": ["WALLET_NOT_FOUND", ...CUSTOMER_BODY, ...ACTOR],
  "DELETE /api/v2/wallets/:id": ["WALLET_NOT_FOUND", ...ACTOR],
  "GET /api/v2/vasps/search": [],
  // transfers
  "GET /api/v2/transfers": [...SEALED],
  "GET /api/v2/transfers/:id": ["TRANSFER_NOT_FOUND", ...SEALED],
  "GET /api/v2/transfers/:id/valuation": ["TRANSFER_NOT_FOUND"],
  "POST /api/v2/transfers": ["VALIDATION_ERROR", "CUSTOMER_NOT_FOUND", "CONFLICT", "TIMEOUT", "SERVICE_UNAVAILABLE"],
  "PATCH /api/v2/transfers/:id": ["TRANSFER_NOT_FOUND", "VALIDATION_ERROR", "MISSING_REQUIRED_FIELD", "INVALID_REQUEST", "INVALID_TRANSFER_STATE", ...ACTOR],
  "GET /api/v2/transfers/:id/information-requests": ["TRANSFER_NOT_FOUND", "PROVIDER_E_TRANSFER_NOT_FOUND", "SERVICE_UNAVAILABLE"],
  "POST /api/v2/transfers/:id/information-requests": [
    "TRANSFER_NOT_FOUND",
    "PROVIDER_E_TRANSFER_NOT_FOUND",
    "INVALID_INFORMATION_REQUEST",
    ...CDD_CODES,
    ...ACTOR,
    // provider_e's refusal of the action: its own code, at its status when 400, 404 or 409, else 503 (Part 1).
    { provider: [400, 404, 409, 503] },
  ],
  "GET /api/v2/events/stream": ["RATE_LIMITED"],
  // cases
  "GET /api/v2/cases": [...SEALED],
  "GET /api/v2/cases/:id": ["CASE_NOT_FOUND", ...SEALED],
  "GET /api/v2/cases/:id/notes": ["CASE_NOT_FOUND", ...SEALED],
  "GET /api/v2/cases/:id/history": ["CASE_NOT_FOUND"],
  "POST /api/v2/cases": [["VALIDATION_ERROR", 422], ["TRANSFER_NOT_FOUND", 422], ["RULE_NOT_FOUND", 422], "INVALID_ASSIGNEE", "INSUFFICIENT_PERMISSION", ...ACTOR],
  "PATCH /api/v2/cases/:id": ["CASE_NOT_FOUND", ["VALIDATION_ERROR", 422], ["TRANSFER_NOT_FOUND", 422], ["RULE_NOT_FOUND", 422], "INVALID_ASSIGNEE", "CASE_CLOSED", "INSUFFICIENT_PERMISSION", ...ACTOR],
  "POST /api/v2/cases/:id/notes": ["CASE_NOT_FOUND", ["VALIDATION_ERROR", 422], "INSUFFICIENT_PERMISSION", ...ACTOR],
  "POST /api/v2/cases/:id/resolve": ["CASE_NOT_FOUND", ["VALIDATION_ERROR", 422], "CASE_CLOSED", "INSUFFICIENT_PERMISSION", "INVALID_REQUEST", "INVALID_TRANSFER_STATE", ...ACTOR],
  // rules
  "GET /api/v2/rules": [],
  "GET /api/v2/rules/promotable": [],
  "GET /api/v2/rules/:id": ["RULE_NOT_FOUND"],
  "POST /api/v2/rules": ["VALIDATION_ERROR", "INTEGRATION_NOT_FOUND"],
  "PATCH /api/v2/rules/:id": ["RULE_NOT_FOUND", "VALIDATION_ERROR", "INTEGRATION_NOT_FOUND"],
  "DELETE /api/v2/rules/:id": ["RULE_NOT_FOUND"],
  "POST /api/v2/rules/:id/promote": ["RULE_NOT_FOUND", "RULE_ALREADY_PROMOTED", ["VALIDATION_ERROR", 422]],
  // thresholds
  "GET /api/v2/thresholds": [],
  "GET /api/v2/thresholds/:id": ["THRESHOLD_NOT_FOUND"],
  "POST /api/v2/thresholds": ["VALIDATION_ERROR", "THRESHOLD_EXISTS"],
  "PATCH /api/v2/thresholds/:id": ["THRESHOLD_NOT_FOUND", "VALIDATION_ERROR", "IMMUTABLE_FIELD", "INSUFFICIENT_PERMISSION"],
  // webhooks
  "GET /api/v2/webhooks": [],
  "GET /api/v2/webhooks/:id": ["WEBHOOK_NOT_FOUND"],
  "GET /api/v2/webhooks/:id/deliveries": ["WEBHOOK_NOT_FOUND"],
  "POST /api/v2/webhooks": ["VALIDATION_ERROR", "INVALID_URL"],
  "PATCH /api/v2/webhooks/:id": ["WEBHOOK_NOT_FOUND", "VALIDATION_ERROR", "INVALID_URL"],
  "POST /api/v2/webhooks/:id/test": ["WEBHOOK_NOT_FOUND", "WEBHOOK_NOT_ACTIVE"],
  "POST /api/v2/webhooks/:id/deliveries/:deliveryId/retry": ["WEBHOOK_NOT_FOUND", "DELIVERY_NOT_FOUND", "DELIVERY_NOT_FAILED", "WEBHOOK_NOT_ACTIVE"],
  // reports
  "GET /api/v2/report-types": [],
  "GET /api/v2/reports": [],
  "GET /api/v2/reports/:id": ["REPORT_NOT_FOUND", ...SEALED],
  "GET /api/v2/reports/:id/readiness": ["REPORT_NOT_FOUND", ...SEALED],
  "GET /api/v2/reports/:id/download": ["REPORT_NOT_FOUND", ["TRANSFER_NOT_FOUND", 409], "REPORT_TOO_LONG_FOR_PDF", "PDF_RENDERER_BUSY", ...SEALED],
  "GET /api/v2/reports/:id/goaml": ["REPORT_NOT_FOUND", "INVALID_REQUEST", "NOT_FILING_READY", ...SEALED],
  "POST /api/v2/reports": [["TRANSFER_NOT_FOUND", 422], "VALIDATION_ERROR"],
  "PATCH /api/v2/reports/:id": [...REPORT_STEP, "VALIDATION_ERROR"],
  "POST /api/v2/reports/:id/submit": [...REPORT_STEP],
  "POST /api/v2/reports/:id/approve": [...REPORT_STEP, "SAME_MEMBER"],
  "POST /api/v2/reports/:id/file": [...REPORT_STEP, "VALIDATION_ERROR", "REFERENCE_REQUIRED"],
  // dead letters
  "POST /api/v2/dead-letters/:id/replay": ["DEAD_LETTER_NOT_FOUND"],
  "POST /api/v2/dead-letters/replay": [],
  // providers and integrations
  "GET /api/v2/providers": [],
  "GET /api/v2/providers/:name": ["PROVIDER_NOT_FOUND"],
  "PUT /api/v2/providers/:name": ["PROVIDER_NOT_FOUND", ...CONNECTION_BODY, "INSUFFICIENT_PERMISSION", "TENANT_FEATURE_DISABLED", "SERVICE_UNAVAILABLE"],
  "PATCH /api/v2/providers/:name": ["PROVIDER_NOT_FOUND", "VALIDATION_ERROR", "NOT_CONFIGURED", "TENANT_FEATURE_DISABLED"],
  "POST /api/v2/providers/:name/test": ["PROVIDER_NOT_FOUND", "NOT_CONFIGURED", "TENANT_FEATURE_DISABLED", "SERVICE_UNAVAILABLE"],
  "GET /api/v2/integrations": [],
  "GET /api/v2/integrations/:name": ["INTEGRATION_NOT_FOUND"],
  "PUT /api/v2/integrations/:name": ["INTEGRATION_NOT_FOUND", ...CONNECTION_BODY, "INSUFFICIENT_PERMISSION", "TENANT_FEATURE_DISABLED", "SERVICE_UNAVAILABLE"],
  "PATCH /api/v2/integrations/:name": ["INTEGRATION_NOT_FOUND", "VALIDATION_ERROR", "NOT_CONFIGURED", "TENANT_FEATURE_DISABLED"],
  "POST /api/v2/integrations/:name/test": ["INTEGRATION_NOT_FOUND", "NOT_CONFIGURED", "TENANT_FEATURE_DISABLED", "SERVICE_UNAVAILABLE"],
};
