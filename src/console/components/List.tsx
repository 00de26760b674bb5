// A windowed list: only the visible rows render, each memoised on (item, selected, width), so an update redraws
// only the rows that changed. The selected row is inverse and marked `›` in a one-cell gutter, which reads without
// colour (NO_COLOR, a plain capture of the screen).
import { memo, type ReactNode } from "react";
import { Box, Text } from "ink";

export interface ListProps<T> {
  items: T[];
  selected: number;
  height: number;
  width: number;
  render: (item: T, width: number) => string;
  tone?: (item: T) => string | undefined;
  empty?: string;
  header?: string;
}

const Row = memo(function Row({ text, selected, color }: { text: string; selected: boolean; color?: string }) {
  return (
    <Text inverse={selected} color={color} wrap="truncate">
      {text}
    </Text>
  );
});

/** First visible row so that `selected` stays in a window of `height`. */
export function windowStart(selected: number, height: number, count: number): number {
  if (count <= height) return 0;
  return Math.min(Math.max(0, selected - Math.floor(height / 2)), count - height);
}

export function List<T extends { id: string }>({ items, selected, height, width, render, tone, empty, header }: ListProps<T>): ReactNode {
  const rows = Math.max(1, height - (header ? 1 : 0));
  const start = windowStart(Math.max(0, selected), rows, items.length);
  const visible = items.slice(start, start + rows);
  return (
    <Box flexDirection="column" height={height}>
      {header ? (
        <Text bold wrap="truncate">
          {` ${header}`}
        </Text>
      ) : null}
      {items.length === 0 ? <Text dimColor>{empty ?? "nothing here"}</Text> : null}
      {visible.map((it, i) => (
        <Row key={it.id} text={`${start + i === selected ? "›" : " "}${render(it, width - 1)}`.padEnd(width)} selected={start + i === selected} color={tone?.(it)} />
      ))}
    </Box>
  );
}
