// drizzle-kit configuration for PostgreSQL: `bun run db:generate:pg` writes SQL migrations from db/schema-pg.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema-pg/index.ts",
  out: "./db/migrations-pg",
});
