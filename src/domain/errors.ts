// The error catalogue: every code of the spec once, with its status. Every layer throws from here.

export const ERRORS = {
  // Part 1, general
  MISSING_KEY: { status: 401, message: "An API key is required in the x-api-key header" },
  INVALID_FORMAT: { status: 401, message: "The API key is not in the issued format" },
  KEY_NOT_FOUND: { status: 401, message: "The API key is not known" },
  KEY_REVOKED: { status: 401, message: "The API key has been revoked or its owner has lost access" },
  INSUFFICIENT_SCOPE: { status: 403, message: "The API key lacks the required scope" },
  INSUFFICIENT_PERMISSION: { status: 403, message: "The key owner's role lacks the required permission" },
  CSRF_VALIDATION_FAILED: { status: 403, message: "Dashboard session cookies are not accepted on API requests that change data" },
  TENANT_SUSPENDED: { status: 403, message: "The company is suspended" },
  TENANT_FEATURE_DISABLED: { status: 403, message: "The company's plan does not include this feature" },
  LIVE_KEY_REQUIRED: { status: 403, message: "Only a live key can make this change" },
  PII_ACCESS_REQUIRED: { status: 403, message: "The key owner's role lacks the pii:view permission" },
  NOT_FOUND: { status: 404, message: "Not found" },
  METHOD_NOT_ALLOWED: { status: 405, message: "Method not allowed" },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON" },
  BODY_TOO_LARGE: { status: 413, message: "The request body is over 65,536 bytes" },
  VALIDATION_ERROR: { status: 400, message: "The request is not valid" },
  INVALID_QUERY: { status: 400, message: "The query is not valid" },
  INVALID_CURSOR: { status: 400, message: "The cursor was not handed out by this list" },
  CONFLICT: { status: 409, message: "Another request changed the same record at the same time; retry" },
  RATE_LIMITED: { status: 429, message: "Rate limit exceeded" },
  INTERNAL_ERROR: { status: 500, message: "Internal server error" },
  TIMEOUT: { status: 503, message: "The lookup timed out" },
  SERVICE_UNAVAILABLE: { status: 503, message: "Temporarily unavailable" },
  COMPANY_NOT_READY: { status: 503, message: "The company is not ready to serve requests yet (the service is starting or stopping); retry after Retry-After" },
  // Part 1, customers, wallets, transfers (used by later resources)
  MISSING_FIELDS: { status: 400, message: "Required fields are missing" },
  INVALID_FIELDS: { status: 400, message: "Fields have invalid values" },
  UNKNOWN_FIELDS: { status: 400, message: "Unknown fields" },
  MISSING_REQUIRED_FIELD: { status: 400, message: "A required field is missing" },
  INVALID_REQUEST: { status: 400, message: "The request cannot be carried out" },
  INVALID_TRANSFER_STATE: { status: 400, message: "The transfer is not in a state that allows this" },
  INVALID_INFORMATION_REQUEST: { status: 400, message: "Invalid information request" },
  // Part 1 "Information requests" and Part 3 "provider_e transfers → Information requests"
  PROVIDER_E_TRANSFER_NOT_FOUND: { status: 404, message: "No transfer carried by provider_e with this ID (or provider_e is disabled)" },
  CDD_DIRECTION_MISMATCH: { status: 400, message: "Information flows the other way on this transfer" },
  CDD_REQUEST_NOT_FOUND: { status: 404, message: "No received request under review has this ID" },
  CDD_REPLY_ALREADY_QUEUED: { status: 409, message: "This request has been answered already" },
  CDD_REQUEST_ALREADY_OPEN: { status: 409, message: "The last request has not been reviewed yet" },
  CDD_IDENTICAL_REQUEST_ALREADY_SENT: { status: 409, message: "The same fields were asked before" },
  CDD_REVIEW_CHANGED: { status: 409, message: "The review must list every unreviewed message" },
  CDD_DELIVERY_PENDING: { status: 409, message: "A message is not delivered yet" },
  CDD_RESPONSE_REQUIRED: { status: 409, message: "A request is not answered yet" },
  CUSTOMER_NOT_FOUND: { status: 404, message: "Customer not found" },
  WALLET_NOT_FOUND: { status: 404, message: "Wallet not found" },
  TRANSFER_NOT_FOUND: { status: 404, message: "Transfer not found" },
  AUDIT_ENTRY_NOT_FOUND: { status: 404, message: "Audit log entry not found" },
  AUDIT_CHECKPOINT_NOT_FOUND: { status: 404, message: "No signed checkpoint of the audit log has this tree size (or none has been signed yet)" },
  AUDIT_ENTRY_NOT_IN_CHECKPOINT: { status: 409, message: "The audit log entry is not yet covered by that checkpoint" },
  EXTERNAL_ID_IN_USE: { status: 409, message: "The externalId is already used by a customer of this environment" },
  CUSTOMER_ERASED: { status: 409, message: "The customer has been erased" },
  LEGAL_HOLD: { status: 409, message: "The customer's records are under a legal hold or retention obligation" },
  IN_FLIGHT: { status: 409, message: "The customer has transfers not in a final state" },
  METADATA_NOT_OBJECT: { status: 409, message: "The customer's metadata is not a JSON object" },
  REASON_REQUIRED: { status: 400, message: "A reason is required" },
  CUSTOMER_DEACTIVATED: { status: 400, message: "The customer is deactivated" },
  INVALID_ADDRESS: { status: 400, message: "The address is not in the network's format" },
  UNSUPPORTED_NETWORK: { status: 400, message: "The network is not supported" },
  WALLET_ADDRESS_TAKEN: { status: 409, message: "The address is registered to another customer of this environment" },
  // Part 2
  CASE_NOT_FOUND: { status: 404, message: "Case not found" },
  RULE_NOT_FOUND: { status: 404, message: "Rule not found" },
  REPORT_NOT_FOUND: { status: 404, message: "Report not found" },
  WEBHOOK_NOT_FOUND: { status: 404, message: "Webhook subscription not found" },
  DELIVERY_NOT_FOUND: { status: 404, message: "Delivery not found" },
  PROVIDER_NOT_FOUND: { status: 404, message: "Provider not found" },
  INTEGRATION_NOT_FOUND: { status: 404, message: "Integration not found" },
  THRESHOLD_NOT_FOUND: { status: 404, message: "Threshold not found" },
  CASE_CLOSED: { status: 409, message: "The case is closed" },
  THRESHOLD_EXISTS: { status: 409, message: "A threshold with these fields already exists" },
  NOT_CONFIGURED: { status: 409, message: "No credentials are saved for this connection" },
  DELIVERY_NOT_FAILED: { status: 409, message: "Only a failed delivery can be retried" },
  WEBHOOK_NOT_ACTIVE: { status: 409, message: "The webhook subscription is not active" },
  INVALID_URL: { status: 422, message: "The URL is not allowed" },
  IMMUTABLE_FIELD: { status: 422, message: "This field cannot be changed" },
  INVALID_ASSIGNEE: { status: 422, message: "The assignee cannot be assigned" },
  REPORT_TOO_LONG_FOR_PDF: { status: 422, message: "The report text is over 100,000 characters: too long for a PDF" },
  PDF_RENDERER_BUSY: { status: 503, message: "Another report with Chinese, Japanese or Korean text is being drawn; retry shortly" },
  // Caravan's operator routes (reports carried to filing, rules promoted to live): not in the public contract.
  INVALID_REPORT_STATE: { status: 409, message: "The report is not in a status that allows this" },
  NOT_FILING_READY: { status: 409, message: "The report is not filing-ready: required fields or the narrative are missing" },
  SAME_MEMBER: { status: 403, message: "Four eyes: the member who drafted, last edited or submitted the report cannot approve it" },
  REFERENCE_REQUIRED: { status: 422, message: "Filing needs the FIU's reference" },
  RULE_ALREADY_PROMOTED: { status: 409, message: "The rule was promoted to live already" },
  // Members and sessions (docs/api.md, "Keys and sessions"): the dashboard's powers are an officer's, not a key's.
  OFFICER_SESSION_REQUIRED: { status: 403, message: "This action is an officer's: sign in to the console as a member; an API key cannot do it" },
  SIGN_IN_FAILED: { status: 401, message: "The email, passphrase or code was not accepted" },
  SESSION_ENDED: { status: 401, message: "The session has ended (expired, signed out, or ended by the service): sign in again" },
  MEMBER_NOT_FOUND: { status: 404, message: "No member with this ID in the company" },
  API_KEY_NOT_FOUND: { status: 404, message: "No API key with this ID in the company" },
  MEMBER_EXISTS: { status: 409, message: "A member with this email exists already" },
  DEAD_LETTER_NOT_FOUND: { status: 404, message: "No dead letter with this ID in the company's environment (replayed already, or never one)" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
    /** Extra response headers (Allow, Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export interface ApiErrorOptions {
  message?: string;
  details?: Record<string, unknown>;
  /** Codes whose status depends on the resource (VALIDATION_ERROR is 400 or 422; TRANSFER_NOT_FOUND 404, 409 or 422). */
  status?: number;
  headers?: Record<string, string>;
}

export function apiError(code: ErrorCode, opts: ApiErrorOptions = {}): ApiError {
  const entry = ERRORS[code];
  return new ApiError(code, opts.message ?? entry.message, opts.status ?? entry.status, opts.details, opts.headers);
}

export interface Issue {
  path: string;
  message: string;
}
