// The layer rules, checked by `bun run deps` (scripts/deps.ts) and by .ci/run before the tests.
// docs/architecture.md#layers says what each layer is for; this file is the same rules in a form a machine checks.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circles, type-only imports included: a type or helper two files both need lives in a third, lower file.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "domain-imports-nothing-outward",
      comment: "src/domain is pure rules: it imports only itself and npm packages, never adapters, actors, HTTP, the CLI, the console, the sandbox or the wiring.",
      severity: "error",
      from: { path: "^src/domain/" },
      to: { path: "^src/", pathNot: "^src/domain/" },
    },
    {
      name: "ports-import-only-the-domain",
      comment: "src/ports holds the storage ports, written by hand in the domain's terms: they import only themselves and src/domain, never an engine.",
      severity: "error",
      from: { path: "^src/ports/" },
      to: { path: "^src/", pathNot: "^src/(ports|domain)/" },
    },
    {
      name: "actors-and-adapters-know-no-http",
      comment: "Actors and adapters serve HTTP, the CLI and the demo alike: none of them imports src/http.",
      severity: "error",
      from: { path: "^src/(actors|adapters)/" },
      to: { path: "^src/http/" },
    },
    {
      name: "adapters-know-no-actors",
      comment: "Adapters are the I/O below the actors: an adapter that needs an actor (a breaker, a kick) is handed a function by the composition root.",
      severity: "error",
      from: { path: "^src/adapters/" },
      to: { path: "^src/actors/" },
    },
    {
      name: "no-layer-imports-the-wiring",
      comment: "Only the entry points (main, the demo) import the composition root; everything else receives what it needs as arguments.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(main|demo|services)[.]ts$" },
      to: { path: "^src/services[.]ts$" },
    },
    {
      name: "console-imports-only-the-api-contract",
      comment: "The console is an API client: it imports its own files, npm packages and the API contract (src/api/) only.",
      severity: "error",
      from: { path: "^src/console/" },
      to: { path: "^src/", pathNot: "^src/(console|api)/" },
    },
    {
      name: "sandbox-imports-no-service-code",
      comment: "The sandbox peers stand in for other companies' servers: they share the wire rules of src/domain, never Caravan's adapters, actors, HTTP or wiring.",
      severity: "error",
      from: { path: "^src/sandbox/" },
      to: { path: "^src/(adapters|actors|http|cli|console|webhooks)/|^src/(services|main|demo)[.]ts$" },
    },
    {
      name: "service-imports-no-sandbox",
      comment: "The service never imports a simulated peer (only the demo and the sandbox's own entry start them).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(sandbox/|demo[.]ts$|main[.]ts$)" },
      to: { path: "^src/sandbox/" },
    },
    {
      name: "cli-imports-no-actor-kind",
      comment: "A CLI command is a typed command to the actor that owns the change, sent through the runtime entry its composition root builds (src/cli/entry.ts, which registers the kinds); no other CLI file imports an actor kind or the runtime, only types and presenters.",
      severity: "error",
      from: { path: "^src/cli/", pathNot: "^src/cli/entry[.]ts$" },
      to: { path: "^src/actors/", pathNot: "^src/actors/[a-z-]+-presenter[.]ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "only-composition-roots-know-the-engine",
      comment: "Above storage everything works on the ports of src/ports/: only the composition roots (src/services.ts, src/main.ts and the CLI's entry src/cli/entry.ts) import src/adapters/storage/, to open an engine and build its repositories.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/adapters/storage/|^src/(services|main)[.]ts$|^src/cli/entry[.]ts$" },
      to: { path: "^src/adapters/storage/" },
    },
    {
      name: "sql-only-in-storage",
      comment: "One storage boundary: the SQLite drivers, the PostgreSQL driver (postgres.js) and drizzle are imported by src/adapters/storage only (and the schemas in db/).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/adapters/storage/" },
      to: { path: "^(bun:sqlite|node:sqlite|drizzle-orm|postgres$)|node_modules/(drizzle-orm|postgres)/|^db/schema(-pg)?/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a typo or a missing package.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^(bun:|bun$)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: a circle through a type is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    // Imports spell the .ts/.tsx extension (allowImportingTsExtensions); the resolver also looks for these.
    enhancedResolveOptions: {
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    builtInModules: { add: ["bun", "bun:sqlite", "bun:test", "bun:ffi", "bun:jsc"] },
    exclude: { path: "^(node_modules|dist)/" },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
