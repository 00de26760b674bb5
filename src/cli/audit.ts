// `caravan audit`: the tamper-evident audit log from the command line (docs/operations.md#the-audit-log-checkpoints).
//   checkpoint   seal what is committed, sign a checkpoint of every log that grew, print the latest (to keep elsewhere)
//   public-key   the signing keys' public halves, active and rotated, with each log's verifier key
//   rotate-key   a new signing key; the old public key stays listed; the first checkpoint under the new key is signed by both
//   verify       (src/main.ts runs it without opening the database for writing) every leaf and checkpoint, offline
import { readFileSync, existsSync } from "node:fs";
import { base64 } from "@scure/base";
import { AuditTreeError, type AuditTreeRepository } from "../ports/audit-tree.ts";
import type { AuditVerifier, KeptCheckpoint, VerifyResult } from "../ports/audit-verify.ts";
import { auditKeySource, loadAuditKey, newSigningKey, readAuditKey, writeAuditKeyFile, type AuditSigningKey } from "../adapters/crypto/audit-key.ts";
import { parsePublicKey, verifierKey, NoteError } from "../domain/audit-tree.ts";
import { isEnvironment } from "../domain/types.ts";
import type { CliContext } from "./context.ts";
import { CommandError, parseOptions, UsageError } from "./usage.ts";

type Out = (line: string) => void;

const USAGE = `usage: audit checkpoint [--company <slug>] [--env test|live]   sign what grew, print the latest checkpoint(s)
       audit public-key              the signing keys (active and rotated) and each log's verifier key
       audit rotate-key              a new signing key; the old public key stays listed
       audit verify [--db <file>] [--checkpoint <file>]... [--public-key <key>]...   check every leaf and checkpoint
every command takes [--json]; the database is CARAVAN_DB (verify: or --db, e.g. a backup or a postgres:// URL)`;

export interface AuditCliDeps {
  clock?: () => number;
  env?: Record<string, string | undefined>;
}

/** The signing key for the CLI: the one the database lists as active (made and listed on a fresh database). */
async function cliKey(storage: { readonly path: string }, trees: AuditTreeRepository, env: Record<string, string | undefined>, now: number): Promise<AuditSigningKey> {
  const found = readAuditKey(storage.path, env);
  const active = await trees.activeKey();
  const source = auditKeySource(storage.path, env);
  const where = "env" in source ? "CARAVAN_AUDIT_SIGNING_KEY" : `the key file ${source.file}`;
  if (!found && active) throw new CommandError(`${where} is missing, and the database lists audit signing key ${active.keyId}: put it back, or make a new key with caravan audit rotate-key`);
  const key = found ?? loadAuditKey(storage.path, env);
  try {
    await trees.adoptKey(key, now, where);
  } catch (e) {
    throw e instanceof AuditTreeError ? new CommandError(e.message) : e;
  }
  return key;
}

export async function runAudit(cli: CliContext, argv: string[], out: Out, deps: AuditCliDeps = {}): Promise<void> {
  const [sub, ...rest] = argv;
  const env = deps.env ?? process.env;
  const clock = deps.clock ?? Date.now;
  const repositories = cli.repositories(clock);
  const storage = { path: cli.path };
  const trees = repositories.auditTrees;
  if (sub === "checkpoint") {
    const v = parseOptions(rest, { env: { type: "string" } }, USAGE);
    if (v.env !== undefined && !isEnvironment(v.env as string)) throw new UsageError(`--env must be test or live\n${USAGE}`);
    const key = await cliKey(storage, trees, env, clock());
    await trees.checkpoint(key, clock());
    const company = v.company ? await repositories.tenancy.requireCompany(v.company as string) : null;
    const chosen = (await trees.trees()).filter((t) => (!company || t.companyId === company.id) && (!v.env || t.environment === v.env));
    if (chosen.length === 0) {
      if (v.company || v.env) throw new CommandError("no audit log matches (nothing has been recorded there yet)");
      if (!v.json) out("caravan: no audit entries yet, so no checkpoint (the signing key is ready)");
      return;
    }
    const views = [];
    for (const t of chosen) {
      const latest = await trees.latest(t.logId);
      if (latest) views.push(await trees.view(latest));
    }
    if (v.json) for (const view of views) out(JSON.stringify(view));
    // Each note as issued: keep it byte for byte (`caravan audit verify --checkpoint <file>` reads one note a file).
    else out(views.map((x) => x.note).join("\n").replace(/\n$/, ""));
    return;
  }
  if (sub === "public-key") {
    const v = parseOptions(rest, {}, USAGE);
    const logs = await trees.trees();
    const keys = (await trees.keys()).map((k) => ({
      keyId: k.keyId,
      publicKey: k.publicKey,
      createdAt: k.createdAt,
      retiredAt: k.retiredAt,
      verifierKeys: Object.fromEntries(logs.map((t) => [t.logId, verifierKey(t.origin, base64.decode(k.publicKey))])),
    }));
    if (v.json) return out(JSON.stringify(keys));
    if (keys.length === 0) return out("no audit signing key yet (one is made at the first start, or by caravan audit checkpoint)");
    for (const k of keys) {
      out(`${k.keyId}  ${k.publicKey}  ${k.retiredAt ? `retired ${k.retiredAt}` : "active"} (since ${k.createdAt})`);
      for (const [log, vk] of Object.entries(k.verifierKeys)) out(`  ${log}  ${vk}`);
    }
    return;
  }
  if (sub === "rotate-key") {
    const v = parseOptions(rest, {}, USAGE);
    const source = auditKeySource(storage.path, env);
    if ("env" in source) throw new CommandError("the signing key comes from CARAVAN_AUDIT_SIGNING_KEY: rotate by key file (unset it), or see docs/operations.md");
    const old = readAuditKey(storage.path, env);
    const active = await trees.activeKey();
    if (old && active && old.keyId !== active.keyId) throw new CommandError(`the key file ${source.file} holds ${old.keyId}, not the active key ${active.keyId}`);
    const next = newSigningKey();
    const now = clock();
    // The database first (a failure leaves the old file in use), then the file; the transition checkpoints last.
    await cli.store.transaction(() => trees.rotateTo(next, now));
    writeAuditKeyFile(source.file, next.seed);
    const { checkpoints: rows } = await trees.checkpoint(next, now, { all: true, alsoSignWith: old ? [old] : [] });
    const result = { retired: old?.keyId ?? active?.keyId ?? null, active: next.keyId, publicKey: base64.encode(next.publicKey), checkpoints: rows.length };
    out(
      v.json
        ? JSON.stringify(result)
        : `audit signing key rotated: ${result.retired ?? "(none)"} retired, ${next.keyId} active (public key ${result.publicKey}); ${rows.length} checkpoint(s) signed by both`,
    );
    return;
  }
  throw new UsageError(USAGE);
}

/** `caravan audit verify`: exit 0 when everything checks; otherwise a CommandError naming the first fault (exit 1). */
export async function runAuditVerify(verifyAuditFile: AuditVerifier, argv: string[], dbPath: string, out: Out, err: Out = (l) => console.error(l)): Promise<VerifyResult> {
  const v = parseOptions(argv, { db: { type: "string" }, checkpoint: { type: "string", multiple: true }, "public-key": { type: "string", multiple: true } }, USAGE);
  const file = (v.db as string | undefined) ?? dbPath;
  const postgres = /^postgres(ql)?:\/\//i.test(file.trim());
  if (!postgres && (file === ":memory:" || !existsSync(file))) throw new CommandError(`cannot verify ${file}: no such database file (CARAVAN_DB, or --db <file or postgres:// URL>)`);
  let trusted: Uint8Array[] | null = null;
  try {
    if (v["public-key"]) trusted = (v["public-key"] as string[]).map((k) => parsePublicKey(existsSync(k) ? readFileSync(k, "utf8") : k));
  } catch (e) {
    throw new UsageError(`--public-key: ${(e as NoteError).message}`);
  }
  const kept: KeptCheckpoint[] = ((v.checkpoint as string[] | undefined) ?? []).map((f) => {
    try {
      return { source: f, note: readFileSync(f, "utf8") };
    } catch (e) {
      throw new CommandError(`cannot read checkpoint file ${f}: ${(e as Error).message}`);
    }
  });
  const result = await verifyAuditFile(file, { trusted, kept, progress: err });
  if (v.json) out(JSON.stringify(result));
  else {
    if (result.trustedFrom === "database") err("caravan: trusting the signing keys listed in the database itself; pass --public-key with the key you hold to trust that key alone");
    for (const l of result.logs)
      out(`${l.origin}: ${l.leaves} leaves, ${l.checkpoints} checkpoint(s) verified${l.unsealed ? `; ${l.unsealed} newer entries not yet sealed` : ""}`);
    if (result.ok)
      out(
        `ok: ${result.entries} entries and ${result.checkpoints} checkpoints verified in ${result.seconds.toFixed(2)} s${result.secondsPerMillion !== null ? ` (${result.secondsPerMillion.toFixed(2)} s per million entries)` : ""}`,
      );
  }
  if (!result.ok) throw new CommandError(`audit log verification failed: ${result.failure}`);
  return result;
}
