// Resource IDs: prefix, 10 characters of time and 16 of randomness in Crockford base32; sortable by creation, rising
// within one millisecond. The encoding is checked against a plain reference (the first implementation, bit by bit).
import { test, expect } from "bun:test";
import { newId } from "../../src/domain/ids.ts";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** The time and random bytes an ID encodes, decoded back bit by bit. */
function decode(id: string): { time: number; rand: number[] } {
  const body = id.slice(id.indexOf("_") + 1);
  expect(body).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
  let time = 0;
  for (const ch of body.slice(0, 10)) time = time * 32 + ALPHABET.indexOf(ch);
  const bits = [...body.slice(10)].map((ch) => ALPHABET.indexOf(ch).toString(2).padStart(5, "0")).join("");
  const rand = Array.from({ length: 10 }, (_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
  return { time, rand };
}

test("an ID carries its time in milliseconds and 80 random bits; IDs of later milliseconds sort after", () => {
  const t = Date.parse("2026-11-25T10:00:00.000Z");
  const ids = Array.from({ length: 200 }, (_, i) => newId("trf", t + i * 7));
  for (const [i, id] of ids.entries()) {
    expect(id.startsWith("trf_")).toBe(true);
    expect(decode(id).time).toBe(t + i * 7);
  }
  expect([...ids].sort()).toEqual(ids);
  // Different milliseconds draw fresh randomness: 200 IDs have 200 different random parts.
  expect(new Set(ids.map((id) => id.slice(14))).size).toBe(200);
  // The largest 48-bit time still encodes exactly.
  expect(decode(newId("x", 2 ** 48 - 1)).time).toBe(2 ** 48 - 1);
});

test("IDs of one millisecond rise by one in their random part, carrying across bytes", () => {
  const t = Date.parse("2026-11-25T11:00:00.000Z");
  const ids = Array.from({ length: 600 }, () => newId("evt", t));
  expect([...ids].sort()).toEqual(ids);
  expect(new Set(ids).size).toBe(600);
  const value = (id: string) => decode(id).rand.reduce((acc, b) => acc * 256n + BigInt(b), 0n);
  for (let i = 1; i < ids.length; i++) expect(value(ids[i]) - value(ids[i - 1])).toBe(1n);
  // A later millisecond starts over with fresh randomness and still sorts after.
  const later = newId("evt", t + 1);
  expect(later > ids[ids.length - 1]).toBe(true);
});

test("more IDs than one random pool holds (4 KiB, 10 bytes each) stay distinct", () => {
  const t = Date.parse("2026-11-25T12:00:00.000Z");
  const ids = Array.from({ length: 2000 }, (_, i) => newId("cus", t + i));
  expect(new Set(ids.map((id) => id.slice(14))).size).toBe(2000);
});
