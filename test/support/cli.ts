// The CLI's storage commands run inside the test process: the same command functions `src/main.ts` dispatches to
// (keys, members, companies, assets, customers, wallets, cases, reports, rules, migrate), on the same database file,
// with the same configuration reading, instead of a new `bun` process each time (about 0.7 s a run on two cores).
// A server under test sees these writes exactly as it sees the CLI's (another connection to the file, picked up by
// its poll). Tests that prove the CLI as a program (exit codes, one-line errors, help, the binary) keep `runCli`
// from ./server.ts; CARAVAN_TEST_CLI=process sends every call here to a real process too.
import { isDatabaseCommand, runDatabaseCommand } from "../../src/cli/entry.ts";
import { runCli } from "./server.ts";
import { withTestEngine } from "./test-engine.ts";

/**
 * In-process commands run one after another. Each opens its own connection, as each `caravan` process does; a command
 * whose unit of work awaits inside its transaction (the CLI's runtime entry) would, beside another command's open
 * transaction in this one thread, wait on that connection's write lock while holding the thread it needs to commit.
 * Separate processes never meet that: each keeps running while the other waits.
 */
let queue: Promise<unknown> = Promise.resolve();

/** `caravan <args>` with `env` over the test's own environment: exit code and output, as `runCli` answers them. */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const [command, ...rest] = args;
  // Help, unknown commands and (on request) everything: the real program.
  if (!isDatabaseCommand(command) || rest.some((a) => a === "--help" || a === "-h" || a === "help") || process.env.CARAVAN_TEST_CLI === "process") return runCli(args, env);
  const turn = queue.then(async () => runHere(command, rest, await withTestEngine(env)));
  queue = turn.catch(() => undefined);
  return turn;
}

async function runHere(command: string, rest: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const lines: string[] = [];
  try {
    await runDatabaseCommand(command, rest, (line) => lines.push(line), { ...process.env, ...env });
    return { code: 0, stdout: lines.map((l) => `${l}\n`).join(""), stderr: "" };
  } catch (e) {
    // src/main.ts answers every refusal as one line `caravan: <message>` and exit code 1.
    return { code: 1, stdout: lines.map((l) => `${l}\n`).join(""), stderr: `caravan: ${e instanceof Error ? e.message : String(e)}\n` };
  }
}

/**
 * `keys create` arguments that name a member: given `--role` without `--member`, a member of that role with a fresh
 * email is made first (`members create`), as an operator would; `keys create` itself never makes one.
 */
export async function withMember(args: string[], env: Record<string, string>, run: typeof runCliInProcess = runCliInProcess): Promise<string[]> {
  const r = args.indexOf("--role");
  if (r < 0 || args.includes("--member")) return args;
  const c = args.indexOf("--company");
  const company = c >= 0 ? ["--company", args[c + 1]] : [];
  const email = `${args[r + 1].replace(/_/g, "-")}-${crypto.randomUUID().slice(0, 8)}@members.test`;
  const made = await run(["members", "create", "--email", email, "--role", args[r + 1], ...company, "--json"], env);
  if (made.code !== 0) throw new Error(`members create failed: ${made.stderr}`);
  return [...args, "--member", email];
}
