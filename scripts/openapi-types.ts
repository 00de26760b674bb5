// `bun scripts/openapi-types.ts <openapi.json | URL> <out.ts>`: TypeScript types of the API from its OpenAPI document,
// written by openapi-typescript (docs/api.md, "A client from the document").
//
// openapi-typescript prints its types through the TypeScript compiler's JavaScript API, which the TypeScript 7
// compiler that `bun run check` uses does not publish. So, as `bun run deps` does for dependency-cruiser, it runs from
// a tool folder of its own (in the system's temporary folder) where `typescript` is the 5.x compiler of the
// `typescript-5` dev dependency; everything else there links back to this checkout's node_modules, and
// openapi-typescript itself is copied (not linked) so that it resolves `typescript` from there. Nothing is fetched.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const modules = join(root, "node_modules");

/** The tool folder's node_modules, built once per installed version (two runs at once share it). */
export function openapiTypescriptTool(): string {
  const compiler = join(modules, "typescript-5");
  if (!existsSync(join(compiler, "lib", "typescript.js"))) throw new Error('openapi-types: needs the dev dependency "typescript-5": "npm:typescript@5.9.3" (bun install)');
  const version = (JSON.parse(readFileSync(join(modules, "openapi-typescript", "package.json"), "utf8")) as { version: string }).version;
  const home = join(tmpdir(), `caravan-openapi-typescript-${version}-${Bun.hash(modules + compiler).toString(36)}`);
  const tools = join(home, "node_modules");
  if (!existsSync(join(tools, "openapi-typescript", "bin", "cli.js"))) {
    // Built beside it and renamed into place, so two runs at once never see a half-made folder.
    const building = `${home}.${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    const staged = join(building, "node_modules");
    mkdirSync(staged, { recursive: true });
    for (const name of readdirSync(modules)) {
      if (name === "typescript" || name === "openapi-typescript" || name === ".cache" || name === ".bin") continue;
      symlinkSync(join(modules, name), join(staged, name));
    }
    symlinkSync(compiler, join(staged, "typescript"));
    cpSync(join(modules, "openapi-typescript"), join(staged, "openapi-typescript"), { recursive: true, dereference: true });
    try {
      renameSync(building, home);
    } catch {
      rmSync(building, { recursive: true, force: true }); // another run finished first: use its folder
    }
  }
  return tools;
}

/** Writes the types of `input` (a file or a URL) to `output`; returns the exit code and what the generator printed. */
export async function generateTypes(input: string, output: string): Promise<{ code: number; output: string }> {
  const cli = join(openapiTypescriptTool(), "openapi-typescript", "bin", "cli.js");
  const proc = Bun.spawn(["bun", cli, input, "--output", output], { cwd: root, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, output: out + err };
}

if (import.meta.main) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error("usage: bun scripts/openapi-types.ts <openapi.json | URL> <out.ts>");
    process.exit(2);
  }
  const r = await generateTypes(input, output);
  process.stderr.write(r.output);
  process.exit(r.code);
}
