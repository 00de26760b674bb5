// The one JSON reader of untrusted bodies (src/adapters/net/read.ts): byte cap first, then strict UTF-8, then a parse
// behind a nesting limit of 32 levels that skips brackets inside strings.
import { test, expect } from "bun:test";
import { decodeJsonLimited, jsonTooDeep, MAX_JSON_DEPTH, parseJsonChecked, parseJsonLimited, readJsonCapped } from "../../src/adapters/net/read.ts";

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);

test("the limit is 32 levels: 32 nested arrays or objects parse, 33 are refused as too deep", () => {
  expect(MAX_JSON_DEPTH).toBe(32);
  expect(parseJsonLimited(nested(32))).toMatchObject({ ok: true });
  expect(parseJsonLimited(nested(33))).toEqual({ ok: false, reason: "too_deep" });
  expect(parseJsonLimited(nestedObjects(32))).toMatchObject({ ok: true });
  expect(parseJsonLimited(nestedObjects(33))).toEqual({ ok: false, reason: "too_deep" });
  expect(() => parseJsonChecked(nested(33))).toThrow(SyntaxError);
});

test.each([
  ["brackets inside a string are text", JSON.stringify({ a: "[".repeat(100) + "{".repeat(100) }), 1, false],
  ["an escaped quote does not end the string", JSON.stringify({ a: 'x"' + "[".repeat(10) }), 1, false],
  ["an escaped backslash before the closing quote ends it", JSON.stringify(["\\", [[1]]]), 2, true],
  ["the same within the limit", JSON.stringify(["\\", [[1]]]), 3, false],
  ["siblings do not add up", JSON.stringify([[1], [2], [3], { a: [4] }]), 3, false],
  ["the deepest branch counts", JSON.stringify([[1], [2], [3], { a: [4] }]), 2, true],
  ["an unterminated string is left to the parser", '"[[[[', 1, false],
] as const)("depth scan: %s", (_name, text, max, deep) => {
  expect(jsonTooDeep(text, max)).toBe(deep);
});

test("a deep body is refused by the scan, not by walking it: 2 MB of nesting and a 32,000-deep array in 64 KB", () => {
  const twoMb = Array.from({ length: 37 }, () => nested(28_000)).join("");
  expect(twoMb.length).toBeGreaterThan(2_000_000);
  expect(parseJsonLimited(twoMb)).toEqual({ ok: false, reason: "too_deep" });
  const metadata = `{"name":"x","metadata":${nested(32_000)}}`;
  expect(metadata.length).toBeLessThanOrEqual(65_536);
  expect(parseJsonLimited(metadata)).toEqual({ ok: false, reason: "too_deep" });
});

test("bytes: strict UTF-8 (a malformed sequence is refused, not replaced), then JSON", () => {
  expect(decodeJsonLimited(new Uint8Array([0x7b, 0xff, 0x7d]))).toEqual({ ok: false, reason: "not_utf8" });
  expect(decodeJsonLimited(new TextEncoder().encode("{nope"))).toEqual({ ok: false, reason: "not_json" });
  expect(decodeJsonLimited(new TextEncoder().encode('{"a":"ü"}'))).toMatchObject({ ok: true, value: { a: "ü" } });
});

test("readJsonCapped: over the byte cap first (nothing parsed), then depth; the raw bytes come back for signatures", async () => {
  const req = (body: string) => new Request("http://127.0.0.1/x", { method: "POST", body });
  expect(await readJsonCapped(req(nested(100)), 150)).toEqual({ ok: false, reason: "too_large" });
  const deep = await readJsonCapped(req(nested(100)), 1000);
  expect(deep.ok).toBe(false);
  expect(deep.ok ? null : deep.reason).toBe("too_deep");
  const ok = await readJsonCapped(req('{"a":[1,2]}'), 1000);
  expect(ok).toMatchObject({ ok: true, value: { a: [1, 2] }, text: '{"a":[1,2]}' });
  expect(ok.ok && new TextDecoder().decode(ok.bytes)).toBe('{"a":[1,2]}');
  const empty = await readJsonCapped(req(""), 1000);
  expect(empty).toMatchObject({ ok: false, reason: "not_json" });
});
