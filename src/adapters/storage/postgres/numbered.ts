// SQL the two engines share is written once with SQLite's `?` placeholders (the rows' writes of the SQLite
// repositories); PostgreSQL numbers them. Only for texts whose `?` are all placeholders (none inside a literal).
const done = new Map<string, string>();

/** `sql` with its `?` placeholders as `$1`, `$2`… in order (memoized: the texts are constants). */
export function numbered(sql: string): string {
  let out = done.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    if (done.size < 1024) done.set(sql, out);
  }
  return out;
}
