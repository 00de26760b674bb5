// Turns an actor's Outcome into a reply or the spec's error; actor time-outs become 503 with Retry-After.
import { apiError, type ErrorCode } from "../domain/errors.ts";
import { ActorTimeoutError } from "../actors/types.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import type { Outcome } from "../actors/outcome.ts";

export async function askActor<T>(runtime: ActorRuntime, address: string, msg: unknown): Promise<Outcome<T>> {
  try {
    return await runtime.ask<Outcome<T>>(address, msg, { timeoutMs: 15_000 });
  } catch (e) {
    if (e instanceof ActorTimeoutError)
      throw apiError("SERVICE_UNAVAILABLE", { message: "The change is queued but did not finish in time; read the record before retrying", headers: { "Retry-After": "5" } });
    throw e;
  }
}

export function unwrap<T>(o: Outcome<T>): { data: T; status: number } {
  if (o.ok) return { data: o.data, status: o.status ?? 200 };
  throw apiError(o.code as ErrorCode, { message: o.message, details: o.details });
}
