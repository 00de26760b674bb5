// Lists as tables: columns that share the terminal's width (one flexible column takes the rest, narrow terminals
// drop the optional ones), sort by any column, and a filter that matches what the rows show.
import Decimal from "decimal.js";
import { pad } from "./format.ts";

export type SortValue = string | number | Decimal | null | undefined;

export interface Column<T> {
  key: string;
  title: string;
  /** Cells; a `flex` column gets at least this and shares what is left. */
  width: number;
  flex?: boolean;
  right?: boolean;
  /** Shown only when the terminal is at least this wide. */
  minTotal?: number;
  text(item: T): string;
  /** What the column sorts by (default: its text). */
  sort?(item: T): SortValue;
}

export interface Sort {
  key: string;
  desc: boolean;
}

export interface Laid<T> {
  col: Column<T>;
  width: number;
}

/** The columns that fit `width`, each with its cells; flexible columns share the rest. */
export function layout<T>(cols: Column<T>[], width: number): Laid<T>[] {
  const shown = cols.filter((c) => !c.minTotal || width >= c.minTotal);
  const fixed = shown.reduce((n, c) => n + c.width + 1, 0);
  const flex = shown.filter((c) => c.flex);
  // Spare cells go to the flexible columns in proportion to their base width; the row never passes `width`.
  const spare = Math.max(0, width - fixed);
  const base = flex.reduce((n, c) => n + c.width, 0) || 1;
  return shown.map((c) => ({ col: c, width: c.flex ? c.width + Math.floor((spare * c.width) / base) : c.width }));
}

export function rowText<T>(laid: Laid<T>[], item: T): string {
  return laid.map((l) => pad(l.col.text(item), l.width, l.col.right)).join(" ");
}

export function headerText<T>(laid: Laid<T>[], sort: Sort | null): string {
  return laid
    .map((l) => {
      const mark = sort?.key === l.col.key ? (sort.desc ? "▼" : "▲") : "";
      return pad(`${l.col.title}${mark}`, l.width, l.col.right);
    })
    .join(" ");
}

function cmp(a: SortValue, b: SortValue): number {
  if (a == null || a === "") return b == null || b === "" ? 0 : 1;
  if (b == null || b === "") return -1;
  if (a instanceof Decimal && b instanceof Decimal) return a.comparedTo(b);
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

/** A decimal string as a sort key (amounts stay decimals); text that is not a number sorts last. */
export function decimalKey(s: string | null | undefined): Decimal | null {
  try {
    return s == null || s === "" ? null : new Decimal(s);
  } catch {
    return null;
  }
}

/** Stable: rows that compare equal keep the API's order. Empty values sort last either way. */
export function sortRows<T>(items: T[], cols: Column<T>[], sort: Sort | null): T[] {
  if (!sort) return items;
  const col = cols.find((c) => c.key === sort.key);
  if (!col) return items;
  const key = col.sort ?? col.text;
  return items
    .map((item, i) => ({ item, i, k: key(item) }))
    .sort((x, y) => {
      const empty = (v: SortValue) => v == null || v === "";
      if (empty(x.k) !== empty(y.k)) return empty(x.k) ? 1 : -1;
      const c = cmp(x.k, y.k);
      return (sort.desc ? -c : c) || x.i - y.i;
    })
    .map((x) => x.item);
}

/** Rows whose cells (every column, shown or not, plus `extra`) contain every word of the filter, any case. */
export function filterRows<T>(items: T[], cols: Column<T>[], filter: string, extra?: (item: T) => string): T[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return items;
  return items.filter((item) => {
    const hay = `${cols.map((c) => c.text(item)).join(" ")} ${extra?.(item) ?? ""}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** The next sort: `>` the column to the right, `<` to the left; `~` reverses. */
export function nextSort<T>(cols: Column<T>[], sort: Sort | null, key: ">" | "<" | "~"): Sort | null {
  if (key === "~") return sort ? { ...sort, desc: !sort.desc } : { key: cols[0].key, desc: true };
  const i = sort ? cols.findIndex((c) => c.key === sort.key) : -1;
  const n = cols.length;
  const j = key === ">" ? (i + 1) % n : i <= 0 ? n - 1 : i - 1;
  return { key: cols[j].key, desc: sort?.desc ?? false };
}

/** `:sort amount desc`: a column by its key or title (any case, a prefix will do). */
export function sortByName<T>(cols: Column<T>[], name: string, dir?: string): Sort | null {
  const n = name.toLowerCase();
  const col = cols.find((c) => c.key.toLowerCase() === n || c.title.toLowerCase() === n) ?? cols.find((c) => c.key.toLowerCase().startsWith(n) || c.title.toLowerCase().startsWith(n));
  if (!col) return null;
  return { key: col.key, desc: dir === "desc" || dir === "down" };
}
