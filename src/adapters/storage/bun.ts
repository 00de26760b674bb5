// bun:sqlite, the driver under Bun. Only loaded when running on Bun.
import { Database } from "bun:sqlite";
import type { SqlClient } from "./types.ts";

export function openBunClient(path: string): SqlClient {
  const db = new Database(path, { create: true, strict: false });
  return db as unknown as SqlClient;
}
