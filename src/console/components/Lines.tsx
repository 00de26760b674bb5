// A scrollable block of lines (details): only the visible window renders.
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

export function Lines({ lines, offset, height }: { lines: Line[]; offset: number; height: number }) {
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
