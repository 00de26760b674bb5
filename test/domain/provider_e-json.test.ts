// The bounded JSON reader of provider_e's untrusted bodies: nesting measured on the text, outside strings.
import { describe, expect, test } from "bun:test";
import { jsonDepth, MAX_JSON_DEPTH, parseBoundedJson } from "../../src/domain/provider_e/json.ts";

describe("jsonDepth", () => {
  const cases: [string, number][] = [
    ["1", 0],
    ['"[[[["', 0],
    ["{}", 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['{"a":"]]]]","b":[["\\"[["]]}', 3],
    ['["\\\\",[]]', 2],
  ];
  for (const [text, depth] of cases) test(`${text} → ${depth}`, () => expect(jsonDepth(text)).toBe(depth));

  test("stops counting past the limit (a 28,000-deep array reads no further than needed)", () => {
    expect(jsonDepth("[".repeat(28_000) + "]".repeat(28_000), 32)).toBe(33);
  });
});

describe("parseBoundedJson", () => {
  test(`at most ${MAX_JSON_DEPTH} levels parse; one more is refused as too deep; bad text as syntax`, () => {
    const nest = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(parseBoundedJson(nest(MAX_JSON_DEPTH))).toMatchObject({ ok: true });
    expect(parseBoundedJson(nest(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, reason: "depth" });
    expect(parseBoundedJson("{nope")).toEqual({ ok: false, reason: "syntax" });
    expect(parseBoundedJson('{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')).toEqual({ ok: true, value: { a: "[".repeat(40) } });
  });
});
