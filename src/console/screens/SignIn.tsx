// The sign-in screen: a member proves who they are (email, passphrase, the authenticator's code) and the console
// becomes theirs for a session; the first time (or after a lost second factor) they set up with the one-time code
// `caravan members setup` printed on the host. Nothing typed here is kept or logged; the passphrase shows as dots.
import { useState } from "react";
import { Box, Text, useApp, useInput } from "ink";
import { paths } from "../api.ts";
import type { ApiClient } from "../client.ts";
import type { SessionCreated, SetupStarted } from "../../api/index.ts";
import { useTone } from "../theme.tsx";

type Mode = "signIn" | "setup" | "confirm";
interface Field {
  name: string;
  label: string;
  secret?: boolean;
  choice?: readonly string[];
}

const FIELDS: Record<Mode, Field[]> = {
  signIn: [
    { name: "email", label: "Email" },
    { name: "passphrase", label: "Passphrase", secret: true },
    { name: "code", label: "Code" },
    { name: "environment", label: "Environment", choice: ["test", "live"] },
  ],
  setup: [
    { name: "email", label: "Email" },
    { name: "setupCode", label: "Setup code" },
    { name: "passphrase", label: "New passphrase", secret: true },
  ],
  confirm: [
    { name: "code", label: "Code" },
    { name: "environment", label: "Environment", choice: ["test", "live"] },
  ],
};

/**
 * A listener that never changes: the field handler below is a new function each render, and Ink re-subscribes it;
 * without a second, steady listener the terminal's raw mode would be dropped and taken again at every key, and keys
 * typed ahead (handed on one at a time, key-pacing.ts) would be lost in between.
 */
const KEEP_RAW = () => {};

export interface SignInProps {
  /** A client without a credential: the sign-in routes need none. */
  client: ApiClient;
  onSignedIn(s: SessionCreated): void;
}

export function SignIn({ client, onSignedIn }: SignInProps) {
  const { exit } = useApp();
  const tone = useTone();
  const [mode, setMode] = useState<Mode>("signIn");
  const [values, setValues] = useState<Record<string, string>>({ environment: "test" });
  const [at, setAt] = useState(0);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; bad?: boolean } | null>(null);
  const [secret, setSecret] = useState<SetupStarted | null>(null);
  const fields = FIELDS[mode];
  const field = fields[at];

  const submit = async () => {
    setBusy(true);
    setMessage(null);
    const v = values;
    try {
      if (mode === "signIn") {
        const r = await client.send<SessionCreated>("POST", paths.sessions(), { email: v.email ?? "", passphrase: v.passphrase ?? "", code: (v.code ?? "").trim(), environment: v.environment });
        if (r.ok) return onSignedIn(r.data);
        setValues((x) => ({ ...x, passphrase: "", code: "" }));
        setAt(1);
        return setMessage({ text: `✕ ${r.code}: ${r.error}`, bad: true });
      }
      if (mode === "setup") {
        const r = await client.send<SetupStarted>("POST", paths.sessionSetup(), { email: v.email ?? "", setupCode: v.setupCode ?? "", passphrase: v.passphrase ?? "" });
        if (!r.ok) return setMessage({ text: `✕ ${r.code}: ${r.error}`, bad: true });
        setSecret(r.data);
        setMode("confirm");
        setAt(0);
        return setMessage({ text: "Add the secret to your authenticator app, then type the code it shows." });
      }
      const r = await client.send<SessionCreated>("POST", paths.sessionSetupConfirm(), { email: v.email ?? "", setupCode: v.setupCode ?? "", code: (v.code ?? "").trim(), environment: v.environment });
      if (r.ok) return onSignedIn(r.data);
      setValues((x) => ({ ...x, code: "" }));
      return setMessage({ text: `✕ ${r.code}: ${r.error}`, bad: true });
    } finally {
      setBusy(false);
    }
  };

  useInput(KEEP_RAW);
  useInput((input, key) => {
    if (busy) return;
    if (key.escape || (key.ctrl && input === "c")) return exit();
    if (key.ctrl && input === "s" && mode === "signIn") {
      setMode("setup");
      setAt(0);
      return setMessage({ text: "First sign-in: the setup code from `caravan members setup --email <you>` (or your invitation)." });
    }
    if (key.upArrow || (key.shift && key.tab)) return setAt((i) => Math.max(0, i - 1));
    if (key.return || input === "\r" || input === "\n") {
      if (at < fields.length - 1) return setAt(at + 1);
      return void submit();
    }
    if (key.tab || key.downArrow) return setAt((i) => Math.min(fields.length - 1, i + 1));
    if (field.choice) {
      if (input === " " || key.leftArrow || key.rightArrow) {
        const c = field.choice;
        setValues((x) => ({ ...x, [field.name]: c[(c.indexOf(x[field.name] ?? c[0]) + 1) % c.length] }));
      }
      return;
    }
    if (key.backspace || key.delete) return setValues((x) => ({ ...x, [field.name]: (x[field.name] ?? "").slice(0, -1) }));
    if (key.ctrl || key.meta || key.leftArrow || key.rightArrow) return;
    if (input) setValues((x) => ({ ...x, [field.name]: ((x[field.name] ?? "") + input).slice(0, 1024) }));
  });

  return (
    <Box flexDirection="column">
      <Text bold>{`Caravan · ${mode === "signIn" ? "sign in" : "set up sign-in"} at ${client.url}`}</Text>
      <Text> </Text>
      {mode === "confirm" && secret ? (
        <Box flexDirection="column">
          <Text>{`  Secret      ${secret.totpSecret}`}</Text>
          <Text wrap="truncate">{`  URI         ${secret.otpauthUri}`}</Text>
          <Text> </Text>
        </Box>
      ) : null}
      {fields.map((f, i) => {
        const v = values[f.name] ?? "";
        const shown = f.secret ? "•".repeat(v.length) : f.choice ? `${v || f.choice[0]}  (space switches: ${f.choice.join(" / ")})` : v;
        return <Text key={f.name} color={i === at ? tone("accent") : undefined}>{`${i === at ? "›" : " "} ${f.label.padEnd(15)} ${shown}${i === at && !f.choice ? "█" : ""}`}</Text>;
      })}
      <Text> </Text>
      {message ? <Text color={message.bad ? tone("bad") : tone("ok")}>{message.text}</Text> : <Text> </Text>}
      <Text dimColor>{busy ? "checking…" : `Enter next / ${mode === "setup" ? "continue" : "sign in"} · Tab, ↑/↓ move${mode === "signIn" ? " · ^s first time: set up with a setup code" : ""} · Esc quit`}</Text>
    </Box>
  );
}
