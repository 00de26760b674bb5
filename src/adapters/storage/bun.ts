// bun:sqlite, the driver under Bun. Only loaded when running on Bun.
import { Database } from "bun:sqlite";
import type { SqlClient } from "./types.ts";

export function openBunClient(path: string): SqlClient {
  const db = new Database(path, { create: true, strict: false });
  return db as unknown as SqlClient;
}

/** A shared mapping of a file (MAP_SHARED: writes are seen by every process that maps it). For the change beacon. */
export function mapShared(path: string): Uint8Array {
  return Bun.mmap(path, { shared: true });
}
