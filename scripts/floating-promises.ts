// Every promise is awaited, returned or explicitly let go (`void p`): a store call whose promise is dropped would run
// outside the unit of work it was meant for, and its failure would roll nothing back. The TypeScript checker finds
// statements whose value is a promise and that do none of those; `bun run check` runs this after tsc.
//
//   bun scripts/floating-promises.ts [dir ...]    (default: src test bench scripts)
import ts from "typescript-5";
import { resolve } from "node:path";

const roots = (process.argv.length > 2 ? process.argv.slice(2) : ["src", "test", "bench", "scripts"]).map((d) => resolve(d) + "/");
const configPath = ts.findConfigFile(process.cwd(), ts.sys.fileExists, "tsconfig.json");
if (!configPath) throw new Error("no tsconfig.json here");
const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
if (!config) throw new Error("tsconfig.json could not be read");
const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
const checker = program.getTypeChecker();

function isThenable(type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(isThenable);
  const then = type.getProperty("then");
  if (!then) return false;
  const t = checker.getTypeOfSymbol(then);
  return t.getCallSignatures().length > 0;
}

/** `p.catch(f)` and `p.then(f, g)` handle the rejection themselves. */
function handled(e: ts.Expression): boolean {
  if (!ts.isCallExpression(e) || !ts.isPropertyAccessExpression(e.expression)) return false;
  const name = e.expression.name.text;
  return name === "catch" || (name === "then" && e.arguments.length >= 2);
}

const found: string[] = [];
for (const sf of program.getSourceFiles()) {
  if (sf.isDeclarationFile || !roots.some((r) => sf.fileName.startsWith(r))) continue;
  const visit = (node: ts.Node): void => {
    if (ts.isExpressionStatement(node)) {
      const e = node.expression;
      const letGo = ts.isVoidExpression(e) || ts.isAwaitExpression(e) || (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken);
      if (!letGo && !handled(e) && (ts.isCallExpression(e) || ts.isNewExpression(e) || ts.isPropertyAccessExpression(e)) && isThenable(checker.getTypeAtLocation(e))) {
        const { line, character } = sf.getLineAndCharacterOfPosition(e.getStart(sf));
        found.push(`${sf.fileName.slice(process.cwd().length + 1)}:${line + 1}:${character + 1}  ${e.getText(sf).split("\n")[0].slice(0, 100)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
if (found.length) {
  console.error(`${found.length} promise${found.length === 1 ? "" : "s"} neither awaited, returned nor let go with void:\n${found.join("\n")}`);
  process.exit(1);
}
console.log("floating promises: none");
