// The provider_e sandbox bridge is a separate party: nothing it loads, directly or through another file, is Caravan's
// service code (src/adapters, src/actors, src/http). A peer sharing our codecs would agree with every misreading.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { repoRoot } from "../support/server.ts";

const FORBIDDEN = ["src/adapters/", "src/actors/", "src/http/", "src/services.ts"];

/** Every file of ours a module loads, following relative imports (static, dynamic and `export … from`). */
function closure(start: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...start];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s*["']([^"']+)["']/g)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec.startsWith(".")) continue;
      todo.push(resolve(dirname(file), spec));
    }
  }
  return seen;
}

test("src/sandbox/provider_e imports no service code, directly or indirectly", () => {
  const dir = join(repoRoot, "src/sandbox/provider_e");
  const files = readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => join(dir, f));
  expect(files.length).toBeGreaterThan(0);
  const loaded = [...closure(files)].map((f) => relative(repoRoot, f));
  const service = loaded.filter((f) => FORBIDDEN.some((p) => f.startsWith(p)));
  expect(service).toEqual([]);
  // The check itself sees imports: the bridge does load the shared domain types it is allowed.
  expect(loaded.some((f) => f.startsWith("src/domain/"))).toBe(true);
});
