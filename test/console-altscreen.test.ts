// The console in a real terminal (tmux) against the console tests' stub API: it draws on the alternate screen, so
// `q` gives the terminal back as it was, with no frame (member names, transfer IDs) left on it.
import { test, expect, afterAll, setDefaultTimeout } from "bun:test";
import { hasTmux, terminal } from "./support/tmux.ts";
import { Stub } from "./console/stub.ts";

// A child process in a terminal on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const { tmux, screen, press, until, openConsole } = terminal("caravan-console-altscreen");
let stub: Stub | undefined;

afterAll(() => {
  stub?.stop();
  try {
    tmux("kill-server");
  } catch {
    /* no session left */
  }
});

test("q leaves the alternate screen: the terminal shows what it showed before, no frame and no names", async () => {
  if (!hasTmux) throw new Error("tmux is required for the console's terminal tests (Debian package tmux; .ci/run installs it)");
  stub = new Stub();
  openConsole("alt", stub.url, `crv_test_${"a".repeat(64)}`, { size: [100, 30] });
  await until("alt", (s) => s.includes("officer@example.com") && s.includes("Overview"));
  await press("alt", "q");
  // The console has exited (the pane runs `sleep` after it): nothing it drew is left.
  const after = await until("alt", (s) => !s.includes("officer@example.com"), 10_000);
  expect(after).not.toContain("Held transfers");
  expect(after).not.toContain("● live");
  expect(screen("alt")).not.toContain("officer@example.com");
});

test("the key map at 80 columns: the screen's keys wrap instead of being cut", async () => {
  if (!hasTmux) throw new Error("tmux is required for the console's terminal tests (Debian package tmux; .ci/run installs it)");
  stub ??= new Stub();
  openConsole("keys80", stub.url, `crv_test_${"a".repeat(64)}`, { size: [80, 24] });
  await until("keys80", (s) => s.includes("Overview") && s.includes("● live"));
  await press("keys80", "6", "?");
  const s = await until("keys80", (s) => s.includes("Keys everywhere"));
  // The longest Filing entry is all there, over its wrapped lines (the columns sit side by side).
  const joined = s.split("\n").map((l) => l.replace(/[│╭╮╰╯─]/g, " ").trim()).join(" ").replace(/\s+/g, " ");
  expect(joined).toContain("F file with the FIU's");
  expect(joined).toContain("reference (only when nothing");
  expect(joined).toContain("is missing)");
  expect(s).not.toContain("…");
  expect(joined).toContain("quit");
});
