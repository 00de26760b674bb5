// What every list offers: sort by column (`<` `>` `~`), filter as you type (`/`), yank the selected ID (`y`), and the
// `:sort` / `:filter` commands; all kept when the screen is left and shown again.
import { useMemo, type ReactNode } from "react";
import { Text } from "ink";
import { useConsole, useKept, useModalState, type ScreenCommand } from "./context.ts";
import { filterRows, headerText, layout, nextSort, rowText, sortByName, sortRows, type Column, type Sort } from "./table.ts";
import { FilterBar } from "./components/FilterBar.tsx";

export interface ListControls<T> {
  rows: T[];
  header: string;
  render(item: T): string;
  sort: Sort | null;
  filter: string;
  typing: boolean;
  /** Handles the list keys; true when the key was one of them. */
  onKey(input: string): boolean;
  /** Handles `:sort` and `:filter`; true when it did. */
  onCommand(c: ScreenCommand): boolean;
  bar: ReactNode;
}

export function useListControls<T>(key: string, items: T[], cols: Column<T>[], width: number, opts: { sort?: Sort | null; extra?: (t: T) => string } = {}): ListControls<T> {
  const { flash } = useConsole();
  const [sort, setSort] = useKept<Sort | null>(`${key}.sort`, opts.sort ?? null);
  const [filter, setFilter] = useKept(`${key}.filter`, "");
  const [typing, setTyping] = useModalState<true>();
  const laid = useMemo(() => layout(cols, width), [cols, width]);
  const rows = useMemo(() => sortRows(filterRows(items, cols, filter, opts.extra), cols, sort), [items, cols, filter, sort, opts.extra]);
  const onKey = (input: string): boolean => {
    if (input === "/") {
      setTyping(true);
      return true;
    }
    if (input === "<" || input === ">" || input === "~") {
      setSort((s) => nextSort(cols, s, input));
      return true;
    }
    return false;
  };
  const onCommand = (c: ScreenCommand): boolean => {
    if (c.name === "sort") {
      if (!c.args[0]) {
        setSort(opts.sort ?? null);
        return true;
      }
      const s = sortByName(cols, c.args[0], c.args[1]);
      if (!s) flash(`✕ no column "${c.args[0]}" here: ${cols.map((k) => k.key).join(", ")}`, "bad");
      else setSort(s);
      return true;
    }
    if (c.name === "filter") {
      setFilter(c.args.join(" "));
      return true;
    }
    return false;
  };
  const bar = typing ? (
    <FilterBar value={filter} onChange={setFilter} onDone={() => setTyping(null)} />
  ) : filter ? (
    <Text dimColor wrap="truncate">{`filter "${filter}" · ${rows.length} of ${items.length} · / edits, / then Esc clears`}</Text>
  ) : null;
  return { rows, header: headerText(laid, sort), render: (t) => rowText(laid, t), sort, filter, typing: typing !== null, onKey, onCommand, bar };
}
