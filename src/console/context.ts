// What every screen reads: the client, who the key is, the stream's state, event counters, and the modal lock.
import { createContext, useCallback, useContext, useEffect, useRef, useState } from "react";
import type { Me } from "../api/index.ts";
import type { AnswerMeta, ApiClient, ApiResult, StreamState } from "./client.ts";

/** The answer of GET /api/v2/me (null when the server has none: an older server). */
export type { Me };

export interface ConsoleState {
  client: ApiClient;
  me: Me | null;
  stream: StreamState;
  /** Bumped per event topic (`transfer`, `case`): a screen reloads when its topic moves. */
  ticks: Record<string, number>;
  /** While a prompt is open, navigation and global keys belong to it. */
  modal: boolean;
  setModal(open: boolean): void;
  /** A line under the screen (action results): the API's text verbatim. */
  flash(text: string, tone?: "ok" | "bad"): void;
  now(): number;
  /** Copies text to the terminal's clipboard (OSC 52); the caller says so on the flash line. */
  copy?(text: string): void;
  /** The latest `:` command meant for the screen (sort, filter, search, open an ID); `n` tells repeats apart. */
  command?: ScreenCommand | null;
}

export interface ScreenCommand {
  n: number;
  name: string;
  args: string[];
}

export const ConsoleContext = createContext<ConsoleState>(null as never);
export const useConsole = () => useContext(ConsoleContext);

/** The key may do it: scope on the key, permission in the role (unknown without /me: let the API decide). */
export function allows(me: Me | null, scope: string, permission?: string): boolean {
  if (!me) return true;
  return me.key.scopes.includes(scope) && (!permission || me.permissions.includes(permission));
}

export interface Resource<T> {
  data: T | null;
  meta: AnswerMeta;
  error: { code: string; error: string } | null;
  loading: boolean;
  reload(): void;
}

/** Keeps objects that did not change (same JSON) so memoised rows do not redraw. */
export function stabilise<T>(prev: T | null, next: T): T {
  if (!Array.isArray(prev) || !Array.isArray(next)) return JSON.stringify(prev) === JSON.stringify(next) && prev !== null ? prev : next;
  const idOf = (v: unknown): unknown => (v && typeof v === "object" && "id" in v ? v.id : undefined);
  const old = new Map<unknown, { item: unknown; json: string }>();
  for (const p of prev as unknown[]) if (idOf(p) !== undefined) old.set(idOf(p), { item: p, json: JSON.stringify(p) });
  let same = prev.length === next.length;
  const out = (next as unknown[]).map((n, i) => {
    const o = idOf(n) !== undefined ? old.get(idOf(n)) : undefined;
    const keep = o && o.json === JSON.stringify(n) ? o.item : n;
    if (keep !== (prev as unknown[])[i]) same = false;
    return keep;
  });
  return (same ? prev : out) as T;
}

/**
 * A GET that reloads when one of `topics` ticks (at most every 200 ms), polls every `pollMs` while the stream is not
 * live (1 s) or is (30 s, a safety net), and keeps unchanged rows' identity.
 */
export function useResource<T>(path: string | null, topics: string[] = [], opts: { pollMs?: number } = {}): Resource<T> {
  const { client, ticks, stream } = useConsole();
  const [state, setState] = useState<{ data: T | null; meta: AnswerMeta; error: Resource<T>["error"]; loading: boolean }>({ data: null, meta: {}, error: null, loading: path !== null });
  const seq = useRef(0);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const load = useCallback(() => {
    if (path === null) return;
    const mine = ++seq.current;
    last.current = Date.now();
    void client.get<T>(path).then((r: ApiResult<T>) => {
      if (mine !== seq.current) return;
      setState((s) =>
        r.ok ? { data: stabilise(s.data, r.data), meta: r.meta, error: null, loading: false } : { ...s, error: { code: r.code, error: r.error }, loading: false },
      );
    });
  }, [client, path]);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    setState({ data: null, meta: {}, error: null, loading: path !== null });
    load();
  }, [load, path]);

  // "reload" is bumped by `R` and `:reload`: every resource answers it, whatever its topics (or none).
  const all = [...topics, "reload"];
  const tick = all.map((t) => ticks[t] ?? 0).join(",");
  useEffect(() => {
    if (tick === all.map(() => 0).join(",")) return;
    const wait = Math.max(0, 200 - (Date.now() - last.current));
    if (timer.current) clearTimeout(timer.current);
    // The latest `load` (its path), not the one of the render the event arrived in: a filter changed since then
    // must not have the old path's answer win.
    timer.current = setTimeout(() => loadRef.current(), wait);
    return () => {
      if (timer.current) clearTimeout(timer.current);
    };
  }, [tick]); // eslint-disable-line react-hooks/exhaustive-deps

  const every = opts.pollMs ?? (stream.kind === "live" ? 30_000 : 1_000);
  useEffect(() => {
    if (path === null) return;
    const id = setInterval(load, every);
    return () => clearInterval(id);
  }, [load, every, path]);

  return { ...state, reload: load };
}

const kept = new WeakMap<object, Map<string, unknown>>();

/**
 * State that outlives its screen: a screen unmounts when another tab is shown, and finds its filter, sort,
 * selection and open detail again when it comes back. Kept per client (one console session).
 */
export function useKept<T>(key: string, initial: T): [T, (v: T | ((p: T) => T)) => void] {
  const { client } = useConsole();
  let store = kept.get(client);
  if (!store) kept.set(client, (store = new Map()));
  const s = store;
  const [value, setValue] = useState<T>(() => (s.has(key) ? (s.get(key) as T) : initial));
  const set = useCallback(
    (v: T | ((p: T) => T)) =>
      setValue((p) => {
        const next = typeof v === "function" ? (v as (p: T) => T)(p) : v;
        s.set(key, next);
        return next;
      }),
    [key, s],
  );
  return [value, set];
}

/** A mutable cell kept like `useKept`, without renders. */
export function useKeptRef<T>(key: string, initial: T): { current: T } {
  const { client } = useConsole();
  let store = kept.get(client);
  if (!store) kept.set(client, (store = new Map()));
  if (!store.has(key)) store.set(key, { current: initial });
  return store.get(key) as { current: T };
}

/** A screen's open prompt: setting it locks navigation and global keys in the same render (no key slips past). */
export function useModalState<T>(): [T | null, (v: T | null) => void] {
  const { setModal } = useConsole();
  const [value, setValue] = useState<T | null>(null);
  const set = useCallback(
    (v: T | null) => {
      setValue(v);
      setModal(v !== null);
    },
    [setModal],
  );
  useEffect(() => () => setModal(false), [setModal]);
  return [value, set];
}
