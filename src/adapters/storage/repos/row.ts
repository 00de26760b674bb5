// A row as the repositories' SQL reads it: a drizzle table's columns under their SQL (snake_case) names, each typed as
// drizzle infers it from the schema (`$inferSelect`). Row types derive from here instead of restating the table.
import type { Table } from "drizzle-orm";

type Columns<T extends Table> = T["_"]["columns"];

export type RowOf<T extends Table> = {
  [K in keyof Columns<T> as Columns<T>[K]["_"]["name"]]: T["$inferSelect"][K & keyof T["$inferSelect"]];
};
