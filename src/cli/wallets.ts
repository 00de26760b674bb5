// CLI for wallet ownership proofs (the dashboard's part): challenges, signed proofs, attestations, revocations.
import process from "node:process";
import { TenancyError, type Member, type TenancyRepository } from "../ports/tenancy.ts";
import type { AuditActor } from "../ports/audit.ts";
import type { CliContext } from "./context.ts";
import type { CliCustomerCommand, CliCustomerMsg } from "./runtime.ts";
import { noteAad, type WalletChallenge, type WalletProof } from "../ports/proofs.ts";
import type { Wallet } from "../ports/wallets.ts";
import { loadMasterKey, type MasterKey } from "../adapters/crypto/master-key.ts";
import { Sealer } from "../adapters/crypto/envelope.ts";
import { iso } from "../domain/ids.ts";
import { decideRevocation, deriveVerification, effectiveStatus, parseExpiry, type SignedScheme, type Verification } from "../domain/proofs/index.ts";
import type { Outcome } from "../actors/outcome.ts";
import { UsageError, actingMember, parseOptions, need as required } from "./usage.ts";

type Out = (line: string) => void;
type Values = Record<string, string | boolean | undefined>;

export interface WalletCliDeps {
  clock?: () => number;
  /** The database's master key (its personal-data subkey seals and opens attestation notes); by default the one beside the database. */
  masterKey?: () => MasterKey;
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

/** What the customer actor answers a recorded or revoked proof (src/actors/customer.ts). */
type ProofChange = { proof: WalletProof; wallet: Wallet };

export async function runWallets(cli: CliContext, argv: string[], out: Out, deps: WalletCliDeps = {}): Promise<void> {
  const [sub, ...rest] = argv;
  if (!sub || !(sub in OPTIONS)) throw new UsageError(USAGE);
  const v = args(sub as keyof typeof OPTIONS, rest);
  const clock = deps.clock ?? Date.now;
  let master: MasterKey | undefined;
  const masterKey = () => (master ??= (deps.masterKey ?? (() => loadMasterKey(cli.path, process.env)))());
  const pii = () => new Sealer(masterKey().derive("pii"));
  const repositories = cli.repositories(clock, { pii });
  const tenancy = repositories.tenancy;
  const company = await tenancy.requireCompany((v.company as string) ?? "default");
  const proofs = repositories.proofs;
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

  /**
   * A command to the wallet's customer actor through the CLI's entry to the runtime (src/cli/runtime.ts), the one
   * writer of the customer's wallets, as the API's commands are: the wallet is read again and the command checked
   * under the write lock (a wallet deleted meanwhile, a challenge spent), and its rows and audit entries commit in one
   * transaction beside a running server. A refusal is the CLI's one-line error.
   */
  const runtime = cli.runtime({ clock, repositories, masterKey });
  const command = async <T>(w: Wallet, actor: AuditActor, msg: CliCustomerCommand): Promise<T> => {
    const o: Outcome<T> = await runtime.customerCommand<T>(w.customerId, { ...msg, companyId: company.id, environment: w.environment, actor } as CliCustomerMsg);
    if (o.ok) return o.data;
    // The actor's refusals in the CLI's words: a wallet or proof gone since it was read, else the check's own reason.
    if (o.code === "WALLET_NOT_FOUND") throw new TenancyError(`wallet ${w.id} was deleted`);
    if (o.code === "NOT_FOUND" && msg.type === "revokeWalletProof") throw new TenancyError(`no proof with id ${msg.proofId}`);
    throw new TenancyError(o.message ?? o.code);
  };

  switch (sub) {
    case "challenge": {
      const w = await wallet(id);
      const { actor } = await actorFor(w, false);
      const { challenge: row, scheme } = await command<{ challenge: WalletChallenge; scheme: SignedScheme }>(w, actor, { type: "issueWalletChallenge", walletId: w.id });
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
      const { actor } = await actorFor(w, false);
      const signature = need(v, "signature");
      const challengeId = typeof v.challenge === "string" ? v.challenge : null;
      const { proof, wallet: next } = await command<ProofChange>(w, actor, { type: "proveWallet", walletId: w.id, signature, challengeId, expiresAt: expiry() });
      const signer = proof.evidence!.signer;
      return print({ proof: presentProof(proof, now), wallet: presentWallet(w, next) }, `Wallet ${w.id}: ownership proven by a ${proof.type} signature of ${signer} (proof ${proof.id}); ${verdict(next)}`);
    }
    case "attest": {
      const w = await wallet(id);
      const note = need(v, "note");
      const { actor, member } = await actorFor(w, true);
      const expiresAt = expiry();
      const { proof, wallet: next } = await command<ProofChange>(w, actor, { type: "attestWallet", walletId: w.id, note, expiresAt });
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
      const plan = decideRevocation(await proofs.get(company.id, id), id, now);
      if (!plan.ok) throw new TenancyError(plan.reason);
      const w = await wallet(plan.value.walletId);
      const { actor } = await actorFor(w, false);
      // The actor checks again under the write lock: a concurrent revocation or expiry wins once.
      const { proof: revoked, wallet: next } = await command<ProofChange>(w, actor, { type: "revokeWalletProof", proofId: id });
      return print({ proof: presentProof(revoked, now), wallet: presentWallet(w, next) }, `Proof ${id} revoked; wallet ${w.id} is ${verdict(next)}`);
    }
  }
}
