// SQL the two engines share is written once with SQLite's `?` placeholders (the rows' writes of the SQLite
// repositories); PostgreSQL numbers them. Only for texts whose `?` are all placeholders (none inside a literal).
const done = new Map<string, string>();

/** `sql` with its `?` placeholders as `$first`, `$first+1`… in order (memoized when from `$1`: the texts are constants). */
export function numbered(sql: string, first = 1): string {
  const memo = first === 1;
  let out = memo ? done.get(sql) : undefined;
  if (out === undefined) {
    let n = first - 1;
    out = sql.replace(/\?/g, () => `$${++n}`);
    if (memo && done.size < 1024) done.set(sql, out);
  }
  return out;
}
