// Column types pg-core lacks: bytea (SQLite's BLOB), read and written as bytes.
import { customType } from "drizzle-orm/pg-core";

export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});
