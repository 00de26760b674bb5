// A scrollable block of lines (details): only the visible window renders. Given a width, long lines wrap at a space
// onto indented continuation rows (evidence lines are long), so nothing is cut off.
import { memo } from "react";
import { Box, Text } from "ink";
import { useTone, type Tone } from "../theme.tsx";

export interface Line {
  text: string;
  tone?: Tone;
  bold?: boolean;
  dim?: boolean;
}

const One = memo(function One({ line }: { line: Line }) {
  const tone = useTone();
  return (
    <Text color={tone(line.tone)} bold={line.bold} dimColor={line.dim} wrap="truncate">
      {line.text || " "}
    </Text>
  );
});

/** Splits a line longer than `width` at spaces; continuation rows are indented one step past the line's own indent. */
export function wrapLines(lines: Line[], width: number): Line[] {
  if (width < 20) return lines;
  const out: Line[] = [];
  for (const l of lines) {
    if (l.text.length <= width) {
      out.push(l);
      continue;
    }
    const indent = " ".repeat(Math.min(12, (/^\s*/.exec(l.text)?.[0].length ?? 0) + 4));
    let rest = l.text;
    let first = true;
    while (rest.length > 0) {
      const room = first ? width : width - indent.length;
      if (rest.length <= room) {
        out.push({ ...l, text: first ? rest : indent + rest });
        break;
      }
      let cut = rest.lastIndexOf(" ", room);
      if (cut <= room / 3) cut = room;
      out.push({ ...l, text: (first ? "" : indent) + rest.slice(0, cut) });
      rest = rest.slice(cut).replace(/^ /, "");
      first = false;
    }
  }
  return out;
}

export function Lines({ lines: given, offset, height, width }: { lines: Line[]; offset: number; height: number; width?: number }) {
  const lines = width ? wrapLines(given, width) : given;
  const start = Math.max(0, Math.min(offset, Math.max(0, lines.length - height)));
  const more = lines.length - start - height;
  const shown = lines.slice(start, start + height - (more > 0 ? 1 : 0));
  return (
    <Box flexDirection="column" height={height}>
      {shown.map((l, i) => (
        <One key={start + i} line={l} />
      ))}
      {more > 0 ? <Text dimColor>{`… ${more + 1} more lines (j/k scroll)`}</Text> : null}
    </Box>
  );
}
