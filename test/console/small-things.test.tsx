// Small things that add up: a flash message belongs to the screen it was said on (switching screens clears it).
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { cleanup } from "ink-testing-library";
import { Stub, list, mount, frame, keys } from "./stub.ts";

setDefaultTimeout(60_000);

let stub: Stub;
afterEach(() => {
  cleanup();
  stub?.stop();
});

test("a flash said on one screen is gone after switching to another", async () => {
  stub = new Stub().on("GET", "/api/v2/reports", list([]));
  const r = mount(stub, "filing");
  await frame(r, (f) => f.includes("Filing ·") && f.includes("● live") && f.includes("no report waiting"));
  await keys(r, "D");
  await frame(r, (f) => f.includes("✕ not allowed"));
  await keys(r, "5");
  const f = await frame(r, (f) => f.includes("Reports ·"));
  expect(f).not.toContain("✕ not allowed");
});
