// Keyset pagination with opaque cursors: fast at millions of rows, refuses cursors it did not hand out (bound to the
// company, environment and list that handed them out).
import { decodeCursor, encodeCursor } from "../domain/cursor.ts";
import { apiError } from "../domain/errors.ts";
import type { PageMeta } from "./kit.ts";

export interface KeysetOptions<T> {
  key: Uint8Array;
  /** The caller's company and environment: a cursor continues a list of the same company and environment only. */
  scope: { company: { id: string }; environment: string };
  /** Names the list and every filter that shapes it: a cursor only continues the list it came from. */
  list: string;
  cursor: string | undefined;
  limit: number;
  /** Rows strictly after the position (in list order), at most `n`. */
  fetch(after: (string | number)[] | null, n: number): T[];
  position(row: T): (string | number)[];
  total(): number;
}

export function keysetPage<T>(o: KeysetOptions<T>): { rows: T[]; meta: PageMeta } {
  const { list, after } = keysetStart(o);
  return keysetEnd(o, list, o.fetch(after, o.limit + 1));
}

/** `keysetPage` over an asynchronous fetch (a repository port's read). */
export async function keysetPageAsync<T>(o: Omit<KeysetOptions<T>, "fetch"> & { fetch(after: (string | number)[] | null, n: number): Promise<T[]> }): Promise<{ rows: T[]; meta: PageMeta }> {
  const { list, after } = keysetStart(o);
  return keysetEnd(o, list, await o.fetch(after, o.limit + 1));
}

function keysetStart(o: Pick<KeysetOptions<unknown>, "key" | "scope" | "list" | "cursor">): { list: string; after: (string | number)[] | null } {
  // The list's name carries its company and environment, so the cursor's tag covers them: one handed out to another
  // company, environment or list is refused like any cursor this list did not hand out.
  const list = `${o.scope.company.id}|${o.scope.environment}|${o.list}`;
  let after: (string | number)[] | null = null;
  if (o.cursor !== undefined) {
    const pos = decodeCursor(o.key, o.cursor, list);
    if (!pos) throw apiError("INVALID_CURSOR");
    after = pos.after;
  }
  return { list, after };
}

function keysetEnd<T>(o: Pick<KeysetOptions<T>, "key" | "limit" | "position" | "total">, list: string, rows: T[]): { rows: T[]; meta: PageMeta } {
  const hasMore = rows.length > o.limit;
  if (hasMore) rows.length = o.limit;
  const cursor = hasMore ? encodeCursor(o.key, { list, after: o.position(rows[rows.length - 1]) }) : null;
  return { rows, meta: { cursor, hasMore, total: o.total(), limit: o.limit } };
}
