// A confirmed action: a sequence of steps (pick one of, type a text, confirm) that collects values, then runs.
import { useState } from "react";
import { Box, Text, useInput } from "ink";

export type Step =
  | { kind: "pick"; name: string; label: string; options: { value: string; label: string }[] }
  | { kind: "text"; name: string; label: string | ((v: Record<string, string>) => string); optional?: boolean; max?: number; initial?: string | ((v: Record<string, string>) => string); when?: (v: Record<string, string>) => boolean }
  | { kind: "confirm"; label: (v: Record<string, string>) => string };

/** Options a pick shows at once (with a line for those above and below it fits 80×24). */
export const PICK_ROWS = 9;

export function Flow({ title, steps, onDone, onCancel }: { title: string; steps: Step[]; onDone: (v: Record<string, string>) => void; onCancel: () => void }) {
  const [i, setI] = useState(0);
  const [values, setValues] = useState<Record<string, string>>({});
  const [pick, setPick] = useState(0);
  const initialOf = (s: Step | undefined, v: Record<string, string>) => (s?.kind === "text" ? (typeof s.initial === "function" ? s.initial(v) : (s.initial ?? "")) : "");
  const [text, setText] = useState(() => initialOf(steps[0], {}));
  const [note, setNote] = useState<string | null>(null);
  const step = steps[i];

  const advance = (v: Record<string, string>) => {
    setValues(v);
    setNote(null);
    let j = i + 1;
    while (j < steps.length && steps[j].kind === "text" && (steps[j] as { when?: (v: Record<string, string>) => boolean }).when?.(v) === false) j++;
    if (j >= steps.length) return onDone(v);
    const next = steps[j];
    setI(j);
    setPick(0);
    setText(initialOf(next, v));
  };

  useInput((input, key) => {
    if (key.escape) return onCancel();
    if (input === "\n") key = { ...key, return: true };
    if (step.kind === "pick") {
      const n = step.options.length;
      if (n === 0) return; // still loading what to offer
      if (key.upArrow || input === "k") setPick((p) => (p + n - 1) % n);
      else if (key.downArrow || input === "j") setPick((p) => (p + 1) % n);
      else if (/^[1-9]$/.test(input) && Number(input) <= n) advance({ ...values, [step.name]: step.options[Number(input) - 1].value });
      else if (key.return) advance({ ...values, [step.name]: step.options[pick].value });
    } else if (step.kind === "text") {
      if (key.return) {
        const v = text.trim();
        if (!v && !step.optional) return setNote("required");
        return advance({ ...values, [step.name]: v });
      }
      if (key.backspace || key.delete) return setText((t) => t.slice(0, -1));
      if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
      // A one-line prompt: a pasted line break becomes a space, never a raw \r in the value.
      if (input) setText((t) => (t + input.replace(/\r\n?|\n/g, " ")).slice(0, step.max ?? 5000));
    } else {
      if (input === "y" || input === "Y") advance(values);
      else if (input === "n" || input === "N") onCancel();
    }
  });

  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{title}</Text>
      {step.kind === "pick" ? (
        <>
          <Text>{step.label}</Text>
          {(() => {
            // A long list (a report type's twenty fields) shows a window around the choice: a box taller than the
            // terminal garbles the screen. Numbers stay the options' own; 1-9 pick the first nine.
            const n = step.options.length;
            const start = Math.min(Math.max(0, pick - Math.floor(PICK_ROWS / 2)), Math.max(0, n - PICK_ROWS));
            const shown = step.options.slice(start, start + PICK_ROWS);
            return (
              <>
                {start > 0 ? <Text dimColor>{`  … ${start} more above`}</Text> : null}
                {shown.map((o, k) => (
                  <Text key={o.value} inverse={start + k === pick} wrap="truncate">{`${start + k + 1}. ${o.label}`}</Text>
                ))}
                {start + PICK_ROWS < n ? <Text dimColor>{`  … ${n - start - PICK_ROWS} more below`}</Text> : null}
              </>
            );
          })()}
          <Text dimColor>{step.options.length > 9 ? "j/k moves, 1-9 the first nine, Enter chooses, Esc cancels" : "j/k or 1-9, Enter chooses, Esc cancels"}</Text>
        </>
      ) : step.kind === "text" ? (
        <>
          <Text>{`${typeof step.label === "function" ? step.label(values) : step.label}${step.optional ? " (optional)" : ""}`}</Text>
          <Text>{`> ${text}█`}</Text>
          <Text dimColor>{note ? `${note}; ` : ""}Enter accepts, Esc cancels</Text>
        </>
      ) : (
        <>
          <Text>{step.label(values)}</Text>
          <Text bold>Confirm? y / n</Text>
        </>
      )}
    </Box>
  );
}
