// Thresholds: the amount above which the Travel Rule applies (tr) or a suspicion report is due (str), per jurisdiction.
import { Type, type Static } from "@sinclair/typebox";
import { Body, Nullable, OneOf } from "./common.ts";

/** ISO 4217 codes a threshold may be expressed in (current codes, including funds and precious metals). */
export const CURRENCY_CODES = "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XUA YER ZAR ZMW ZWG".split(" ");
export const THRESHOLD_LIMITS = { name: 200, regulation: 200, regulatoryBody: 200, notes: 2000 } as const;

const fields = {
  countryCode: Type.String({ description: "ISO 3166-1 alpha-2, EU, or DEFAULT; immutable" }),
  type: OneOf(["tr", "str"], { description: "immutable" }),
  name: Type.String({ minLength: 1, maxLength: THRESHOLD_LIMITS.name }),
  thresholdAmount: Type.Union([Type.String({ pattern: "^\\d+(\\.\\d+)?$" }), Type.Number({ minimum: 0 })], { description: "at least 0, at most 8 decimals; answered as a decimal string" }),
  thresholdCurrency: Type.Union(CURRENCY_CODES.map((c) => Type.Literal(c)), { default: "USD" }),
  regulation: Type.String({ minLength: 1, maxLength: THRESHOLD_LIMITS.regulation }),
  regulatoryBody: Nullable(Type.String({ maxLength: THRESHOLD_LIMITS.regulatoryBody })),
  effectiveDate: Nullable(Type.String({ description: "YYYY-MM-DD or an ISO 8601 instant with a time zone" })),
  filingDeadlineDays: Nullable(Type.Integer({ minimum: 1, maximum: 365, description: "str only" })),
  isEUMember: Type.Boolean({ default: false }),
  requiresOriginatorAccount: Type.Boolean({ default: true }),
  isActive: Type.Boolean({ default: true, description: "switching an active threshold off needs the role permission thresholds:disable" }),
  notes: Nullable(Type.String({ maxLength: THRESHOLD_LIMITS.notes })),
};
const { countryCode, type, name, thresholdAmount, regulation, ...optional } = fields;
export const CreateThreshold = Body({
  countryCode,
  type,
  name,
  thresholdAmount,
  regulation,
  thresholdCurrency: Type.Optional(optional.thresholdCurrency),
  regulatoryBody: Type.Optional(optional.regulatoryBody),
  effectiveDate: Type.Optional(optional.effectiveDate),
  filingDeadlineDays: Type.Optional(optional.filingDeadlineDays),
  isEUMember: Type.Optional(optional.isEUMember),
  requiresOriginatorAccount: Type.Optional(optional.requiresOriginatorAccount),
  isActive: Type.Optional(optional.isActive),
  notes: Type.Optional(optional.notes),
});
export type CreateThreshold = Static<typeof CreateThreshold>;
export const UpdateThreshold = Type.Partial(Body(fields), { minProperties: 1 });
export type UpdateThreshold = Static<typeof UpdateThreshold>;

export const thresholdExamples = {
  create: { countryCode: "DE", type: "tr", name: "Germany Travel Rule", thresholdAmount: "0", thresholdCurrency: "EUR", regulation: "Regulation (EU) 2023/1113" },
  update: { thresholdAmount: "1000", notes: "Raised after the regulator's guidance" },
};
