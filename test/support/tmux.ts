// A real terminal for the console's end-to-end tests: tmux on a socket of the test's own, keys sent one at a time,
// the screen read back with capture-pane, waits on what the screen shows (never on a fixed time).
import { join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { repoRoot } from "./server.ts";

export const hasTmux = Bun.spawnSync(["sh", "-c", "command -v tmux"]).exitCode === 0;

export function terminal(name: string) {
  const socket = `${name}-${process.pid}`;

  function tmux(...args: string[]): string {
    const r = Bun.spawnSync(["tmux", "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  }

  const screen = (session: string) => tmux("capture-pane", "-p", "-t", session);

  return {
    tmux,
    screen,
    /** One key per call. */
    async press(session: string, ...keys: string[]) {
      for (const k of keys) {
        tmux("send-keys", "-t", session, k);
        await Bun.sleep(150);
      }
    },
    /** Keys typed ahead: one `send-keys`, so they reach the console in one write, as from a fast typist. */
    async pressTogether(session: string, ...keys: string[]) {
      tmux("send-keys", "-t", session, ...keys);
      await Bun.sleep(150);
    },
    /** Text typed into a prompt at once (a paste: the prompt takes it as one input). */
    async type(session: string, text: string) {
      tmux("send-keys", "-t", session, "-l", text);
      await Bun.sleep(150);
    },
    /** Waits until the screen satisfies `ok`; `ms` bounds the wait (the hang guard is the test timeout). */
    async until(session: string, ok: (s: string) => boolean, ms = 20_000): Promise<string> {
      const deadline = Date.now() + ms;
      let s = "";
      while (Date.now() < deadline) {
        s = screen(session);
        if (ok(s)) return s;
        await Bun.sleep(50);
      }
      throw new Error(`screen never matched within ${ms} ms:\n${s}`);
    },
    /** `caravan console` against `url` with `key`, in a new session of `size` columns × rows. */
    openConsole(session: string, url: string, key: string, o: { env?: string; size?: [number, number] } = {}) {
      const [x, y] = o.size ?? [80, 24];
      const cmd = `cd ${repoRoot} && ${o.env ?? ""} CARAVAN_URL=${url} CARAVAN_API_KEY=${key} bun src/main.ts console; sleep 30`;
      tmux("new-session", "-d", "-s", session, "-x", String(x), "-y", String(y), cmd);
    },
    /**
     * `caravan console` without a key: the sign-in screen, where the member types email, passphrase and the code of
     * their authenticator (`code()`), test environment; resolves once the console shows them signed in.
     */
    async signIn(session: string, url: string, m: { email: string; passphrase: string; code(): string }, o: { size?: [number, number] } = {}) {
      const [x, y] = o.size ?? [80, 24];
      const cmd = `cd ${repoRoot} && CARAVAN_URL=${url} CARAVAN_API_KEY= bun src/main.ts console; sleep 30`;
      tmux("new-session", "-d", "-s", session, "-x", String(x), "-y", String(y), cmd);
      const until = async (ok: (s: string) => boolean) => {
        const deadline = Date.now() + 20_000;
        while (Date.now() < deadline) {
          if (ok(screen(session))) return;
          await Bun.sleep(50);
        }
        throw new Error(`sign-in screen never matched:\n${screen(session)}`);
      };
      await until((s) => s.includes("Passphrase"));
      for (const text of [m.email, m.passphrase, m.code()]) {
        tmux("send-keys", "-t", session, "-l", text);
        await Bun.sleep(150);
        tmux("send-keys", "-t", session, "Enter");
        await Bun.sleep(150);
      }
      tmux("send-keys", "-t", session, "Enter"); // environment: test
      await until((s) => s.includes(m.email.slice(0, 12)) && !s.includes("Passphrase"));
    },
    /** Saves a screen for docs/console.md when CONSOLE_CAPTURES names a directory. */
    capture(captureName: string, s: string) {
      const out = process.env.CONSOLE_CAPTURES;
      if (!out) return;
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, `${captureName}.txt`), s.replace(/\s+$/gm, "").replace(/\n+$/, "\n"));
    },
  };
}
