// The database's own facts (database_meta): a key and a text value each, written once (the master key check).
import type { Storage } from "./types.ts";

export function readMeta(storage: Storage, key: string): string | undefined {
  return (storage.stmt("SELECT value FROM database_meta WHERE key = ?").get(key) as { value: string } | undefined)?.value;
}

/** Records the fact unless the database already has one under the key (the first writer wins). */
export function recordMetaOnce(storage: Storage, key: string, value: string): void {
  storage.stmt("INSERT OR IGNORE INTO database_meta (key, value) VALUES (?, ?)").run(key, value);
}
