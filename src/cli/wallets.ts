// CLI for wallet ownership proofs (the dashboard's part): challenges, signed proofs, attestations, revocations.
import process from "node:process";
import type { Storage } from "../adapters/storage/index.ts";
import { TenancyError, type Member, type TenancyRepository } from "../ports/tenancy.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { AuditRepository } from "../adapters/storage/repositories.ts";
import { cliRepositories } from "./repositories.ts";
import { noteAad, type WalletProof } from "../ports/proofs.ts";
import type { Wallet } from "../ports/wallets.ts";
import { loadMasterKey } from "../adapters/crypto/master-key.ts";
import { Sealer } from "../adapters/crypto/envelope.ts";
import { iso } from "../domain/ids.ts";
import { deriveVerification, effectiveStatus, parseExpiry, type Verification } from "../domain/proofs/index.ts";
import { UsageError, actingMember, parseOptions, need as required } from "./usage.ts";

type Out = (line: string) => void;
type Values = Record<string, string | boolean | undefined>;

export interface WalletCliDeps {
  clock?: () => number;
  /** The personal-data sealer; by default derived from the database's master key, as the server does. */
  pii?: () => Sealer;
}

const USAGE = `usage: wallets challenge --id <walletId> [--member <email>]
       wallets prove --id <walletId> --signature <sig> [--challenge <challengeId>] [--expires <iso>] [--member <email>]
       wallets attest --id <walletId> --note <text> --member <email> [--expires <iso>]
       wallets proofs --id <walletId>
       wallets revoke-proof --id <proofId> [--member <email>]
every command takes [--company <slug>] [--json]`;

const OPTIONS = {
  challenge: { member: { type: "string" } },
  prove: { signature: { type: "string" }, challenge: { type: "string" }, expires: { type: "string" }, member: { type: "string" } },
  attest: { note: { type: "string" }, expires: { type: "string" }, member: { type: "string" } },
  proofs: {},
  "revoke-proof": { member: { type: "string" } },
} as const;

function args(sub: keyof typeof OPTIONS, argv: string[]): Values {
  return parseOptions(argv, { ...OPTIONS[sub], id: { type: "string" } }, USAGE) as Values;
}

function need(v: Values, name: string): string {
  return required(v, name, USAGE);
}

/** The member named by --member, if active and allowed to verify wallets in the wallet's environment. */
const verifier = (t: TenancyRepository, companyId: string, email: string, w: { environment: "test" | "live" }): Promise<Member> =>
  actingMember(t, companyId, email, w.environment, ["wallets:verify"], (m) => `member ${m.email} has role ${m.role}, which may not verify wallets (wallets:verify)`);

function presentProof(p: WalletProof, now: number, note?: string | null) {
  return {
    id: p.id,
    walletId: p.walletId,
    type: p.type,
    // Read time decides: a proof past its expiry is expired even before the sweep marks it.
    status: effectiveStatus(p, now),
    recordedBy: p.recordedBy,
    recordedAt: p.recordedAt,
    expiresAt: p.expiresAt,
    revokedAt: p.revokedAt,
    revokedBy: p.revokedBy,
    challengeId: p.challengeId,
    signer: p.evidence?.signer ?? null,
    ...(note === undefined ? {} : { note }),
  };
}

const presentWallet = (w: Wallet, v: Pick<Verification, "verified" | "verifiedAt">) => ({
  id: w.id,
  address: w.address,
  network: w.network,
  environment: w.environment,
  verified: v.verified,
  verifiedAt: v.verifiedAt,
});

const verdict = (v: Pick<Verification, "verified" | "verifiedAt">) => (v.verified ? `verified (ownership last proven ${v.verifiedAt})` : "not verified");

export async function runWallets(storage: Storage, argv: string[], out: Out, deps: WalletCliDeps = {}): Promise<void> {
  const [sub, ...rest] = argv;
  if (!sub || !(sub in OPTIONS)) throw new UsageError(USAGE);
  const v = args(sub as keyof typeof OPTIONS, rest);
  const clock = deps.clock ?? Date.now;
  const pii = deps.pii ?? (() => new Sealer(loadMasterKey(storage.path, process.env).derive("pii")));
  const repositories = cliRepositories(storage, clock, { pii });
  const tenancy = repositories.tenancy;
  const company = await tenancy.requireCompany((v.company as string) ?? "default");
  const proofs = repositories.proofs;
  const audit = repositories.audit;
  const id = need(v, "id");
  const now = clock();
  const print = (value: unknown, human: string) => out(v.json ? JSON.stringify(value) : human);

  const wallet = async (walletId: string): Promise<Wallet> => {
    const w = await proofs.wallet(company.id, walletId);
    if (!w) throw new TenancyError(`no wallet with id ${walletId}`);
    return w;
  };
  const actorFor = async (w: Wallet, required: boolean): Promise<{ actor: AuditActor; member: Member | null }> => {
    if (typeof v.member !== "string") {
      if (required) throw new UsageError("--member <email> is required: an attestation is recorded by a member who may verify wallets");
      return { actor: { type: "system" }, member: null };
    }
    const m = await verifier(tenancy, company.id, v.member, w);
    return { actor: { type: "member", memberId: m.id }, member: m };
  };
  const expiry = (): string | null => {
    if (v.expires === undefined) return null;
    const e = parseExpiry(String(v.expires), now);
    if (!e.ok) throw new UsageError(e.reason);
    return iso(e.at);
  };
  // The CLI runs no actors, so it writes directly in one transaction beside a running server: the customer actor
  // reads wallets fresh, SQLite's write lock orders these writes with its own, and `recheck` repeats under
  // that lock what a concurrent writer may have changed (a wallet deleted meanwhile, a challenge spent).
  const record = (w: Wallet, actor: AuditActor, proof: WalletProof, recheck: () => Promise<void>): Promise<Verification> =>
    storage.transaction(async () => {
      await recheck();
      const next = await proofs.record(proof, now);
      await auditChange(audit, w, actor, next, now, "wallet.proof_recorded", { proofId: proof.id, type: proof.type, expiresAt: proof.expiresAt, verified: next.verified });
      return next;
    });

  switch (sub) {
    case "challenge": {
      const w = await wallet(id);
      const { actor, member } = await actorFor(w, false);
      const plan = await proofs.planChallenge(w, member?.id ?? null, now);
      if (!plan.ok) throw new TenancyError(plan.reason);
      const { challenge: row, scheme } = plan.value;
      await storage.transaction(async () => {
        if (!(await proofs.wallet(company.id, w.id))) throw new TenancyError(`wallet ${w.id} was deleted`);
        await proofs.insertChallenge(row);
        await audit.record({ companyId: company.id, environment: w.environment, actor, action: "wallet.challenge_issued", entityType: "Wallet", entityId: w.id, detail: { challengeId: row.id, expiresAt: row.expiresAt } }, now);
      });
      const how = scheme === "eip191" ? "personal_sign (EIP-191), e.g. MetaMask or a hardware wallet's \"Sign message\"" : "the wallet's \"Sign message\" (BIP-137; Bitcoin Core signmessage, Electrum, Sparrow)";
      return print(
        { id: row.id, walletId: w.id, address: w.address, network: w.network, scheme, message: row.message, expiresAt: row.expiresAt },
        [
          `Challenge ${row.id} for wallet ${w.id} (${w.network}), single use, expires ${row.expiresAt}.`,
          `Sign exactly the text between the lines with ${how}:`,
          "-----",
          row.message,
          "-----",
          `Then: wallets prove --id ${w.id} --signature <signature>`,
        ].join("\n"),
      );
    }
    case "prove": {
      const w = await wallet(id);
      const { actor, member } = await actorFor(w, false);
      const signature = need(v, "signature");
      const challengeId = typeof v.challenge === "string" ? v.challenge : null;
      // The signature check runs outside the write lock; the challenge is checked again inside it.
      const plan = await proofs.planSignedProof(w, { signature, challengeId, expiresAt: expiry(), recordedBy: member?.id ?? null }, now);
      if (!plan.ok) throw new TenancyError(plan.reason);
      const proof = plan.value;
      const next = await record(w, actor, proof, async () => {
        if (!(await proofs.wallet(company.id, w.id))) throw new TenancyError(`wallet ${w.id} was deleted`);
        const c = await proofs.challenge(company.id, proof.challengeId!);
        if (c?.usedAt) throw new TenancyError(`challenge ${c.id} was already used (proof ${c.proofId} at ${c.usedAt}): a replayed challenge is refused`);
      });
      const signer = proof.evidence!.signer;
      return print({ proof: presentProof(proof, now), wallet: presentWallet(w, next) }, `Wallet ${w.id}: ownership proven by a ${proof.type} signature of ${signer} (proof ${proof.id}); ${verdict(next)}`);
    }
    case "attest": {
      const w = await wallet(id);
      const note = need(v, "note");
      const { actor, member } = await actorFor(w, true);
      const expiresAt = expiry();
      const sealer = pii();
      const proof = await proofs.planAttestation(w, { noteSealed: (pid) => sealer.seal(note, noteAad(pid)), expiresAt, recordedBy: member!.id }, now);
      const next = await record(w, actor, proof, async () => {
        if (!(await proofs.wallet(company.id, w.id))) throw new TenancyError(`wallet ${w.id} was deleted`);
      });
      return print(
        { proof: presentProof(proof, now, note), wallet: presentWallet(w, next) },
        `Wallet ${w.id}: attestation ${proof.id} recorded by ${member!.email}${expiresAt ? `, expires ${expiresAt}` : ""}; ${verdict(next)}`,
      );
    }
    case "proofs": {
      const w = await wallet(id);
      const all = await proofs.ofWallet(w.id);
      const sealer = all.some((p) => p.noteSealed !== null) ? pii() : null;
      const items = all.map((p) => presentProof(p, now, p.noteSealed === null ? null : sealer!.open(p.noteSealed, noteAad(p.id))));
      const state = deriveVerification(all, now);
      if (v.json) return out(JSON.stringify({ wallet: presentWallet(w, state), proofs: items }));
      out(`Wallet ${w.id} ${w.address} (${w.network}, ${w.environment}): ${verdict(state)}`);
      for (const p of items)
        out(`${p.id}  ${p.type}  ${p.status}  recorded ${p.recordedAt}${p.recordedBy ? ` by ${p.recordedBy}` : ""}${p.expiresAt ? `  expires ${p.expiresAt}` : ""}${p.signer ? `  signer ${p.signer}` : ""}${p.note ? `  note: ${p.note}` : ""}`);
      if (items.length === 0) out("no proofs");
      return;
    }
    case "revoke-proof": {
      const plan = await proofs.planRevocation(company.id, id, now);
      if (!plan.ok) throw new TenancyError(plan.reason);
      const w = await wallet(plan.value.walletId);
      const { actor, member } = await actorFor(w, false);
      const by = member?.id ?? null;
      const next = await storage.transaction(async () => {
        // Checked again under the write lock: a concurrent revocation or expiry wins once.
        const again = await proofs.planRevocation(company.id, id, now);
        if (!again.ok) throw new TenancyError(again.reason);
        const after = await proofs.revoke(id, w.id, by, now);
        await auditChange(audit, w, actor, after, now, "wallet.proof_revoked", { proofId: id, type: plan.value.type, verified: after.verified });
        return after;
      });
      const revoked = { ...plan.value, status: "revoked" as const, revokedAt: iso(now), revokedBy: by };
      return print({ proof: presentProof(revoked, now), wallet: presentWallet(w, next) }, `Proof ${id} revoked; wallet ${w.id} is ${verdict(next)}`);
    }
  }
}

/** The change's entry, after one per proof the same refresh found expired: every flip of `verified` is audited. */
async function auditChange(audit: AuditRepository, w: Wallet, actor: AuditActor, v: Verification, now: number, action: string, detail: Record<string, unknown>): Promise<void> {
  const base = { companyId: w.companyId, environment: w.environment, entityType: "Wallet", entityId: w.id };
  for (const proofId of v.expire) await audit.record({ ...base, actor: { type: "system" }, action: "wallet.proof_expired", detail: { proofId, verified: v.verified } }, now);
  await audit.record({ ...base, actor, action, detail }, now);
}
