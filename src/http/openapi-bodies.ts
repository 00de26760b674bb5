// Request bodies of the write routes for the OpenAPI document: a JSON Schema for each route whose handler validates its
// own body (resource-specific codes such as MISSING_FIELDS), and one example for every write route. Documentation
// only: the handlers and domain validators stay the source of truth for what is accepted.

type Schema = Record<string, unknown>;

const str = (max?: number, extra: Schema = {}): Schema => ({ type: "string", ...(max ? { maxLength: max } : {}), ...extra });
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: "null" }] });
const obj = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({ type: "object", properties, required, additionalProperties: false, ...extra });

const nameIdentifier = obj(
  { primaryIdentifier: str(), secondaryIdentifier: str(), nameIdentifierType: str(undefined, { enum: ["LEGL", "ALIA", "BIRT", "MAID", "MISC"] }) },
  ["primaryIdentifier", "nameIdentifierType"],
  { additionalProperties: true },
);
const naturalPerson = obj(
  {
    name: obj({ nameIdentifier: { type: "array", minItems: 1, items: nameIdentifier } }, ["nameIdentifier"], { additionalProperties: true }),
    countryOfResidence: str(2),
    geographicAddress: { type: "array", items: obj({ addressType: str(), country: str(2) }, [], { additionalProperties: true }) },
  },
  ["name"],
  { additionalProperties: true },
);
const legalPerson = obj(
  {
    name: obj({ nameIdentifier: { type: "array", minItems: 1, items: obj({ legalPersonName: str(), legalPersonNameIdentifierType: str() }, ["legalPersonName"], { additionalProperties: true }) } }, ["nameIdentifier"], { additionalProperties: true }),
    countryOfRegistration: str(2),
  },
  ["name"],
  { additionalProperties: true },
);
/** An IVMS101 person: `{ naturalPerson }` or `{ legalPerson }`. */
export const personSchema: Schema = { oneOf: [obj({ naturalPerson }, ["naturalPerson"]), obj({ legalPerson }, ["legalPerson"])] };

const JANE = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Doe", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "NL" } };
const RICHARD = { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Roe", secondaryIdentifier: "Richard", nameIdentifierType: "LEGL" }] }, countryOfResidence: "DE" } };
const PROTOCOLS = ["provider_a", "provider_b", "provider_c", "provider_d", "provider_e"];
const REASONS = ["BENE_NOT_FOUND", "BENE_NAME_MISMATCH", "SANCTIONS_MATCH", "HIGH_RISK", "COMPLIANCE_POLICY", "INVALID_DATA", "EXPIRED", "OTHER"];

export interface BodyDoc {
  /** The body's schema when the route has no validating schema of its own. */
  schema?: Schema;
  /** One request body that the route accepts. */
  example?: unknown;
  /** The route takes no body. */
  none?: true;
}

/** By "METHOD /path" as the kit registers it (`:id` parameters). */
export const BODY_DOCS: Record<string, BodyDoc> = {
  "POST /api/v2/customers": {
    schema: obj({ externalId: str(255), name: str(255), metadata: {} }),
    example: { externalId: "cust-1001", name: "Jane Doe", metadata: { segment: "retail" } },
  },
  "POST /api/v2/customers/:id/deactivate": { schema: obj({ reason: str() }), example: { reason: "Account closed at the customer's request" } },
  "POST /api/v2/customers/:id/reactivate": { none: true },
  "POST /api/v2/customers/:id/erase": { schema: obj({ reason: str() }, ["reason"]), example: { reason: "Data-subject erasure request of 2026-11-02" } },
  "PUT /api/v2/customers/:id/travel-rule-identity": {
    schema: obj({ status: str(undefined, { enum: ["verified", "unverified", "blocked"] }), persons: { type: "array", minItems: 1, maxItems: 20, items: personSchema } }, ["status", "persons"]),
    example: { status: "verified", persons: [JANE] },
  },
  "POST /api/v2/wallets": {
    schema: obj({ address: str(), network: str(), customerId: str(), label: nullable(str()) }, ["address", "network", "customerId"]),
    example: { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", network: "ethereum", customerId: "cus_01jd0000000000000000000000", label: "Main wallet" },
  },
  "POST /api/v2/wallets/verify": { schema: obj({ address: str(), network: str() }, ["address"]), example: { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", network: "ethereum" } },
  "PATCH /api/v2/wallets/:id": { schema: obj({ label: nullable(str()) }), example: { label: "Cold storage" } },
  "DELETE /api/v2/wallets/:id": { none: true },
  "POST /api/v2/transfers": {
    schema: obj(
      {
        asset: str(20, { description: "Asset symbol; must be enabled in the environment" }),
        amount: str(undefined, { pattern: "^(0|[1-9][0-9]*)(\\.[0-9]+)?$", description: "Decimal string" }),
        network: str(50),
        originatorCustomerId: str(),
        originatorAddress: str(200, { description: "A wallet registered to the originator customer" }),
        beneficiaryAddress: str(200, { description: "A destination tag may follow as ?memo=, ?dt= or ?tag=" }),
        originator: obj({ originatorPersons: { type: "array", minItems: 1, items: personSchema } }, ["originatorPersons"]),
        beneficiary: obj({ beneficiaryPersons: { type: "array", items: personSchema } }, ["beneficiaryPersons"]),
        preferredProtocol: str(undefined, { enum: PROTOCOLS }),
        isUnhostedWallet: { type: "boolean" },
      },
      ["asset", "amount", "network", "originatorCustomerId", "beneficiaryAddress", "originator"],
    ),
    example: {
      asset: "ETH",
      amount: "1.25",
      network: "ethereum",
      originatorCustomerId: "cus_01jd0000000000000000000000",
      originatorAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
      beneficiaryAddress: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
      originator: { originatorPersons: [JANE] },
      beneficiary: { beneficiaryPersons: [RICHARD] },
      preferredProtocol: "provider_b",
    },
  },
  "PATCH /api/v2/transfers/:id": {
    schema: {
      oneOf: [
        obj({ action: { const: "accept" }, txHash: str(undefined, { pattern: "^(0x)?[0-9a-fA-F]{64}$" }) }, ["action"]),
        obj({ action: { const: "reject" }, status: { const: "rejected" }, reason: str(undefined, { enum: REASONS }), details: str(500) }, ["action", "status", "reason"]),
        obj({ action: { const: "retry" }, reason: str() }, ["action", "reason"]),
      ],
    },
    example: { action: "accept", txHash: "0x" + "ab".repeat(32) },
  },
  "POST /api/v2/transfers/:id/information-requests": { example: { action: "request", idempotencyKey: "4b0f9c4e-8a51-4a0e-9a57-3c1f1d2b7e10", fields: { country_of_residence: true } } },
  "POST /api/v2/thresholds": { example: { countryCode: "DE", type: "tr", name: "Germany Travel Rule", thresholdAmount: "0", thresholdCurrency: "EUR", regulation: "Regulation (EU) 2023/1113" } },
  "PATCH /api/v2/thresholds/:id": { example: { thresholdAmount: "1000", notes: "Raised after the regulator's guidance" } },
  "POST /api/v2/rules": { example: { name: "Large ETH transfers need review", category: "aml", stage: "precheck", action: "require_review", severity: "high", threshold: 10000, thresholdCurrency: "USD", metadata: { thresholdOperator: "gt", asset: "ETH", network: "all" } } },
  "PATCH /api/v2/rules/:id": { example: { isActive: false } },
  "DELETE /api/v2/rules/:id": { none: true },
  "POST /api/v2/webhooks": { example: { name: "Compliance events", url: "https://hooks.example.com/caravan", events: ["transfer.held", "case.created"], description: "To the case tracker" } },
  "PATCH /api/v2/webhooks/:id": { example: { status: "paused" } },
  "POST /api/v2/webhooks/:id/test": { none: true },
  "POST /api/v2/webhooks/:id/deliveries/:deliveryId/retry": { none: true },
  "POST /api/v2/cases": {
    schema: obj(
      {
        title: str(200, { minLength: 1 }),
        type: str(),
        description: str(2000),
        category: str(),
        priority: str(undefined, { enum: ["low", "medium", "high"] }),
        transferId: str(),
        ruleId: str(),
        assigneeId: str(),
      },
      ["title", "type"],
    ),
    example: { title: "Unusual outgoing volume", type: "compliance_review", priority: "medium", description: "Three transfers above 10,000 USD in an hour" },
  },
  "PATCH /api/v2/cases/:id": {
    schema: obj({ title: str(200), description: nullable(str(2000)), type: str(), category: str(), priority: str(undefined, { enum: ["low", "medium", "high"] }), assigneeId: nullable(str()), ruleId: nullable(str()), transferId: nullable(str()) }, [], { minProperties: 1 }),
    example: { priority: "high" },
  },
  "POST /api/v2/cases/:id/notes": { schema: obj({ content: str(5000, { minLength: 1 }) }, ["content"]), example: { content: "Called the customer; the source of funds is documented." } },
  "POST /api/v2/cases/:id/resolve": {
    schema: obj({ resolution: str(undefined, { enum: ["approved", "rejected"] }), resolutionNote: str(2000) }, ["resolution"]),
    example: { resolution: "approved", resolutionNote: "Name match is a false positive (different date of birth)" },
  },
  // provider_b's fields; each provider's own fields are listed by GET /api/v2/providers/:name.
  "PUT /api/v2/providers/:name": { example: { credentials: { apiUrl: "https://api.provider.example", vaspEntityId: "VASP-1", privateKey: "<base64 of the Ed25519 seed>", legalName: "Example VASP B.V.", country: "NL" }, notes: "Production account" } },
  "PATCH /api/v2/providers/:name": { example: { enabled: true } },
  "POST /api/v2/providers/:name/test": { none: true },
  // screening_c's fields; each integration's own fields are listed by GET /api/v2/integrations/:name.
  "PUT /api/v2/integrations/:name": { example: { credentials: { apiKey: "<search API key>", region: "eu" } } },
  "PATCH /api/v2/integrations/:name": { example: { enabled: true } },
  "POST /api/v2/integrations/:name/test": { none: true },
};

/** A plain example built from a schema, for a write route with a schema and no example in BODY_DOCS. */
export function exampleOf(s: unknown, depth = 0): unknown {
  if (!s || typeof s !== "object" || depth > 6) return null;
  const x = s as Record<string, any>;
  if (x.examples?.length) return x.examples[0];
  if (x.default !== undefined) return x.default;
  if (x.const !== undefined) return x.const;
  if (Array.isArray(x.enum)) return x.enum[0];
  const branch = x.anyOf ?? x.oneOf;
  if (Array.isArray(branch)) return exampleOf(branch.find((b: any) => b?.type !== "null") ?? branch[0], depth + 1);
  switch (x.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const k of x.required ?? Object.keys(x.properties ?? {}).slice(0, 1)) out[k] = exampleOf(x.properties?.[k], depth + 1);
      return out;
    }
    case "array":
      return [exampleOf(x.items, depth + 1)];
    case "string":
      return "text";
    case "integer":
    case "number":
      return x.minimum ?? 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}
