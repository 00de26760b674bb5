// Screen-level helpers: a selection that follows j/k/g/G/paging, and running an action with its result flashed.
import { useEffect, useState } from "react";
import type { ApiResult } from "./client.ts";
import { refusal } from "./format.ts";

export function useSelection(count: number): [number, (i: number | ((p: number) => number)) => void] {
  const [sel, setSel] = useState(0);
  useEffect(() => {
    if (sel > 0 && sel >= count) setSel(Math.max(0, count - 1));
  }, [count, sel]);
  return [sel, setSel];
}

/** Runs an API change and flashes `ok(data, meta)` or the API's refusal verbatim. */
export async function act<T>(flash: (t: string, tone?: "ok" | "bad") => void, call: Promise<ApiResult<T>>, ok: (data: T, meta: Record<string, any>) => string): Promise<ApiResult<T>> {
  const r = await call;
  if (r.ok) flash(`✓ ${ok(r.data, r.meta)}`, "ok");
  else flash(`✕ ${refusal(r)}`, "bad");
  return r;
}
