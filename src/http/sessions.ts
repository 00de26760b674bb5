// Members sign in to the console (docs/api.md, "Keys and sessions"): setting up a passphrase and a TOTP second factor
// with a one-time setup code, signing in, the current session and signing out. Wrong credentials get one answer
// whether or not the member exists, after the same work, and a pause that grows per member and per source.
import { apiError } from "../domain/errors.ts";
import { hashKey } from "../domain/keys.ts";
import { roleAllowsEnvironment } from "../domain/access.ts";
import { base32Encode, otpauthUri, TOTP_DEFAULTS, verifyTotp } from "../domain/members/totp.ts";
import { canonicalSetupCode, FREE_FAILURES, formatSessionToken, sessionExpiry, SignInThrottle } from "../domain/members/sign-in.ts";
import { constantTimeEqual } from "../domain/keys.ts";
import type { Environment } from "../domain/types.ts";
import { decoyHash, hashPassphrase, verifyPassphrase } from "../adapters/crypto/passphrase.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { Company, Member, TenancyRepository } from "../ports/tenancy.ts";
import { Buffer } from "node:buffer";
import * as api from "../api/team.ts";
import { created, ok, type ApiKit, type PublicContext } from "./kit.ts";

export interface SessionRouteDeps {
  tenancy: TenancyRepository;
  /** Seals the TOTP secrets (the master key's `secrets` subkey, as provider credentials). */
  secrets: Sealer;
  config: { readonly env?: Record<string, string | undefined> };
}

const ISSUER = "Caravan";
const totpAad = (memberId: string) => `member-totp:${memberId}`;
const failed = () => apiError("SIGN_IN_FAILED");

/** The sign-in checks, with the throttle that remembers failures (in this process; a restart forgets them). */
export class SignIn {
  readonly throttle: SignInThrottle;
  constructor(
    private readonly tenancy: TenancyRepository,
    private readonly secrets: Sealer,
    sourceOf: (req: Request) => string | null,
    pauseBaseMs: number,
  ) {
    this.throttle = new SignInThrottle(pauseBaseMs);
    this.sourceOf = sourceOf;
  }
  readonly sourceOf: (req: Request) => string | null;

  private subjects(company: Company, email: string, source: string | null): string[] {
    return [`member:${company.id}:${email.trim().toLowerCase()}`, `source:${source ?? "unknown"}`];
  }

  private async fail(subjects: string[], now: number, audit?: { company: Company; member: Member | undefined; environment: Environment; source: string | null; step: "sign_in" | "setup" }): Promise<never> {
    this.throttle.failed([{ key: subjects[0], free: FREE_FAILURES.member }, { key: subjects[1], free: FREE_FAILURES.source }], now);
    if (audit?.member) await this.tenancy.recordSignInFailure(audit.company.id, audit.environment, audit.member.id, audit.source, audit.step, now);
    throw failed();
  }

  /** 429 while a pause runs: said the same way for every email, known or not. */
  private gate(subjects: string[], now: number): void {
    const wait = this.throttle.wait(subjects, now);
    if (wait > 0)
      throw apiError("RATE_LIMITED", { message: "Too many failed sign-in attempts: wait before trying again", headers: { "Retry-After": String(Math.ceil(wait / 1000)) } });
  }

  private secretOf(m: Member | undefined): Uint8Array {
    if (m?.totpSecretSealed) {
      try {
        return new Uint8Array(Buffer.from(this.secrets.open(m.totpSecretSealed, totpAad(m.id)), "base64"));
      } catch {
        /* unreadable: no code matches */
      }
    }
    return crypto.getRandomValues(new Uint8Array(20));
  }

  /** The setup code matches and has not expired (compared in constant time; a decoy when there is none). */
  private setupCodeOk(m: Member | undefined, code: string, now: number): boolean {
    const given = hashKey(canonicalSetupCode(code));
    const stored = m?.setupCodeHash ?? hashKey("no setup code");
    const same = constantTimeEqual(stored, given);
    return !!m && m.status === "active" && m.setupCodeHash !== null && same && m.setupCodeExpiresAt !== null && Date.parse(m.setupCodeExpiresAt) > now;
  }

  private async session(company: Company, m: Member, environment: Environment, source: string | null, now: number, action: "session.signed_in" | "session.set_up") {
    const token = formatSessionToken(crypto.getRandomValues(new Uint8Array(32)));
    const row = await this.tenancy.createSession({ companyId: company.id, member: m, environment, tokenHash: hashKey(token), source, expiresAt: sessionExpiry(now, now), action }, now);
    return {
      token,
      session: { id: row.id, environment: row.environment, expiresAt: row.expiresAt, createdAt: row.createdAt },
      member: { id: m.id, email: m.email, role: m.role },
    };
  }

  async setup(c: PublicContext<api.SetupStart>) {
    const source = this.sourceOf(c.request);
    const subjects = this.subjects(c.company, c.body.email, source);
    this.gate(subjects, c.now);
    const m = await this.tenancy.memberByEmail(c.company.id, c.body.email.trim());
    // The passphrase is hashed either way: the answer takes as long for an unknown email.
    const hash = await hashPassphrase(c.body.passphrase);
    if (!this.setupCodeOk(m, c.body.setupCode, c.now)) {
      await this.fail(subjects, c.now, { company: c.company, member: m, environment: "test", source, step: "setup" });
    }
    const secret = crypto.getRandomValues(new Uint8Array(20));
    await this.tenancy.setPendingCredentials(m!.id, hash, this.secrets.seal(Buffer.from(secret).toString("base64"), totpAad(m!.id)), c.now);
    return ok({ totpSecret: base32Encode(secret), otpauthUri: otpauthUri(ISSUER, m!.email, secret), digits: TOTP_DEFAULTS.digits, period: TOTP_DEFAULTS.period });
  }

  async confirm(c: PublicContext<api.SetupConfirm>) {
    const source = this.sourceOf(c.request);
    const subjects = this.subjects(c.company, c.body.email, source);
    this.gate(subjects, c.now);
    const m = await this.tenancy.memberByEmail(c.company.id, c.body.email.trim());
    const environment = c.body.environment ?? "test";
    const codeOk = this.setupCodeOk(m, c.body.setupCode, c.now);
    const step = verifyTotp(this.secretOf(m), c.body.code, c.now, m?.totpLastStep ?? null);
    const good = codeOk && m!.passphraseHash !== null && step !== null && roleAllowsEnvironment(m!.role, environment) && (await this.tenancy.useTotpStep(m!.id, step, c.now, true));
    if (!good) {
      await this.fail(subjects, c.now, { company: c.company, member: m, environment, source, step: "setup" });
    }
    this.throttle.succeeded(subjects);
    return created(await this.session(c.company, m!, environment, source, c.now, "session.set_up"));
  }

  async signIn(c: PublicContext<api.SignIn>) {
    const source = this.sourceOf(c.request);
    const subjects = this.subjects(c.company, c.body.email, source);
    this.gate(subjects, c.now);
    const m = await this.tenancy.memberByEmail(c.company.id, c.body.email.trim());
    const environment = c.body.environment ?? "test";
    // Both factors are always checked, against a decoy when there is no member or no passphrase: same work, same answer.
    const passOk = await verifyPassphrase(c.body.passphrase, m?.passphraseHash ?? (await decoyHash()));
    const step = verifyTotp(this.secretOf(m), c.body.code, c.now, m?.totpLastStep ?? null);
    const ready = !!m && m.status === "active" && m.passphraseHash !== null && m.totpConfirmedAt !== null;
    const good = ready && passOk && step !== null && roleAllowsEnvironment(m!.role, environment) && (await this.tenancy.useTotpStep(m!.id, step, c.now, false));
    if (!good) {
      await this.fail(subjects, c.now, { company: c.company, member: m, environment, source, step: "sign_in" });
    }
    this.throttle.succeeded(subjects);
    return created(await this.session(c.company, m!, environment, source, c.now, "session.signed_in"));
  }
}

export function sessionRoutes(kit: ApiKit, deps: SessionRouteDeps, sourceOf: (req: Request) => string | null) {
  const pause = Number(deps.config.env?.CARAVAN_SIGN_IN_PAUSE_MS ?? "1000");
  const signIn = new SignIn(deps.tenancy, deps.secrets, sourceOf, Number.isFinite(pause) && pause > 0 ? pause : 1000);
  const how = "none: email, passphrase and a TOTP code (setup: the one-time setup code)";
  return kit.group("/api/v2/sessions", (r) =>
    r
      .publicPost("/", { summary: "Sign in as a member (passphrase and TOTP code): a bearer session token, shown once", body: api.SignIn, tags: ["sessions"], authentication: how }, (c) => signIn.signIn(c))
      .publicPost("/setup", { summary: "Set up sign-in with the one-time setup code: the passphrase, and the TOTP secret for the authenticator app", body: api.SetupStart, tags: ["sessions"], authentication: how }, (c) =>
        signIn.setup(c),
      )
      .publicPost("/setup/confirm", { summary: "Confirm the second factor with a first code: signs in", body: api.SetupConfirm, tags: ["sessions"], authentication: how }, (c) => signIn.confirm(c))
      .get("/current", { summary: "The calling session: member, environment and expiry", access: { anyValidKey: true }, tags: ["sessions"] }, async (c) => {
        const s = c.auth.session;
        if (!s) throw apiError("OFFICER_SESSION_REQUIRED", { message: "This route describes a console session; an API key has none (GET /api/v2/me describes a key)" });
        const row = (await deps.tenancy.sessionById(s.id))!;
        return ok({
          session: { id: row.id, environment: row.environment, expiresAt: row.expiresAt, createdAt: row.createdAt },
          member: { id: c.auth.member.id, email: c.auth.member.email, role: c.auth.member.role },
        });
      })
      .delete("/current", { summary: "Sign out: the session ends at once", access: { anyValidKey: true }, tags: ["sessions"] }, async (c) => {
        const s = c.auth.session;
        if (!s) throw apiError("OFFICER_SESSION_REQUIRED", { message: "Signing out ends a console session; an API key is revoked instead" });
        await deps.tenancy.endSession(c.auth.company.id, c.auth.environment, { id: s.id, memberId: c.auth.member.id }, "signed_out", c.now);
        return ok({ id: s.id, ended: true });
      }),
  );
}
