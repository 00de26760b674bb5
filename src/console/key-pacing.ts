// One key at a time, each after the screen has taken the one before.
//
// Ink hands `useInput` whatever one read of the terminal returned as one input, splitting out only escape sequences,
// so that a paste stays whole. Keys that arrive together (the console starved on a busy machine, an officer typing
// ahead over a slow link) come as one input: `j` and Enter as "j\r", which no key handler knows, so both are lost.
// Handing Ink one key per read is not enough either: keys read in one go are handled before React renders, so Enter
// after `j` would act on the row selected before the `j`, and `/ana` would meet the list's keys before the filter bar
// exists. This stdin hands Ink one key per read and the next one a macrotask later, when React has rendered the first
// key's change (its updates are flushed in a microtask) and every `useInput` handler sees the new state. A paste the
// terminal marks (bracketed paste, which `caravan console` turns on) stays one input, as Ink passes it.
import type { EventEmitter } from "node:events";

type Listener = (...args: unknown[]) => void;

/** Terminal modes: with bracketed paste on, a paste arrives between PASTE_START and PASTE_END. */
export const BRACKETED_PASTE_ON = "\u001B[?2004h";
export const BRACKETED_PASTE_OFF = "\u001B[?2004l";
const PASTE_START = "\u001B[200~";
const PASTE_END = "\u001B[201~";

/** Splits what the terminal sent into keys: a character, an escape sequence (CSI, SS3, Alt+key), or a whole paste. */
export function splitKeys(text: string): string[] {
  const keys: string[] = [];
  const chars = Array.from(text); // by code point: an emoji is one key
  let i = 0;
  while (i < chars.length) {
    const c = chars[i];
    if (c !== "\u001B" || i + 1 >= chars.length) {
      keys.push(c);
      i++;
      continue;
    }
    if (chars.slice(i, i + PASTE_START.length).join("") === PASTE_START) {
      const rest = chars.slice(i).join("");
      const end = rest.indexOf(PASTE_END);
      const whole = end < 0 ? rest : rest.slice(0, end + PASTE_END.length);
      keys.push(whole);
      i += Array.from(whole).length;
      continue;
    }
    const len = escapeLength(chars, i);
    keys.push(chars.slice(i, i + len).join(""));
    i += len;
  }
  return keys;
}

/** Code points in the escape sequence starting at `i` (which holds ESC, and is not the last character). */
function escapeLength(chars: string[], i: number): number {
  const next = chars[i + 1];
  if (next === "\u001B") return 1 + (i + 2 < chars.length ? escapeLength(chars, i + 1) : 1); // ESC before a sequence: Alt+that key
  if (next === "O") return Math.min(3, chars.length - i); // SS3: ESC O P (F1), ESC O A (arrows in application mode)
  if (next !== "[") return 2; // Alt+key
  // CSI: ESC [ then parameter and intermediate bytes, ended by a final byte in @ … ~.
  let j = i + 2;
  while (j < chars.length) {
    const code = chars[j].charCodeAt(0);
    j++;
    if (code >= 0x40 && code <= 0x7e && !(j === i + 3 && chars[j - 1] === "[")) return j - i; // "ESC [ [ A" (Linux console F1) runs on
  }
  return j - i; // cut off mid-sequence: passed as it came, Ink's parser waits for the rest
}

/**
 * Wraps the terminal's stdin for Ink's `render(…, { stdin })`: Ink's `readable` listener sees one key per read, one
 * macrotask apart; everything else (raw mode, encoding, ref) goes to the terminal unchanged.
 */
export function keyPacedStdin<T extends EventEmitter & { read(): unknown }>(real: T): T {
  const queue: string[] = [];
  const inkListeners = new Set<Listener>();
  let current: string | null = null;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || queue.length === 0 || inkListeners.size === 0) return;
    scheduled = true;
    setTimeout(pump, 0);
  };
  const pump = () => {
    scheduled = false;
    if (queue.length === 0 || inkListeners.size === 0) return;
    current = queue.shift()!;
    for (const listener of [...inkListeners]) listener();
    if (current !== null) queue.unshift(current); // nobody read it (input detached meanwhile): kept for the next owner
    current = null;
    schedule();
  };
  /** Inside a paste whose end marker has not arrived yet: the next read's text up to it belongs to the paste. */
  let pasting = false;
  const onTerminal = () => {
    let chunk: unknown;
    while ((chunk = real.read()) !== null) {
      let text = String(chunk);
      if (pasting) {
        const end = text.indexOf(PASTE_END);
        if (end < 0) {
          queue.push(text);
          continue;
        }
        queue.push(text.slice(0, end + PASTE_END.length));
        text = text.slice(end + PASTE_END.length);
        pasting = false;
      }
      const keys = splitKeys(text);
      queue.push(...keys);
      const last = keys.at(-1);
      pasting = last !== undefined && last.startsWith(PASTE_START) && !last.endsWith(PASTE_END);
    }
    schedule();
  };
  const listen = (event: string | symbol, listener: Listener, add: boolean): boolean => {
    if (event !== "readable") return false;
    if (add) {
      if (inkListeners.size === 0) real.on("readable", onTerminal);
      inkListeners.add(listener);
      schedule();
    } else {
      inkListeners.delete(listener);
      if (inkListeners.size === 0) real.removeListener("readable", onTerminal);
    }
    return true;
  };

  const paced: T = new Proxy(real, {
    get(target, prop) {
      switch (prop) {
        case "read":
          return () => {
            const key = current;
            current = null;
            return key;
          };
        case "on":
        case "addListener":
          return (event: string | symbol, listener: Listener) => {
            if (!listen(event, listener, true)) target.on(event, listener);
            return paced;
          };
        case "off":
        case "removeListener":
          return (event: string | symbol, listener: Listener) => {
            if (!listen(event, listener, false)) target.removeListener(event, listener);
            return paced;
          };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return paced;
}
