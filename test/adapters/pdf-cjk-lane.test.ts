// The PDF lane of a report (hasCjk: the one-at-a-time CJK renderer, Part 2 PDF_RENDERER_BUSY) and the font of each
// character (fontFor) come from one script table: a character drawn with a CJK font always puts its report on the
// CJK lane, and no other character does. Checked over every BMP code point and the astral Han planes' edges.
import { test, expect } from "bun:test";
import { hasCjk } from "../../src/domain/reports/report.ts";
import { fontFor } from "../../src/adapters/pdf/fonts.ts";

test("hasCjk and fontFor agree on every character", () => {
  const disagree: string[] = [];
  const check = (cp: number) => {
    const ch = String.fromCodePoint(cp);
    if (hasCjk(ch) !== (fontFor(ch) !== "latin")) disagree.push(cp.toString(16));
  };
  for (let cp = 0; cp <= 0xffff; cp++) if (cp < 0xd800 || cp > 0xdfff) check(cp);
  for (const cp of [0x1ffff, 0x20000, 0x2a6df, 0x2ffff, 0x30000]) check(cp);
  expect(disagree).toEqual([]);
  // The ranges the two used to disagree on: enclosed CJK, bopomofo, radicals, vertical forms, Hangul extensions.
  for (const ch of ["㈱", "ㄅ", "⺀", "︰", "ꥠ", "ힰ"]) expect([hasCjk(ch), fontFor(ch) !== "latin"]).toEqual([true, true]);
  expect([hasCjk("Zürich é"), fontFor("é")]).toEqual([false, "latin"]);
});
