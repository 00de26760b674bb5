// What actors answer an ask with: refusals are values the HTTP layer turns into the spec's error.
import type { ErrorCode } from "../domain/errors.ts";

export type Outcome<T = unknown> = { ok: true; data: T; status?: number } | { ok: false; code: ErrorCode; message?: string; details?: Record<string, unknown> };

export const refuse = (code: ErrorCode, details?: Record<string, unknown>, message?: string): Extract<Outcome, { ok: false }> => ({ ok: false, code, details, message });
