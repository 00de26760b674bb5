// `bun run build`: dist/caravan, one executable that needs nothing beside it. Embedded: the SQL migrations (entry
// points named by their own paths, so the migrator finds them; SQLite's and PostgreSQL's), the asset catalogue and FX snapshot (bundled JSON),
// the report fonts (src/adapters/pdf/font-files.ts), the PDF render worker and the WAL checkpoint worker
// (entry points of their own). The executable reads no .env and no bunfig.toml where it runs.
// `react-devtools-core` is an optional import of Ink, loaded only under DEV=true; it is not a dependency, so it is
// stubbed here rather than left unresolved (the console in the binary never starts the devtools).
import type { BunPlugin } from "bun";

const noDevtools: BunPlugin = {
  name: "no-react-devtools",
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: "react-devtools-core", namespace: "caravan-stub" }));
    build.onLoad({ filter: /.*/, namespace: "caravan-stub" }, () => ({
      contents: "export default { initialize() {}, connectToDevTools() {} };",
      loader: "js",
    }));
  },
};

const outfile = process.argv[2] ?? "dist/caravan";
// SQLite's migrations and PostgreSQL's (db/migrations-pg: the engine CARAVAN_DATABASE_URL selects).
const migrations = [...new Bun.Glob("db/migrations/*.sql").scanSync("."), ...new Bun.Glob("db/migrations-pg/*.sql").scanSync(".")].sort();
const result = await Bun.build({
  entrypoints: ["src/main.ts", "src/adapters/pdf/worker.ts", "src/adapters/storage/checkpoint-worker.ts", ...migrations],
  root: ".",
  naming: { asset: "[dir]/[name].[ext]" },
  // Settings come from the process environment only: the executable does not read a .env or bunfig.toml from the
  // directory it is started in (Bun's default would; docs/operations.md, Configuration).
  compile: { outfile, autoloadDotenv: false, autoloadBunfig: false },
  plugins: [noDevtools],
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`built ${outfile}`);
