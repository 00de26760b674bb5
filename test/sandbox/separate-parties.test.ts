// Sandbox peers are separate parties: nothing under src/sandbox/ may import Caravan's service code (adapters, actors,
// HTTP, the composition root or the CLI), directly or through a shared file it imports. A peer that shared our codecs
// would agree with every misreading of a provider's wire, and our end-to-end tests could not see one.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SANDBOX = join(ROOT, "src/sandbox");
const SOURCE = /\.(?:[cm]?[jt]sx?)$/;

/** Service code a sandbox peer must not reach. */
const FORBIDDEN_DIRS = ["src/adapters/", "src/actors/", "src/http/"];
const FORBIDDEN_FILES = ["src/services.ts", "src/main.ts"];

/** Every import specifier of a source text (static, `export … from`, side-effect, dynamic, require); comments ignored. */
function importSpecifiers(code: string): { specifiers: string[]; computed: number } {
  const text = code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:\\'"`])\/\/.*$/gm, "$1");
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/g,
    /\bimport\s*(['"])([^'"]+)\1/g,
    /\bimport\s*\(\s*(['"`])([^'"`$]+)\1\s*[,)]/g,
    /\brequire\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
  ];
  for (const p of patterns) for (const m of text.matchAll(p)) out.push(m[2]!);
  // `import(someVariable)` cannot be checked: it counts as a leak until written with a literal path.
  const dynamic = [...text.matchAll(/\bimport\s*\(/g)].length;
  const literal = [...text.matchAll(/\bimport\s*\(\s*(['"`])([^'"`$]+)\1\s*[,)]/g)].length;
  return { specifiers: out, computed: dynamic - literal };
}

/** A relative specifier → the repository path it names (extension optional, `index` for a folder); null for packages. */
function resolveSpecifier(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith(".") && !specifier.startsWith("/")) return null;
  const base = resolve(dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.js`, join(base, "index.ts"), join(base, "index.js")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base;
}

const isForbidden = (abs: string): boolean => {
  const rel = relative(ROOT, abs).replaceAll("\\", "/");
  return FORBIDDEN_DIRS.some((d) => rel.startsWith(d) || `${rel}/` === d) || FORBIDDEN_FILES.some((f) => rel === f || rel === f.replace(/\.ts$/, ""));
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : SOURCE.test(name) ? [p] : [];
  });
}

/**
 * Each way `files` reach service code: a direct import, or one through a file outside the sandbox they import (a
 * `src/domain/` type may itself import further), shown as the chain of repository paths.
 */
function leaks(files: string[]): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const { specifiers, computed } = importSpecifiers(readFileSync(file, "utf8"));
    const here = [...chain, relative(ROOT, file)];
    if (computed > 0) found.push(`${here.join(" → ")}: import() with a computed path`);
    for (const s of specifiers) {
      const target = resolveSpecifier(file, s);
      if (target === null) continue;
      if (isForbidden(target)) found.push(`${here.join(" → ")} → ${relative(ROOT, target)}`);
      else if (existsSync(target) && SOURCE.test(target) && !target.startsWith(SANDBOX + "/")) visit(target, here);
    }
  };
  for (const f of files) visit(f, []);
  return found;
}

describe("the guard's scanner", () => {
  test.each([
    ['import { a } from "../../adapters/x.ts";', ["../../adapters/x.ts"]],
    ['import type { T } from "../../adapters/x.ts";', ["../../adapters/x.ts"]],
    ['import {\n  a,\n  type B,\n} from "../http/y.ts";', ["../http/y.ts"]],
    ['export { a } from "../actors/z.ts";\nexport * from "./w.ts";', ["../actors/z.ts", "./w.ts"]],
    ['import "../services.ts";', ["../services.ts"]],
    ['const m = await import("../main.ts");', ["../main.ts"]],
    ["const m = await import(`../../http/kit.ts`);", ["../../http/kit.ts"]],
    ['// import { a } from "../../adapters/x.ts";\n/* import "../http/y.ts" */ const url = "http://127.0.0.1";', []],
    ['import nacl from "tweetnacl";', ["tweetnacl"]],
  ])("finds the specifiers of %j", (code, expected) => {
    expect(importSpecifiers(code).specifiers.sort()).toEqual([...expected].sort());
  });

  test("a dynamic import with a computed path is counted, since it cannot be checked", () => {
    expect(importSpecifiers('const p = "../adapters/x.ts"; await import(p);').computed).toBe(1);
    expect(importSpecifiers('await import("./peer.ts");').computed).toBe(0);
  });

  test("a forbidden target is recognised whatever the spelling; domain and sandbox files are not", () => {
    const from = join(SANDBOX, "peer/index.ts");
    for (const s of ["../../adapters/server/index.ts", "../../adapters/server", "../../actors/runtime.ts", "../../http/kit.ts", "../../services.ts", "../../services", "../../main.ts"]) {
      expect(isForbidden(resolveSpecifier(from, s)!)).toBe(true);
    }
    for (const s of ["../../domain/ivms101/types.ts", "../serve.ts", "./wire.ts"]) expect(isForbidden(resolveSpecifier(from, s)!)).toBe(false);
  });
});

// One test per peer (each folder, and each file at the top of src/sandbox/), so a failure names the peer that leaks.
const entries = readdirSync(SANDBOX).sort();
describe("src/sandbox/ imports no service code", () => {
  for (const name of entries) {
    const p = join(SANDBOX, name);
    const isDir = statSync(p).isDirectory();
    if (!isDir && !SOURCE.test(name)) continue;
    test(`${isDir ? `${name}/` : name} imports nothing from src/adapters, src/actors, src/http, src/services.ts or src/main.ts`, () => {
      const files = isDir ? sourceFiles(p) : [p];
      expect(files.length).toBeGreaterThan(0);
      expect(leaks(files)).toEqual([]);
    });
  }
});
