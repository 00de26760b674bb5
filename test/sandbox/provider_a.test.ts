// The provider_a sandbox network is a separate party: it imports nothing from the service (adapters, actors, HTTP
// routes), takes from src/domain/ types only (never a codec), and builds on the providers' own libraries.
import { test, expect } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = join(import.meta.dir, "../../src/sandbox/provider_a");
const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));

/** Every import and export-from of a file: its specifier and whether it is type-only. */
function imports(text: string): { spec: string; typeOnly: boolean }[] {
  const out: { spec: string; typeOnly: boolean }[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/g;
  for (const m of text.matchAll(re)) out.push({ spec: m[3], typeOnly: m[2] !== undefined });
  for (const m of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) out.push({ spec: m[1], typeOnly: false });
  return out;
}

test("the sandbox's files are found and their imports read", () => {
  expect(files).toContain("index.ts");
  const all = files.flatMap((f) => imports(readFileSync(join(dir, f), "utf8")));
  expect(all.some((i) => i.spec === "@taprsvp/types")).toBe(true);
});

test.each(files)("%s imports no service code (adapters, actors, http), from src/domain only types, else only the sandbox", (file) => {
  for (const { spec, typeOnly } of imports(readFileSync(join(dir, file), "utf8"))) {
    if (!spec.startsWith(".")) continue;
    const target = join(dir, spec);
    const rel = target.slice(join(import.meta.dir, "../../src").length + 1);
    expect(rel.startsWith("adapters/") || rel.startsWith("actors/") || rel.startsWith("http/")).toBe(false);
    if (rel.startsWith("domain/")) expect({ spec, typeOnly }).toEqual({ spec, typeOnly: true });
    else expect(rel.startsWith("sandbox/")).toBe(true); // its own files, or the sandbox's shared loopback listener
  }
});

test("it is built on the providers' own libraries: the TAP SDK's schemas, Notabene's ivms101, standardwebhooks", () => {
  const specs = new Set(files.flatMap((f) => imports(readFileSync(join(dir, f), "utf8")).map((i) => i.spec)));
  for (const lib of ["@taprsvp/types", "ivms101", "standardwebhooks"]) expect(specs.has(lib)).toBe(true);
});
