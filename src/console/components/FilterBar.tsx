// Filter as you type: every key narrows the list at once; Enter keeps the filter, Esc clears it.
import { Text, useInput } from "ink";

export function FilterBar({ value, onChange, onDone }: { value: string; onChange: (v: string) => void; onDone: () => void }) {
  useInput((input, key) => {
    if (key.escape) {
      onChange("");
      return onDone();
    }
    if (key.return || input === "\n" || input === "\r") return onDone();
    if (key.backspace || key.delete) return onChange(value.slice(0, -1));
    if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return;
    if (input) onChange((value + input).slice(0, 200));
  });
  return (
    <Text wrap="truncate">
      {`/${value}█`}
      <Text dimColor>{"  filter as you type · Enter keeps · Esc clears"}</Text>
    </Text>
  );
}
