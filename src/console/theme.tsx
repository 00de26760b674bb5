// Colours that degrade: under NO_COLOR every colour is dropped (bold, dim and inverse stay readable).
import { createContext, useContext } from "react";

export type Tone = "ok" | "warn" | "bad" | "info" | "muted" | "accent";
const TONES: Record<Tone, string> = { ok: "green", warn: "yellow", bad: "red", info: "cyan", muted: "gray", accent: "magenta" };

export const ThemeContext = createContext<{ noColor: boolean }>({ noColor: false });

/** `tone("bad")` → "red", or undefined under NO_COLOR. */
export function useTone(): (t: Tone | undefined) => string | undefined {
  const { noColor } = useContext(ThemeContext);
  return (t) => (noColor || !t ? undefined : TONES[t]);
}

export function stateTone(state: string | null | undefined): Tone | undefined {
  switch (state) {
    case "held":
      return "warn";
    case "completed":
    case "accepted":
    case "approved":
    case "sent":
    case "active":
      return "ok";
    case "rejected":
    case "failed":
    case "cancelled":
    case "disabled":
      return "bad";
    case "high":
      return "bad";
    case "medium":
      return "warn";
    default:
      return undefined;
  }
}
