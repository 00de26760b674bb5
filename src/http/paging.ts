// Keyset pagination with opaque cursors: fast at millions of rows, refuses cursors it did not hand out.
import { decodeCursor, encodeCursor } from "../domain/cursor.ts";
import { apiError } from "../domain/errors.ts";
import type { PageMeta } from "./kit.ts";

export interface KeysetOptions<T> {
  key: Uint8Array;
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
  let after: (string | number)[] | null = null;
  if (o.cursor !== undefined) {
    const pos = decodeCursor(o.key, o.cursor, o.list);
    if (!pos) throw apiError("INVALID_CURSOR");
    after = pos.after;
  }
  const rows = o.fetch(after, o.limit + 1);
  const hasMore = rows.length > o.limit;
  if (hasMore) rows.length = o.limit;
  const cursor = hasMore ? encodeCursor(o.key, { list: o.list, after: o.position(rows[rows.length - 1]) }) : null;
  return { rows, meta: { cursor, hasMore, total: o.total(), limit: o.limit } };
}
