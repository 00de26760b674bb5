// The operator console (issue 18): an Ink app that is a client of the HTTP API only. Tabs, a status line, the
// live event stream (polling when it is refused), and `caravan console --url --key`.
import { Component, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Box, Text, render, useApp, useInput, useWindowSize } from "ink";
import { parseArgs } from "node:util";
import process from "node:process";
import { ApiClient, EventStream, nodeUrls, type Health, type StreamEvent, type StreamState } from "./client.ts";
import { ConsoleContext, type ConsoleState, type Me, type ScreenCommand } from "./context.ts";
import { SCREENS, type ScreenId } from "./keys.ts";
import { ThemeContext, useTone } from "./theme.tsx";
import { TabBar } from "./components/TabBar.tsx";
import { StatusLine } from "./components/StatusLine.tsx";
import { Help } from "./components/Help.tsx";
import { CommandLine, parseCommand } from "./components/CommandLine.tsx";
import { Overview } from "./screens/Overview.tsx";
import { Transfers } from "./screens/Transfers.tsx";
import { Cases } from "./screens/Cases.tsx";
import { Deliveries } from "./screens/Deliveries.tsx";
import { Reports, type SaveFile } from "./screens/Reports.tsx";
import { Filing } from "./screens/Filing.tsx";
import { Customers } from "./screens/Customers.tsx";
import { Audit } from "./screens/Audit.tsx";
import { Rules } from "./screens/Rules.tsx";
import { Team } from "./screens/Team.tsx";
import { DeadLetters } from "./screens/DeadLetters.tsx";
import { SignIn } from "./screens/SignIn.tsx";
import { paths } from "./api.ts";
import type { SessionCreated } from "../api/index.ts";
import { UsageError } from "../api/usage.ts";
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, keyPacedStdin } from "./key-pacing.ts";
import { ALT_SCREEN_OFF, ALT_SCREEN_ON } from "./terminal.ts";

/** Opens the live stream; tests pass a stub. Returns how to stop it. */
export type ConnectStream = (onEvent: (e: StreamEvent) => void, onState: (s: StreamState) => void) => { stop(): void };

export interface AppProps {
  client: ApiClient;
  connect?: ConnectStream;
  noColor?: boolean;
  initial?: ScreenId;
  save?: SaveFile;
  clock?: () => number;
  /** Where `y` copies to; default: the terminal's clipboard through OSC 52. */
  clipboard?: (text: string) => void;
}

/** OSC 52: the terminal (and tmux with set-clipboard) puts the text on the system clipboard. */
export function osc52(text: string): string {
  return `\u001B]52;c;${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}\u0007`;
}

export const streamConnector =
  (url: string, key: string, f?: typeof fetch): ConnectStream =>
  (onEvent, onState) =>
    new EventStream({ url, key, fetch: f }, onEvent, onState).start();

/** Whatever goes wrong inside a screen: one line, never a stack trace. */
class Guard extends Component<{ children: ReactNode }, { error: string | null }> {
  override state = { error: null as string | null };
  static getDerivedStateFromError(e: unknown) {
    return { error: e instanceof Error ? e.message.split("\n")[0] : String(e) };
  }
  override render() {
    if (this.state.error) return <Text>{`This screen failed (${this.state.error}). Switch screens or press R to retry.`}</Text>;
    return this.props.children;
  }
}

function Screen({ id, height, width, go, focusCase, focusTransfer, openCase, openTransfer, save }: { id: ScreenId; height: number; width: number; go: (s: ScreenId) => void; focusCase: { id: string; n: number } | null; focusTransfer: { id: string; n: number } | null; openCase: (id: string) => void; openTransfer: (id: string) => void; save?: SaveFile }) {
  switch (id) {
    case "overview":
      return <Overview height={height} width={width} go={go} />;
    case "transfers":
      return <Transfers height={height} width={width} openCase={openCase} focus={focusTransfer} />;
    case "cases":
      return <Cases height={height} width={width} focus={focusCase} />;
    case "deliveries":
      return <Deliveries height={height} width={width} openCase={openCase} openTransfer={openTransfer} />;
    case "reports":
      return <Reports height={height} width={width} save={save} />;
    case "filing":
      return <Filing height={height} width={width} />;
    case "customers":
      return <Customers height={height} width={width} openTransfer={openTransfer} />;
    case "audit":
      return <Audit height={height} width={width} />;
    case "rules":
      return <Rules height={height} width={width} />;
    case "team":
      return <Team height={height} width={width} />;
    case "dead-letters":
      return <DeadLetters height={height} width={width} />;
  }
}

/** Before the first answer: what is happening, in one line. */
function Waiting({ health, url }: { health: Health; url: string }) {
  const tone = useTone();
  if (health.kind === "unreachable") return <Text color={tone("bad")}>{`${health.message}. Retrying every 2 s; check --url or CARAVAN_URL.`}</Text>;
  if (health.kind === "refused" && health.code === "SESSION_ENDED") return <Text color={tone("bad")}>{`The session has ended (${health.message}). Quit (q) and sign in again.`}</Text>;
  if (health.kind === "refused") return <Text color={tone("bad")}>{`The server refused the key: ${health.code} (${health.message}). Retrying every 2 s; check --key or CARAVAN_API_KEY.`}</Text>;
  return <Text dimColor>{`Connecting to ${url}…`}</Text>;
}

export function App({ client, connect, noColor = false, initial = "overview", save, clock = Date.now, clipboard }: AppProps) {
  const { exit } = useApp();
  const { columns, rows } = useWindowSize();
  const width = Math.max(40, columns || 80);
  const height = Math.max(12, rows || 24);
  const [screen, setScreen] = useState<ScreenId>(initial);
  const [help, setHelp] = useState(false);
  const [me, setMe] = useState<Me | null>(null);
  // Screens wait for /me so that they ask only for what the key may read.
  const [meReady, setMeReady] = useState(false);
  const [health, setHealth] = useState<Health>(client.health);
  const [stream, setStream] = useState<StreamState>({ kind: "connecting", attempt: 0 });
  const [ticks, setTicks] = useState<Record<string, number>>({});
  const [modal, setModal] = useState(false);
  const [message, setMessage] = useState<{ text: string; tone?: "ok" | "bad" } | null>(null);
  const [focusCase, setFocusCase] = useState<{ id: string; n: number } | null>(null);
  const [focusTransfer, setFocusTransfer] = useState<{ id: string; n: number } | null>(null);
  const [command, setCommand] = useState<ScreenCommand | null>(null);
  const [prompt, setPrompt] = useState(false);
  const tone = useTone();

  useEffect(() => client.onHealth(setHealth), [client]);

  // Who the key is; retried while the server cannot be reached; an older server without /me leaves it unknown.
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout>;
    const load = async () => {
      const r = await client.get<Me>("/api/v2/me");
      if (stop) return;
      if (r.ok) {
        setMe(r.data);
        setMeReady(true);
      } else if (r.status === 0 || r.status === 401 || r.status === 403 || r.status === 429 || r.status >= 500) timer = setTimeout(load, 2_000);
      else setMeReady(true); // an older server without /me: the API decides each call
    };
    void load();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [client]);

  // Events: bump the topic's counter (throttled by the screens' reloads).
  useEffect(() => {
    if (!connect) return setStream({ kind: "polling", reason: "stream off" });
    let wasOffline = false;
    const s = connect(
      (e) => {
        const topic = e.type.split(".")[0];
        setTicks((t) => ({ ...t, [topic]: (t[topic] ?? 0) + 1, ...(topic === "compliance" ? { transfer: (t.transfer ?? 0) + 1 } : {}) }));
      },
      (state) => {
        setStream(state);
        // Live again after the server (or, with several nodes, the node) was lost: every screen reloads once, which
        // also moves the API client on to a node that answers.
        if (state.kind === "offline") wasOffline = true;
        else if (state.kind === "live" && wasOffline) {
          wasOffline = false;
          setTicks((t) => ({ ...t, reload: (t.reload ?? 0) + 1 }));
        }
      },
    );
    return () => s.stop();
  }, [connect]);

  const flashTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const flash = useCallback((text: string, t?: "ok" | "bad") => {
    setMessage({ text, tone: t });
    if (flashTimer.current) clearTimeout(flashTimer.current);
    flashTimer.current = setTimeout(() => setMessage(null), 15_000);
  }, []);
  useEffect(() => () => void (flashTimer.current && clearTimeout(flashTimer.current)), []);

  const go = useCallback((s: ScreenId) => {
    setScreen(s);
    setHelp(false);
    setMessage(null); // a flash belongs to the screen it was said on
  }, []);
  const openCase = useCallback((id: string) => {
    setFocusCase((f) => ({ id, n: (f?.n ?? 0) + 1 }));
    setScreen("cases");
  }, []);
  // A transfer opened from another screen (Customers): as `:trf_…` does.
  const openTransfer = useCallback(
    (id: string) => {
      setFocusTransfer((f) => ({ id, n: (f?.n ?? 0) + 1 }));
      go("transfers");
    },
    [go],
  );
  const copy = useCallback((text: string) => (clipboard ? clipboard(text) : void process.stdout.write(osc52(text))), [clipboard]);

  // `:` commands: screens, quit, help, reload and IDs here; sort, filter, search and the like go to the screen.
  const runCommand = (line: string) => {
    setPrompt(false);
    setModal(false);
    const c = parseCommand(line);
    if (!c) return;
    switch (c.kind) {
      case "screen":
        return go(c.screen);
      case "quit":
        return exit();
      case "help":
        return setHelp(true);
      case "reload":
        return setTicks((t) => Object.fromEntries(["transfer", "case", "reload", ...Object.keys(t)].map((k) => [k, (t[k] ?? 0) + 1])));
      case "transfer":
        setFocusTransfer((f) => ({ id: c.id, n: (f?.n ?? 0) + 1 }));
        return go("transfers");
      case "case":
        return openCase(c.id);
      case "screenCommand":
        if (c.name === "signout") {
          // Ends the session on the server (DELETE /api/v2/sessions/current), then quits.
          if (!client.signedIn) return flash("✕ signed in with an API key: there is no session to end", "bad");
          return void client.send("DELETE", paths.sessionCurrent()).then(() => exit());
        }
        return setCommand((p) => ({ n: (p?.n ?? 0) + 1, name: c.name, args: c.args }));
    }
  };

  useInput(
    (input, key) => {
      if (modal) return;
      if (help) return setHelp(false);
      if (input === "q" || (key.ctrl && input === "c")) return exit();
      if (input === "?") return setHelp(true);
      if (input === ":") {
        setModal(true);
        return setPrompt(true);
      }
      if (input === "R") return setTicks((t) => Object.fromEntries(["transfer", "case", "reload", ...Object.keys(t)].map((k) => [k, (t[k] ?? 0) + 1])));
      const i = SCREENS.findIndex((s) => s.id === screen);
      if (/^[1-9]$/.test(input) && SCREENS[Number(input) - 1]) return go(SCREENS[Number(input) - 1].id);
      if (key.tab) return go(SCREENS[(i + (key.shift ? SCREENS.length - 1 : 1)) % SCREENS.length].id);
    },
    { isActive: !modal },
  );

  const state: ConsoleState = useMemo(
    () => ({ client, me, stream, ticks, modal, setModal, flash, now: clock, copy, command }),
    [client, me, stream, ticks, modal, flash, clock, copy, command],
  );
  const bodyHeight = height - 3;
  return (
    <ThemeContext.Provider value={{ noColor }}>
      <ConsoleContext.Provider value={state}>
        <Box flexDirection="column" width={width} height={height}>
          <TabBar active={screen} width={width} />
          <Box height={bodyHeight} flexDirection="column">
            {!meReady ? (
              <Waiting health={health} url={client.url} />
            ) : help ? (
              <Help screen={screen} />
            ) : (
              <Guard key={screen}>
                <Screen id={screen} height={bodyHeight} width={width} go={go} focusCase={focusCase} focusTransfer={focusTransfer} openCase={openCase} openTransfer={openTransfer} save={save} />
              </Guard>
            )}
          </Box>
          {prompt ? (
            <CommandLine
              onDone={runCommand}
              onCancel={() => {
                setPrompt(false);
                setModal(false);
              }}
            />
          ) : (
            <Text wrap="truncate" color={message?.tone === "bad" ? tone("bad") : message?.tone === "ok" ? tone("ok") : undefined}>
              {message?.text ?? " "}
            </Text>
          )}
          <StatusLine url={client.url} me={me} health={health} stream={stream} width={width} />
        </Box>
      </ConsoleContext.Provider>
    </ThemeContext.Provider>
  );
}

/** Wrap App with the theme so `useTone` in App sees NO_COLOR too. */
export function ConsoleApp(props: AppProps) {
  return (
    <ThemeContext.Provider value={{ noColor: props.noColor ?? false }}>
      <App {...props} />
    </ThemeContext.Provider>
  );
}

/**
 * Without a key: the sign-in screen, then the console as the signed-in member (a session: the officer's powers).
 * Tests pass `fetch` and a stream connector of their own.
 */
export function SignedInConsole({ url, noColor = false, fetch: f, connect, initial }: { url: string; noColor?: boolean; fetch?: typeof fetch; connect?: (session: string) => ConnectStream; initial?: ScreenId }) {
  const [session, setSession] = useState<SessionCreated | null>(null);
  const anonymous = useMemo(() => new ApiClient({ url, fetch: f }), [url, f]);
  const client = useMemo(() => (session ? new ApiClient({ url, session: session.token, fetch: f }) : null), [url, session, f]);
  if (!client || !session)
    return (
      <ThemeContext.Provider value={{ noColor }}>
        <SignIn client={anonymous} onSignedIn={setSession} />
      </ThemeContext.Provider>
    );
  return <ConsoleApp client={client} connect={connect ? connect(session.token) : (onEvent, onState) => new EventStream({ url, session: session.token, fetch: f }, onEvent, onState).start()} noColor={noColor} initial={initial} />;
}

/** `caravan console [--url U] [--key K]`: CARAVAN_URL (default http://127.0.0.1:8080), CARAVAN_API_KEY; no key: sign in. */
export async function runConsole(args: string[], env: Record<string, string | undefined>): Promise<void> {
  const { values } = parseArgs({ args, options: { url: { type: "string" }, key: { type: "string" } }, strict: true });
  const url = values.url ?? env.CARAVAN_URL ?? "http://127.0.0.1:8080";
  const key = values.key ?? env.CARAVAN_API_KEY;
  // Several nodes of one service: --url http://a:8080,http://b:8080 (the console moves to the next when one fails).
  for (const u of nodeUrls(url)) {
    try {
      new URL(u);
    } catch {
      throw new UsageError(`"${u}" is not a URL (give --url http://host:port, or several separated by commas)`);
    }
  }
  if (!process.stdin.isTTY) throw new UsageError("console needs a terminal: stdin is not a TTY (run it in a terminal, tmux or screen)");
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  // Interactive whenever it has a terminal: Ink would otherwise fall back to printing one final frame when a `CI`
  // variable is set (a terminal opened by a CI job, or an operator's shell that exports it).
  // Keys are read one at a time, each after the screen took the one before (see key-pacing.ts): keys that arrive
  // together are each acted on, in order. Bracketed paste (the terminal marks a paste) keeps a paste one input, so
  // a narrative pasted into the filing editor arrives at once rather than a key per render.
  const pasteMarks = Boolean(process.stdout.isTTY);
  // The alternate screen, as full-screen terminal programs use it: on `q` the terminal shows what it showed before,
  // and no frame (names included) is left behind.
  if (pasteMarks) process.stdout.write(ALT_SCREEN_ON + BRACKETED_PASTE_ON);
  try {
    const root = key ? <ConsoleApp client={new ApiClient({ url, key })} connect={streamConnector(url, key)} noColor={noColor} /> : <SignedInConsole url={url} noColor={noColor} />;
    const app = render(root, {
      exitOnCtrlC: true,
      interactive: Boolean(process.stdout.isTTY),
      stdin: keyPacedStdin(process.stdin),
    });
    await app.waitUntilExit();
  } finally {
    if (pasteMarks) process.stdout.write(BRACKETED_PASTE_OFF + ALT_SCREEN_OFF);
  }
}
