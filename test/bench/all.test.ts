// bench/all.ts: how a bench's figure is read from its output, and how it is judged against its minimum and target.
import { describe, expect, test } from "bun:test";
import { figureOf, verdict } from "../../bench/all.ts";

describe("bench/all.ts", () => {
  const b = { key: "reads", pattern: /median ([\d.]+)/ };

  test("the figure comes from the last `bench-result {json}` line when the bench prints one, before any summary line", () => {
    expect(figureOf("median 0.111\nbench-result {\"reads\":0.2}\nbench-result {\"reads\":0.45,\"x\":1}\n", b)).toBe(0.45);
  });

  test("without a bench-result line (or without the key in it) the bench's own summary line gives it; with neither there is no figure", () => {
    expect(figureOf("ratio per round: 0.3, 0.5; median 0.412 (minimum 0.40)\n", b)).toBe(0.412);
    expect(figureOf('bench-result {"other":1}\nmedian 0.377\n', b)).toBe(0.377);
    expect(figureOf("nothing here\n", b)).toBeNull();
  });

  test("higher is better by default: target, then minimum, else below; lower is better for `le` (disk, latency ratios)", () => {
    const ge = { minimum: 0.4, target: 0.5 };
    expect(verdict(0.5, ge)).toBe("target reached");
    expect(verdict(0.45, ge)).toBe("minimum reached");
    expect(verdict(0.39, ge)).toBe("below minimum");
    expect(verdict(null, ge)).toBe("no figure");
    const le = { minimum: 2.0, target: 1.5, better: "le" as const };
    expect(verdict(1.5, le)).toBe("target reached");
    expect(verdict(1.9, le)).toBe("minimum reached");
    expect(verdict(2.1, le)).toBe("below minimum");
  });
});
