// Customer rules that need no I/O: create-body validation, reasons, name trigrams for the blind search index.
import type { Issue } from "./errors.ts";

export const MAX_TEXT = 255;
export const MAX_REASON = 1000;

export interface CreateCustomerInput {
  externalId: string | null;
  name: string | null;
  metadata: unknown;
  hasMetadata: boolean;
}

const CREATE_FIELDS = new Set(["externalId", "name", "metadata"]);

const chars = (s: string) => Array.from(s).length;

/** Part 1: a body that is not a JSON object, or externalId/name not text of at most 255 characters: 400 VALIDATION_ERROR. */
export function validateCreateCustomer(body: unknown): { ok: true; value: CreateCustomerInput } | { ok: false; issues: Issue[] } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { ok: false, issues: [{ path: "", message: "the body must be a JSON object" }] };
  const b = body as Record<string, unknown>;
  const issues: Issue[] = [];
  for (const k of Object.keys(b)) if (!CREATE_FIELDS.has(k)) issues.push({ path: k, message: "is not an accepted field" });
  for (const f of ["externalId", "name"] as const) {
    const v = b[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") issues.push({ path: f, message: "must be text" });
    else if (chars(v) > MAX_TEXT) issues.push({ path: f, message: `must be at most ${MAX_TEXT} characters` });
  }
  if (issues.length) return { ok: false, issues };
  return {
    ok: true,
    value: {
      externalId: (b.externalId as string | undefined) ?? null,
      name: (b.name as string | undefined) ?? null,
      metadata: b.metadata,
      hasMetadata: b.metadata !== undefined && b.metadata !== null,
    },
  };
}

/** Reasons are kept to their first 1,000 characters (Part 1, Limits). */
export function keepReason(reason: string): string {
  return Array.from(reason).slice(0, MAX_REASON).join("");
}

/** Case-, accent- and spacing-insensitive form used for name search. */
export function normalizeForSearch(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** Distinct trigrams of a normalized text; empty under three characters. */
export function trigrams(normalized: string): string[] {
  const c = Array.from(normalized);
  const out = new Set<string>();
  for (let i = 0; i + 3 <= c.length; i++) out.add(c.slice(i, i + 3).join(""));
  return [...out];
}
