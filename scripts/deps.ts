// `bun run deps`: the layer rules of .dependency-cruiser.cjs checked over src/ (docs/architecture.md#layers).
//
// dependency-cruiser reads TypeScript through the compiler's JavaScript API, which the TypeScript 7 compiler that
// `bun run check` uses does not publish. So the cruiser runs from a tool folder of its own (in the system's temporary
// folder) where `typescript` is a 5.x compiler: the `typescript-5` dev dependency (an npm alias of typescript@5), or
// the folder named by CARAVAN_DEPS_TYPESCRIPT. Everything else in that folder links back to this checkout's
// node_modules, and the cruiser itself is copied (not linked) so that it resolves `typescript` from there.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const modules = join(root, "node_modules");

function compilerFolder(): string | null {
  const candidates = [process.env.CARAVAN_DEPS_TYPESCRIPT, join(modules, "typescript-5")].filter((c): c is string => !!c);
  for (const c of candidates) {
    const manifest = join(c, "package.json");
    if (!existsSync(manifest)) continue;
    const version = (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
    if (Number(version.split(".")[0]) < 7 && existsSync(join(c, "lib", "typescript.js"))) return resolve(c);
  }
  return null;
}

const compiler = compilerFolder();
if (!compiler) {
  console.error(
    "deps: dependency-cruiser needs a TypeScript compiler with its JavaScript API (5.x or 6.x); the installed typescript 7 has none.\n" +
      'deps: add the dev dependency  "typescript-5": "npm:typescript@5.9.3"  (then bun install), or set CARAVAN_DEPS_TYPESCRIPT to such a package folder.',
  );
  process.exit(1);
}

const cruiserVersion = (JSON.parse(readFileSync(join(modules, "dependency-cruiser", "package.json"), "utf8")) as { version: string }).version;
const home = join(tmpdir(), `caravan-deps-${cruiserVersion}-${Bun.hash(modules + compiler).toString(36)}`);
const tools = join(home, "node_modules");
if (!existsSync(join(tools, "dependency-cruiser", "bin", "dependency-cruiser.mjs"))) {
  // Built beside it and renamed into place, so two runs at once never see a half-made folder.
  const building = `${home}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const staged = join(building, "node_modules");
  mkdirSync(staged, { recursive: true });
  for (const name of readdirSync(modules)) {
    if (name === "typescript" || name === "dependency-cruiser" || name === ".cache") continue;
    symlinkSync(join(modules, name), join(staged, name));
  }
  symlinkSync(compiler, join(staged, "typescript"));
  cpSync(join(modules, "dependency-cruiser"), join(staged, "dependency-cruiser"), { recursive: true, dereference: true });
  try {
    renameSync(building, home);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another run finished first: use its folder
  }
}

const args = process.argv.slice(2);
const proc = Bun.spawn(["bun", join(tools, "dependency-cruiser", "bin", "dependency-cruiser.mjs"), "--config", ".dependency-cruiser.cjs", ...(args.length ? args : ["src"])], {
  cwd: root,
  stdio: ["inherit", "inherit", "inherit"],
});
process.exit(await proc.exited);
