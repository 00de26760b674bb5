// Event IDs (src/adapters/crypto/event-ids.ts): the shared seq enciphered per company and environment, deciphered back
// exactly; IDs of another tenant, another key, or altered ones are refused; the portable cipher gives the same IDs.
import { test, expect } from "bun:test";
import { ecb } from "@noble/ciphers/aes.js";
import { base64urlnopad } from "@scure/base";
import { EventIds } from "../../src/adapters/crypto/event-ids.ts";
import { hmacSha256 } from "../../src/adapters/crypto/hash.ts";

const key = new Uint8Array(32).map((_, i) => i);

test("an ID deciphers to its seq for its company and environment only; altered or made-up IDs are refused", () => {
  const ids = new EventIds(key);
  for (const seq of [0, 1, 2, 4711, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
    const id = ids.encode("cmp_a", "test", seq);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ids.decode("cmp_a", "test", id)).toBe(seq);
    expect(ids.decode("cmp_b", "test", id)).toBeNull();
    expect(ids.decode("cmp_a", "live", id)).toBeNull();
    expect(new EventIds(new Uint8Array(32)).decode("cmp_a", "test", id)).toBeNull();
  }
  // Consecutive seqs give unrelated IDs (nothing to subtract).
  const a = ids.encode("cmp_a", "test", 100);
  const b = ids.encode("cmp_a", "test", 101);
  expect(a.slice(0, 4)).not.toBe(b.slice(0, 4));
  const id = ids.encode("cmp_a", "test", 42);
  for (let i = 0; i < id.length; i++) {
    const altered = id.slice(0, i) + (id[i] === "A" ? "B" : "A") + id.slice(i + 1);
    expect(ids.decode("cmp_a", "test", altered)).toBeNull();
  }
  for (const bad of ["", "0", "42", "A".repeat(21), "A".repeat(23), "!".repeat(22)]) expect(ids.decode("cmp_a", "test", bad)).toBeNull();
});

test("the native cipher and the portable one (@noble/ciphers) give the same IDs", () => {
  const ids = new EventIds(key);
  const tenantKey = hmacSha256(key, new TextEncoder().encode("cmp_a|test")).slice(0, 16);
  const block = new Uint8Array(16);
  new DataView(block.buffer).setBigUint64(0, 4711n);
  block.set(new TextEncoder().encode("crvevt\u0000\u0001"), 8);
  expect(ids.encode("cmp_a", "test", 4711)).toBe(base64urlnopad.encode(ecb(tenantKey, { disablePadding: true }).encrypt(block)));
});
