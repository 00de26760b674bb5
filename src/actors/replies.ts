// An ask's answer as it crosses nodes (docs/architecture.md#several-nodes): the holder of the actor writes it as a row
// for the asking node (src/ports/replies.ts), and the asker turns it back into what a local ask resolves or rejects
// with. Values are JSON with the few things plain JSON would change tagged (a Date, a bigint, bytes, an undefined
// property or array element), so the asker gets what a local ask would; errors keep their class and fields
// (StorageUnavailableError's fault, uncertain and queued flags; ShardFencedError's shard), so a route maps them as it
// maps a local one.
import { StorageUnavailableError, type StoreFault } from "../ports/store.ts";
import { ShardFencedError } from "../ports/cluster.ts";
import { ActorDeadLetterError, ActorStoppedError, ActorTimeoutError } from "./types.ts";

/** The key of a tagged value: a control character no JSON a handler builds by accident starts a key with. */
const TAG = "\u0000caravan";

type Tagged = { [TAG]: "date" | "bigint" | "bytes" | "undefined"; v?: string | null };

/** The reply value as JSON text (what is sealed into the row's body). */
export function encodeValue(value: unknown): string {
  return JSON.stringify({ v: value }, function (this: Record<string, unknown>, key, x) {
    const raw = this[key];
    if (raw instanceof Date) return { [TAG]: "date", v: Number.isNaN(raw.getTime()) ? null : raw.toISOString() } satisfies Tagged;
    if (typeof raw === "bigint") return { [TAG]: "bigint", v: raw.toString() } satisfies Tagged;
    if (raw instanceof Uint8Array) return { [TAG]: "bytes", v: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("base64") } satisfies Tagged;
    if (raw === undefined) return { [TAG]: "undefined" } satisfies Tagged;
    return x;
  });
}

/** The value `encodeValue` wrote. */
export function decodeValue(text: string): unknown {
  return untag((JSON.parse(text) as { v: unknown }).v);
}

function untag(x: unknown): unknown {
  if (x === null || typeof x !== "object") return x;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) x[i] = untag(x[i]);
    return x;
  }
  const o = x as Record<string, unknown>;
  if (typeof o[TAG] === "string") {
    const t = o as Tagged;
    if (t[TAG] === "date") return new Date(t.v ?? Number.NaN);
    if (t[TAG] === "bigint") return BigInt(t.v!);
    if (t[TAG] === "bytes") return new Uint8Array(Buffer.from(t.v!, "base64"));
    return undefined;
  }
  for (const k of Object.keys(o)) o[k] = untag(o[k]);
  return o;
}

/** An error as a row carries it: its class and code in the clear, its message and fields in the (sealed) body. */
export interface EncodedError {
  errorClass: string;
  errorCode: string | null;
  body: string;
}

export function encodeError(e: unknown): EncodedError {
  if (e instanceof StorageUnavailableError)
    return { errorClass: "StorageUnavailableError", errorCode: e.fault.class, body: JSON.stringify({ message: e.message, fault: e.fault, queued: e.queued }) };
  if (e instanceof ShardFencedError) return { errorClass: "ShardFencedError", errorCode: null, body: JSON.stringify({ message: e.message, shard: e.shard }) };
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    return { errorClass: e.name || "Error", errorCode: typeof code === "string" ? code : null, body: JSON.stringify({ message: e.message }) };
  }
  return { errorClass: "Error", errorCode: null, body: JSON.stringify({ message: String(e) }) };
}

/** The error `encodeError` wrote, as its own class where the runtime knows it (the ones asks reject with). */
export function decodeError(errorClass: string, body: string): Error {
  const b = JSON.parse(body) as { message?: string; fault?: StoreFault; queued?: boolean; shard?: number };
  const message = b.message ?? "";
  switch (errorClass) {
    case "StorageUnavailableError":
      return new StorageUnavailableError(b.fault ?? { class: "UNKNOWN", cause: message }, b.queued === true);
    case "ShardFencedError":
      return new ShardFencedError(b.shard ?? -1);
    case "ActorDeadLetterError":
      return new ActorDeadLetterError(message);
    case "ActorTimeoutError":
      return new ActorTimeoutError(message);
    case "ActorStoppedError":
      return new ActorStoppedError(message);
    default: {
      const e = new Error(message);
      e.name = errorClass;
      return e;
    }
  }
}

/** The node an ask's token names (`ask_…@<node>`), or null (a token of one process: SQLite, or a runtime with no node). */
export function tokenNode(token: string): string | null {
  const at = token.lastIndexOf("@");
  return at > 0 ? token.slice(at + 1) : null;
}
