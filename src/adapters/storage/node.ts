// node:sqlite (Deno, Node) presented with the bun:sqlite surface drizzle's sync session uses.
import { DatabaseSync } from "node:sqlite";
import type { RunResult, SqlClient, SqlStatement, SqlValue } from "./types.ts";

type NodeStatement = ReturnType<DatabaseSync["prepare"]> & { setReturnArrays?: (on: boolean) => void };

function wrap(db: DatabaseSync, sql: string): SqlStatement {
  const stmt = db.prepare(sql) as NodeStatement;
  let arrays: NodeStatement | undefined;
  return {
    run: (...p: SqlValue[]) => stmt.run(...(p as never[])) as unknown as RunResult,
    get: (...p: SqlValue[]) => stmt.get(...(p as never[])) as Record<string, unknown> | undefined,
    all: (...p: SqlValue[]) => stmt.all(...(p as never[])) as Record<string, unknown>[],
    values: (...p: SqlValue[]) => {
      if (typeof stmt.setReturnArrays === "function") {
        arrays ??= (() => {
          const s = db.prepare(sql) as NodeStatement;
          s.setReturnArrays!(true);
          return s;
        })();
        return arrays.all(...(p as never[])) as unknown as unknown[][];
      }
      return (stmt.all(...(p as never[])) as Record<string, unknown>[]).map((r) => Object.values(r));
    },
  };
}

export function openNodeClient(path: string): SqlClient {
  const db = new DatabaseSync(path);
  let depth = 0;
  const transaction = <T>(fn: () => T) => {
    const run = (begin: string) => (): T => {
      const nested = depth > 0;
      const sp = `tx${depth}`;
      db.exec(nested ? `SAVEPOINT ${sp}` : begin);
      depth++;
      try {
        const out = fn();
        depth--;
        db.exec(nested ? `RELEASE ${sp}` : "COMMIT");
        return out;
      } catch (e) {
        depth--;
        db.exec(nested ? `ROLLBACK TO ${sp}; RELEASE ${sp}` : "ROLLBACK");
        throw e;
      }
    };
    const deferred = run("BEGIN DEFERRED");
    return Object.assign((..._a: unknown[]) => deferred(), {
      deferred,
      immediate: run("BEGIN IMMEDIATE"),
      exclusive: run("BEGIN EXCLUSIVE"),
    });
  };
  return {
    exec: (sql) => db.exec(sql),
    prepare: (sql) => wrap(db, sql),
    transaction,
    close: () => db.close(),
    get inTransaction() {
      return (db as unknown as { isTransaction?: boolean }).isTransaction ?? depth > 0;
    },
  };
}
