// The API's shared shapes: the success and list envelopes, the error envelope, timestamps, decimals, member references.
// This module and its siblings are the contract that the server, its OpenAPI document and the console all read.
import { Type, type Static, type TSchema, type TObject, type TProperties, type TUnion, type TLiteral } from "@sinclair/typebox";

/** Every answer's `meta.apiVersion`. */
export const API_VERSION = 2;

/** An ISO 8601 UTC instant with milliseconds, as every resource writes its times. */
export const Iso = Type.String({ pattern: "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$", description: "ISO 8601 UTC instant with milliseconds" });
/** An amount: a decimal string, never a JSON number. */
export const Decimal = Type.String({ pattern: "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$", description: "Decimal string" });
export const Environment = Type.Union([Type.Literal("test"), Type.Literal("live")]);
export type Environment = Static<typeof Environment>;

export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
/** A choice of text values. */
export const OneOf = <const V extends readonly string[]>(values: V, options: { description?: string; default?: V[number] } = {}): TUnion<TLiteral<V[number]>[]> =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  );
/** An answer object: its fields are required as listed; a field added later does not break a reader. */
export const Answer = <P extends TProperties>(properties: P, description?: string): TObject<P> => Type.Object(properties, description ? { description } : {});
/** A request body: the fields listed and nothing else. */
export const Body = <P extends TProperties>(properties: P, options: { minProperties?: number; description?: string } = {}): TObject<P> =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** `meta` of every answer (`piiMasked` when personal data was masked for a role without pii:view). */
export const Meta = Type.Object(
  { apiVersion: Type.Literal(API_VERSION), timestamp: Iso, piiMasked: Type.Optional(Type.Boolean()) },
  { additionalProperties: true },
);
export type Meta = Static<typeof Meta>;

/** `meta` of a list: opaque cursor of the next page (null on the last), whether more follow, the total, the limit. */
export const ListMeta = Type.Intersect([
  Meta,
  Type.Object({ cursor: Nullable(Type.String()), hasMore: Type.Boolean(), total: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 0 }) }),
]);
export type ListMeta = Static<typeof ListMeta>;

/** `{ data, meta }`. */
export const Envelope = <T extends TSchema>(data: T) => Type.Object({ data, meta: Meta });
/** `{ data: [...], meta: { cursor, hasMore, total, limit } }`. */
export const Page = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), meta: ListMeta });

/** A refusal: `{ error, code, details?, meta }`; `error` is human text, `code` the stable machine code. */
export const ErrorEnvelope = Type.Object({
  error: Type.String(),
  code: Type.String(),
  details: Type.Optional(Type.Unknown()),
  meta: Meta,
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

/** One validation issue: the field's dotted path ("" for the whole body) and what is wrong with it. */
export const Issue = Type.Object({ path: Type.String(), message: Type.String() });
export type Issue = Static<typeof Issue>;

/** A team member as answers name one. */
export const MemberRef = Answer({ id: Type.String(), name: Nullable(Type.String()), email: Nullable(Type.String()) });
export type MemberRef = Static<typeof MemberRef>;

/** A route that takes no body. */
export const NoBody = Type.Undefined({ description: "no body" });
