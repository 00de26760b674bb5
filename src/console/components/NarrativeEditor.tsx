// The narrative of a suspicion report, edited over several lines: what the officer writes above, the facts block
// Caravan wrote ("What Caravan recorded:") kept below as it is, never replaced. Enter starts a new line, a paste keeps
// its lines (a pasted \r or \r\n is a line break, never stored raw), Ctrl-S saves, Esc cancels.
import { useState } from "react";
import { Box, Text, useInput } from "ink";

/** Where the facts block starts in a drafted narrative. */
export const FACTS_HEADING = "What Caravan recorded:";
/** The drafting placeholder's opening, which the officer's text replaces. */
const PLACEHOLDER = /^\[DRAFT: [^\]]*\]\s*/;

/** The officer's part and the facts block of a narrative (the facts with their heading, or null). */
export function splitNarrative(narrative: string | null | undefined): { text: string; facts: string | null } {
  const n = normalizeBreaks(narrative ?? "");
  const at = n.indexOf(FACTS_HEADING);
  const text = (at < 0 ? n : n.slice(0, at)).replace(PLACEHOLDER, "").replace(/\s+$/, "");
  return { text, facts: at < 0 ? null : n.slice(at).replace(/\s+$/, "") };
}

/** The narrative as saved: the officer's text, a blank line, the facts block unchanged. */
export function joinNarrative(text: string, facts: string | null): string {
  const t = normalizeBreaks(text).replace(/\s+$/, "");
  return facts ? `${t}\n\n${facts}` : t;
}

/** Line breaks as `\n`: a terminal's Enter (`\r`) and a pasted `\r\n` are the same break. */
export const normalizeBreaks = (s: string) => s.replace(/\r\n?/g, "\n");

export function NarrativeEditor({ title, narrative, minLength, height, onSave, onCancel }: { title: string; narrative: string | null; minLength?: number; height: number; onSave: (narrative: string) => void; onCancel: () => void }) {
  const [{ facts }] = useState(() => splitNarrative(narrative));
  const [text, setText] = useState(() => splitNarrative(narrative).text);
  const [note, setNote] = useState<string | null>(null);
  useInput((input, key) => {
    if (key.escape) return onCancel();
    if (key.ctrl && (input === "s" || input === "d")) {
      if (!text.trim()) return setNote("the narrative is empty: write what happened, or Esc");
      return onSave(joinNarrative(text, facts));
    }
    if (key.return) return setText((t) => `${t}\n`);
    if (key.backspace || key.delete) return setText((t) => t.slice(0, -1));
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
    if (input) setText((t) => (t + normalizeBreaks(input)).slice(0, 60_000));
  });
  const lines = text.split("\n");
  const room = Math.max(3, height - 8 - (facts ? 3 : 0));
  const shown = lines.slice(-room);
  const chars = Array.from(text).length;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{title}</Text>
      {lines.length > room ? <Text dimColor>{`  … ${lines.length - room} lines above`}</Text> : null}
      {shown.map((l, i) => (
        <Text key={i} wrap="wrap">{`${l}${i === shown.length - 1 ? "█" : ""}`}</Text>
      ))}
      {facts ? <Text dimColor wrap="truncate">{`── kept below as Caravan wrote it: ${facts.split("\n").slice(0, 2).join(" · ")}${facts.split("\n").length > 2 ? " …" : ""}`}</Text> : null}
      <Text dimColor>{`${note ? `${note}; ` : ""}${chars} characters${minLength ? ` (at least ${minLength} to file)` : ""} · Enter new line · Ctrl-S saves · Esc cancels`}</Text>
    </Box>
  );
}
