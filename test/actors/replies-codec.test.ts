// An ask's answer as it crosses nodes (src/actors/replies.ts): values come back as a local ask resolves with them,
// errors as their own classes with their fields, so that a route maps them as it maps a local one.
import { test, expect } from "bun:test";
import { decodeError, decodeValue, encodeError, encodeValue, tokenNode } from "../../src/actors/replies.ts";
import { StorageUnavailableError } from "../../src/ports/store.ts";
import { ShardFencedError } from "../../src/ports/cluster.ts";
import { ActorDeadLetterError, ActorStoppedError, ActorTimeoutError } from "../../src/actors/types.ts";
import { storageUnavailable } from "../../src/http/kit.ts";

const roundTrip = (v: unknown) => decodeValue(encodeValue(v));
const crossed = (e: unknown) => {
  const x = encodeError(e);
  return decodeError(x.errorClass, x.body);
};

test("values: plain JSON as it is; a Date, a bigint, bytes and undefined (a property's, an element's, the whole answer) kept", () => {
  const outcome = { ok: false, code: "TRANSFER_NOT_FOUND", message: "no such transfer", details: { id: "trf_1", n: [1, 2.5, null, true, "x"] } };
  expect(roundTrip(outcome)).toEqual(outcome);
  expect(roundTrip(null)).toBeNull();
  expect(roundTrip(undefined)).toBeUndefined();
  expect(roundTrip("text")).toBe("text");
  const at = new Date("2026-12-02T06:00:00.123Z");
  const v = roundTrip({ ok: true, data: { at, big: 2n ** 70n, bytes: new Uint8Array([0, 1, 255]), gone: undefined, list: [undefined, at], nested: { deep: [{ when: at }] } } }) as {
    ok: true;
    data: Record<string, unknown> & { list: unknown[]; nested: { deep: { when: Date }[] } };
  };
  expect(v.data.at).toBeInstanceOf(Date);
  expect((v.data.at as Date).toISOString()).toBe("2026-12-02T06:00:00.123Z");
  expect(v.data.big).toBe(2n ** 70n);
  expect(v.data.bytes).toEqual(new Uint8Array([0, 1, 255]));
  expect(Object.hasOwn(v.data, "gone")).toBe(true);
  expect(v.data.gone).toBeUndefined();
  expect(v.data.list.length).toBe(2);
  expect(v.data.list[0]).toBeUndefined();
  expect(v.data.nested.deep[0]!.when.getTime()).toBe(at.getTime());
  // A Buffer is bytes too; an invalid Date stays invalid.
  expect(roundTrip(Buffer.from("hi"))).toEqual(new Uint8Array([104, 105]));
  expect(Number.isNaN((roundTrip(new Date(Number.NaN)) as Date).getTime())).toBe(true);
});

test("errors: the runtime's classes with their fields; a StorageUnavailableError keeps its fault, uncertain and queued, and maps to the same 503", () => {
  const lost = new StorageUnavailableError({ class: "PG_LOST", cause: "connection terminated", uncertain: true });
  const back = crossed(lost);
  expect(back).toBeInstanceOf(StorageUnavailableError);
  expect((back as StorageUnavailableError).fault).toEqual(lost.fault);
  expect((back as StorageUnavailableError).queued).toBe(false);
  expect(back.message).toBe(lost.message);
  expect(encodeError(lost).errorCode).toBe("PG_LOST");
  // The route's answer is the same for the crossed error as for the local one: "may or may not" when uncertain.
  expect(storageUnavailable(back)).toEqual(storageUnavailable(lost));
  expect(storageUnavailable(back)!.message).toContain("may or may not");
  const queued = new StorageUnavailableError({ class: "PG_FULL", cause: "disk full" }, true);
  expect((crossed(queued) as StorageUnavailableError).queued).toBe(true);
  expect(storageUnavailable(crossed(queued))).toEqual(storageUnavailable(queued));

  const fenced = crossed(new ShardFencedError(17));
  expect(fenced).toBeInstanceOf(ShardFencedError);
  expect((fenced as ShardFencedError).shard).toBe(17);
  for (const E of [ActorDeadLetterError, ActorTimeoutError, ActorStoppedError]) {
    const e = crossed(new E("customer:cus_1 could not handle the message: TypeError: x"));
    expect(e).toBeInstanceOf(E);
    expect(e.message).toBe("customer:cus_1 could not handle the message: TypeError: x");
    expect(e.name).toBe(E.name);
  }
  const other = crossed(new RangeError("out of range"));
  expect(other.name).toBe("RangeError");
  expect(other.message).toBe("out of range");
  expect(crossed("a string").message).toBe("a string");
});

test("a token names its node after the last @; a token of one process names none", () => {
  expect(tokenNode("ask_01abc@node-a")).toBe("node-a");
  expect(tokenNode("ask_01abc@cli-12ab")).toBe("cli-12ab");
  expect(tokenNode("ask_01abc")).toBeNull();
});
