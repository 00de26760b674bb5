// Query parameters: each route names the parameters it accepts; anything else is 400 INVALID_QUERY.
import { Type, type TSchema } from "@sinclair/typebox";
import { apiError, type Issue } from "../domain/errors.ts";

export interface QueryParam<T> {
  schema: TSchema;
  parse(raw: string): { value: T } | { error: string };
  default?: T;
}

type Spec = Record<string, QueryParam<unknown>>;
export type QueryOf<S extends Spec> = { [K in keyof S]: S[K] extends QueryParam<infer T> ? (S[K] extends { default: T } ? T : T | undefined) : never };

export const q = {
  /** Page size within the spec's bounds (Part 1, Limits). */
  limit(max: number, def = 50): QueryParam<number> & { default: number } {
    return {
      schema: Type.Integer({ minimum: 1, maximum: max, default: def }),
      default: def,
      parse(raw) {
        if (!/^\d+$/.test(raw)) return { error: `must be an integer from 1 to ${max}` };
        const n = Number(raw);
        if (n < 1 || n > max) return { error: `must be an integer from 1 to ${max}` };
        return { value: n };
      },
    };
  },
  cursor(): QueryParam<string> {
    return {
      schema: Type.String({ description: "meta.cursor of the previous page" }),
      parse: (raw) => (raw.length === 0 ? { error: "must not be empty" } : { value: raw }),
    };
  },
  string(maxLength: number, minLength = 1): QueryParam<string> {
    return {
      schema: Type.String({ minLength, maxLength }),
      parse(raw) {
        const n = Array.from(raw).length;
        if (n < minLength) return { error: minLength === 1 ? "must not be empty" : `must be at least ${minLength} characters` };
        if (n > maxLength) return { error: `must be at most ${maxLength} characters` };
        return { value: raw };
      },
    };
  },
  enumOf<const V extends string>(values: readonly V[]): QueryParam<V> {
    return {
      schema: Type.Union(values.map((v) => Type.Literal(v))),
      parse: (raw) => ((values as readonly string[]).includes(raw) ? { value: raw as V } : { error: `must be one of ${values.join(", ")}` }),
    };
  },
  bool(): QueryParam<boolean> {
    return {
      schema: Type.Boolean(),
      parse: (raw) => (raw === "true" ? { value: true } : raw === "false" ? { value: false } : { error: "must be true or false" }),
    };
  },
  /** A count (a tree size): a whole number from 0, at most 15 digits. */
  count(): QueryParam<number> {
    return {
      schema: Type.Integer({ minimum: 0 }),
      parse: (raw) => (/^(0|[1-9][0-9]{0,14})$/.test(raw) ? { value: Number(raw) } : { error: "must be a whole number, 0 or more" }),
    };
  },
  /** A resource ID with its prefix (`cus_…`). */
  id(prefix: string): QueryParam<string> {
    const re = new RegExp(`^${prefix}_[0-9a-z]{26}$`);
    return {
      schema: Type.String({ pattern: re.source }),
      parse: (raw) => (re.test(raw) ? { value: raw } : { error: `must be a ${prefix}_ identifier` }),
    };
  },
};

export function parseQuery<S extends Spec>(spec: S | undefined, params: URLSearchParams): QueryOf<S> {
  const issues: Issue[] = [];
  const out: Record<string, unknown> = Object.create(null);
  const seen = new Set<string>();
  for (const [name, raw] of params) {
    // Own properties only: "__proto__" or "constructor" is an unknown parameter, not the prototype.
    const p = spec && Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!p) {
      issues.push({ path: name, message: "is not an accepted parameter" });
      continue;
    }
    if (seen.has(name)) {
      issues.push({ path: name, message: "is given more than once" });
      continue;
    }
    seen.add(name);
    if (raw.includes("\u0000")) {
      issues.push({ path: name, message: "must not contain a NUL character" });
      continue;
    }
    const r = p.parse(raw);
    if ("error" in r) issues.push({ path: name, message: r.error });
    else out[name] = r.value;
  }
  if (issues.length) {
    throw apiError("INVALID_QUERY", {
      message: issues.map((i) => `${i.path} ${i.message}`).join("; "),
      details: { issues },
    });
  }
  for (const [name, p] of Object.entries(spec ?? {})) if (!(name in out) && p.default !== undefined) out[name] = p.default;
  return out as QueryOf<S>;
}
