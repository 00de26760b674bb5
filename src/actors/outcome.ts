// What actors answer an ask with: refusals are values the HTTP layer turns into the spec's error.
import type { ErrorCode } from "../domain/errors.ts";

export type Outcome<T = unknown> = { ok: true; data: T; status?: number } | { ok: false; code: ErrorCode; message?: string; details?: Record<string, unknown> };

/** The one way an actor refuses: the spec's code, the reason in words (the envelope's `error`), the code's details. */
export const refuse = (code: ErrorCode, message?: string, details?: Record<string, unknown>): Extract<Outcome, { ok: false }> => ({ ok: false, code, message, details });
