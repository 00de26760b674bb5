// Screen-level helpers: a selection that follows the item (its ID), not the row, and running an action with its
// result flashed.
import { useEffect, useState } from "react";
import type { AnswerMeta, ApiResult } from "./client.ts";
import { useConsole, useKept, useKeptRef, type ScreenCommand } from "./context.ts";
import { refusal } from "./format.ts";
import { moveSelection, type Nav } from "./keys.ts";

/** A row-index selection for fixed lists (the overview's counts). */
export function useSelection(count: number): [number, (i: number | ((p: number) => number)) => void] {
  const [sel, setSel] = useState(0);
  useEffect(() => {
    if (sel > 0 && sel >= count) setSel(Math.max(0, count - 1));
  }, [count, sel]);
  return [sel, setSel];
}

export interface Selected<T> {
  /** Row of the selected item in `items`, or -1 when the pinned item is not in the list. */
  index: number;
  /** The selected item's ID: what the detail shows and what an action acts on. */
  id: string | null;
  /** The list's row for it, when it is in the list. */
  item: T | null;
  move(nav: Nav, page: number): void;
  select(id: string | null): void;
}

/**
 * The selection is an ID. Rows inserted above or below, reloads and re-sorts leave it on the same item. When the
 * item leaves the list: with `pin` (its detail is open) the ID stays selected and the detail keeps showing it;
 * otherwise the selection goes to the row now at its old position (the next item), never to an unrelated jump.
 */
export function selectById<T extends { id: string }>(items: T[], id: string | null, lastIndex: number, pin: boolean): { index: number; id: string | null } {
  if (id !== null) {
    const i = items.findIndex((t) => t.id === id);
    if (i >= 0) return { index: i, id };
    if (pin) return { index: -1, id };
  }
  if (items.length === 0) return { index: -1, id: pin ? id : null };
  const i = Math.min(Math.max(0, lastIndex), items.length - 1);
  return { index: i, id: items[i].id };
}

export function useSelectedId<T extends { id: string }>(key: string, items: T[], pin: boolean): Selected<T> {
  const [id, setId] = useKept<string | null>(`${key}.selected`, null);
  const last = useKeptRef(`${key}.lastIndex`, 0);
  const sel = selectById(items, id, last.current, pin);
  if (sel.index >= 0) last.current = sel.index;
  // Record the ID the screen shows, so that the next insert does not move it.
  // Only when nothing chose another since that render (a key may land before the effect runs).
  useEffect(() => {
    if (sel.id !== id) setId((cur) => (cur === id ? sel.id : cur));
  }, [sel.id, id, setId]);
  return {
    index: sel.index,
    id: sel.id,
    item: sel.index >= 0 ? items[sel.index] : null,
    move: (nav, page) => {
      if (items.length === 0) return;
      const from = sel.index >= 0 ? sel.index : Math.min(last.current, items.length - 1);
      const to = moveSelection(from, nav, items.length, page);
      last.current = to;
      setId(items[to].id);
    },
    select: (v) => setId(v),
  };
}

/** Runs an API change and flashes `ok(data, meta)` or the API's refusal verbatim. */
export async function act<T>(flash: (t: string, tone?: "ok" | "bad") => void, call: Promise<ApiResult<T>>, ok: (data: T, meta: AnswerMeta) => string): Promise<ApiResult<T>> {
  const r = await call;
  if (r.ok) flash(`✓ ${ok(r.data, r.meta)}`, "ok");
  else flash(`✕ ${refusal(r)}`, "bad");
  return r;
}

/**
 * Runs a `:` command meant for this screen once: a command that switched screens reaches the screen it opened.
 * `handle` answers false for a command the screen does not know; the flash line says so.
 */
export function useCommand(handle: (c: ScreenCommand) => boolean): void {
  const { command, flash } = useConsole();
  useEffect(() => {
    if (!command || done.has(command)) return;
    done.add(command);
    if (!handle(command)) flash(`✕ :${command.name} does nothing on this screen (: then Tab lists the commands)`, "bad");
  }, [command]); // eslint-disable-line react-hooks/exhaustive-deps
}
const done = new WeakSet<ScreenCommand>();

/** `y`: the full ID to the clipboard and to the flash line (which also shows it when the terminal ignores OSC 52). */
export function useYank(): (id: string | null | undefined) => void {
  const { copy, flash } = useConsole();
  return (id) => {
    if (!id) return;
    copy?.(id);
    flash(`✓ copied ${id}`, "ok");
  };
}

/** What a list-and-detail screen holds for the shared navigation keys. */
export interface MasterDetail {
  openId: string | null;
  setOpenId(id: string | null): void;
  setScroll(f: (s: number) => number): void;
  selected: Selected<{ id: string }>;
  page: number;
}

/**
 * The navigation keys of a list-and-detail screen, the same everywhere: in a detail, Esc goes back and the moves
 * scroll it; in the list, Enter opens the selected item (from its top) and the moves move the selection (by ID).
 * Answers true when the key was navigation and is handled; other keys are the screen's.
 */
export function navigateMasterDetail(nav: Nav | null, m: MasterDetail): boolean {
  if (!nav) return false;
  if (m.openId) {
    if (nav === "back") m.setOpenId(null);
    else if (nav !== "open") m.setScroll((s) => Math.max(0, moveSelection(s, nav, 1000, m.page)));
    return true;
  }
  if (nav === "open") {
    if (m.selected.id) {
      m.setScroll(() => 0);
      m.setOpenId(m.selected.id);
    }
    return true;
  }
  m.selected.move(nav, m.page);
  return true;
}
