// CLI for the actors' dead letters (messages parked after their last attempt): list them and put them back in their
// actor's mailbox. They belong to the runtime, not to a company; the running server picks a replayed message up
// within its poll interval (CARAVAN_ACTOR_POLL_MS) and handles it as a new message.
import type { DeadLetter } from "../ports/runtime-store.ts";
import type { CliContext } from "./context.ts";
import { iso } from "../domain/ids.ts";
import { parseOptions, UsageError } from "./usage.ts";

const USAGE = "usage: dead-letters list [--actor <address or prefix>] [--limit N] [--json]\n       dead-letters replay (--id <id> | --all [--actor <prefix>]) [--json]";

const view = (d: DeadLetter) => ({ id: d.id, actor: d.actor, attempts: d.attempts, lastError: d.lastError, createdAt: iso(d.createdAt), diedAt: iso(d.diedAt) });

export async function runDeadLetters(cli: CliContext, argv: string[], out: (line: string) => void, clock: () => number = Date.now): Promise<void> {
  const [sub, ...rest] = argv;
  const mailbox = cli.runtimeStore();
  if (sub === "list") {
    const v = parseOptions(rest, { actor: { type: "string" }, limit: { type: "string" } }, USAGE);
    const limit = v.limit === undefined ? 1_000 : Number(v.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive whole number\n${USAGE}`);
    const rows = (await mailbox.deadLetters({ actorPrefix: v.actor as string | undefined, limit })).map(view);
    if (v.json) return out(JSON.stringify(rows));
    if (rows.length === 0) return out("No dead letters.");
    for (const r of rows) out(`${r.id}  ${r.actor}  ${r.attempts} attempts  died ${r.diedAt}  ${r.lastError}`);
    return;
  }
  if (sub === "replay") {
    const v = parseOptions(rest, { id: { type: "string" }, all: { type: "boolean" }, actor: { type: "string" } }, USAGE);
    if ((v.id === undefined) === !v.all) throw new UsageError(`give --id <id> or --all\n${USAGE}`);
    let replayed: { id: number; messageId: number }[];
    if (v.all) replayed = await mailbox.replayDeadLetters({ actorPrefix: v.actor as string | undefined }, clock());
    else {
      const id = Number(v.id);
      if (!Number.isInteger(id)) throw new UsageError(`--id must be a dead letter's number\n${USAGE}`);
      const r = await mailbox.replayDeadLetter(id, clock());
      if (r === null) throw new UsageError(`no dead letter with id ${id} (caravan dead-letters list shows them)`);
      replayed = [r];
    }
    replayed = replayed.map((r) => ({ id: r.id, messageId: r.messageId }));
    if (v.json) return out(JSON.stringify({ replayed }));
    out(replayed.length === 0 ? "No dead letters to replay." : `Replayed ${replayed.length} dead letter${replayed.length === 1 ? "" : "s"}: ${replayed.map((r) => `${r.id} → message ${r.messageId}`).join(", ")}`);
    return;
  }
  throw new UsageError(USAGE);
}
