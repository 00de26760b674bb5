// The JSON reader's nesting scan counts brackets outside strings only (escapes included), and stops early.
import { describe, expect, test } from "bun:test";
import { jsonTooDeep, MAX_JSON_DEPTH, parseJsonLimited } from "../../src/adapters/net/read.ts";

describe("nesting is counted outside strings", () => {
  const cases: [string, number][] = [
    ["1", 0],
    ['"[[[["', 0],
    ["{}", 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['{"a":"]]]]","b":[["\\"[["]]}', 3],
    ['["\\\\",[]]', 2],
  ];
  for (const [text, depth] of cases) {
    test(`${text} is ${depth} deep`, () => {
      if (depth > 0) expect(jsonTooDeep(text, depth - 1)).toBe(true);
      expect(jsonTooDeep(text, depth)).toBe(false);
    });
  }
});

describe("parseJsonLimited", () => {
  test(`at most ${MAX_JSON_DEPTH} levels parse; one more is refused as too deep; bad text as not JSON; brackets in strings do not count`, () => {
    const nest = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(parseJsonLimited(nest(MAX_JSON_DEPTH))).toMatchObject({ ok: true });
    expect(parseJsonLimited(nest(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, reason: "too_deep" });
    expect(parseJsonLimited("{nope")).toEqual({ ok: false, reason: "not_json" });
    expect(parseJsonLimited(`{"a":"${"[".repeat(40)}"}`)).toEqual({ ok: true, value: { a: "[".repeat(40) } });
  });
});
