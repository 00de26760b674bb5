// drizzle-kit configuration: `bun run db:generate` writes SQL migrations from db/schema.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
