// The `:` command line (k9s-style): a screen by name, an ID to open, or a command for the screen shown (sort,
// filter, search, state, view). Tab completes a command's name; the line under it lists what matches.
import { useState } from "react";
import { Box, Text, useInput } from "ink";
import { SCREENS, type ScreenId } from "../keys.ts";

export const COMMANDS: [string, string][] = [
  ["overview", "the overview"],
  ["transfers", "held transfers (also: held)"],
  ["cases", "cases"],
  ["deliveries", "webhook deliveries (also: webhooks)"],
  ["reports", "reports"],
  ["filing", "reports to filing"],
  ["customers", "customers"],
  ["audit", "the audit log"],
  ["rules", "rules"],
  ["team", "keys and members (signed in as an owner)"],
  ["dead-letters", "messages that failed their last attempt; r replays (signed in as an owner)"],
  ["member", "member <ID>|me|all: the audit log of one member"],
  ["signout", "end the session and quit"],
  ["sort", "sort <column> [asc|desc]; no column: the default order"],
  ["filter", "filter <text>: as / does; no text clears"],
  ["search", "search <text>: ask the server (transfers: ID, external ID, VASP, address; cases: number, text)"],
  ["state", "state held|failed|all (transfers)"],
  ["view", "view mine|open|all (cases)"],
  ["reload", "reload now"],
  ["help", "the key map"],
  ["quit", "quit (also: q)"],
];

const SCREEN_NAMES: Record<string, ScreenId> = {
  overview: "overview",
  transfers: "transfers",
  held: "transfers",
  cases: "cases",
  deliveries: "deliveries",
  webhooks: "deliveries",
  reports: "reports",
  filing: "filing",
  customers: "customers",
  audit: "audit",
  rules: "rules",
  team: "team",
  keys: "team",
  members: "team",
  "dead-letters": "dead-letters",
  deadletters: "dead-letters",
};

export type Command =
  | { kind: "screen"; screen: ScreenId }
  | { kind: "quit" }
  | { kind: "help" }
  | { kind: "reload" }
  | { kind: "transfer"; id: string }
  | { kind: "case"; id: string }
  | { kind: "screenCommand"; name: string; args: string[] };

/** What a typed line asks for; null for an empty line. A bare prefix of a screen's name opens it (`:tr`). */
export function parseCommand(line: string): Command | null {
  const [head, ...args] = line.trim().replace(/^:/, "").split(/\s+/).filter(Boolean);
  if (!head) return null;
  if (/^trf_[0-9a-z]+$/i.test(head)) return { kind: "transfer", id: head };
  if (/^cas_[0-9a-z]+$/i.test(head)) return { kind: "case", id: head };
  const name = head.toLowerCase();
  if (name === "q" || name === "quit" || name === "q!") return { kind: "quit" };
  if (name === "help" || name === "?") return { kind: "help" };
  if (name === "reload") return { kind: "reload" };
  if (SCREEN_NAMES[name]) return { kind: "screen", screen: SCREEN_NAMES[name] };
  if (args.length === 0) {
    const screen = SCREENS.find((s) => s.id.startsWith(name));
    if (screen && name.length >= 2) return { kind: "screen", screen: screen.id };
  }
  return { kind: "screenCommand", name, args };
}

export function CommandLine({ onDone, onCancel }: { onDone: (line: string) => void; onCancel: () => void }) {
  const [text, setText] = useState("");
  useInput((input, key) => {
    if (key.escape) return onCancel();
    if (key.return || input === "\n" || input === "\r") return onDone(text);
    if (key.tab) {
      const m = COMMANDS.filter(([c]) => c.startsWith(text.trim()));
      if (m.length === 1) setText(`${m[0][0]} `);
      return;
    }
    if (key.backspace || key.delete) {
      if (text === "") return onCancel();
      return setText((t) => t.slice(0, -1));
    }
    if (key.ctrl || key.meta || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
    if (input) setText((t) => (t + input).slice(0, 300));
  });
  const word = text.trim().split(/\s+/)[0] ?? "";
  const matches = COMMANDS.filter(([c]) => c.startsWith(word)).map(([c]) => c);
  return (
    <Box>
      <Text wrap="truncate">
        {`:${text}█ `}
        <Text dimColor>{text.includes(" ") ? "Enter runs · Esc cancels" : `${matches.join(" ") || "an ID (trf_…, cas_…) or a command"} · Tab completes`}</Text>
      </Text>
    </Box>
  );
}
