// CLI for what the spec keeps in the dashboard: companies, members, API keys. Works beside a running server.
import { parseArgs } from "node:util";
import process from "node:process";
import { CLI_ACTOR, TenancyError, type ApiKey, type Company, type Member } from "../ports/tenancy.ts";
import { keySecret } from "../domain/members/tenancy.ts";
import { loadMasterKey } from "../adapters/crypto/master-key.ts";
import { isEnvironment } from "../domain/types.ts";
import { hashKey } from "../domain/keys.ts";
import { canonicalSetupCode, formatSetupCode, SETUP_CODE_TTL_MS } from "../domain/members/sign-in.ts";
import { UsageError, parseOptions, need } from "./usage.ts";
import type { CompanyProfile, ProfileChange } from "../domain/thresholds.ts";
import type { CliContext } from "./context.ts";

type Out = (line: string) => void;

function args(argv: string[], options: Record<string, { type: "string" | "boolean" }>) {
  return parseOptions(argv, options) as Record<string, string | boolean | undefined>;
}


const presentKey = (k: ApiKey) => ({
  id: k.id,
  hint: k.hint,
  environment: k.environment,
  memberId: k.memberId,
  scopes: [...k.scopes],
  createdAt: k.createdAt,
  revokedAt: k.revokedAt,
  expiresAt: k.expiresAt,
  lastUsedAt: k.lastUsedAt,
});

/** `--expires 2027-01-01T00:00:00Z` or `--expires 90d` (days from now). */
function expiryOf(text: string, now: number): number {
  const days = /^(\d{1,4})d$/.exec(text);
  const at = days ? now + Number(days[1]) * 86_400_000 : Date.parse(text);
  if (Number.isNaN(at) || !/^(\d{1,4}d|\d{4}-\d\d-\d\dT.+)$/.test(text)) throw new UsageError(`--expires "${text}" must be an ISO 8601 instant or a number of days such as 90d`);
  if (at <= now) throw new UsageError("--expires must be in the future");
  return at;
}
const presentMember = (m: Member) => ({ id: m.id, email: m.email, role: m.role, status: m.status, signInReady: m.passphraseHash !== null && m.totpConfirmedAt !== null, createdAt: m.createdAt });
const presentCompany = (c: Company) => ({
  id: c.id,
  slug: c.slug,
  name: c.name,
  status: c.status,
  disabledFeatures: [...c.disabledFeatures],
  createdAt: c.createdAt,
});

function print(out: Out, json: boolean, value: unknown, human: string): void {
  out(json ? JSON.stringify(value) : human);
}

/**
 * A change, by the tenancy actor (src/actors/tenancy.ts) through the CLI's one entry to the runtime, as the server's
 * routes make it: a refusal is the one line the CLI prints.
 */
function changer(cli: CliContext, clock: () => number) {
  const runtime = cli.runtime({ clock, repositories: cli.repositories(clock), masterKey: () => loadMasterKey(cli.path, process.env) });
  return async <T>(msg: Parameters<typeof runtime.tenancyCommand>[0]): Promise<T> => {
    const o = await runtime.tenancyCommand<T>(msg);
    if (!o.ok) throw new TenancyError(o.message ?? o.code);
    return o.data;
  };
}

export async function runKeys(cli: CliContext, argv: string[], out: Out, clock: () => number = Date.now): Promise<void> {
  const [sub, ...rest] = argv;
  const t = cli.repositories(clock).tenancy;
  switch (sub) {
    case "create": {
      const v = args(rest, { env: { type: "string" }, role: { type: "string" }, scopes: { type: "string" }, member: { type: "string" }, expires: { type: "string" } });
      const env = need(v, "env");
      if (!isEnvironment(env)) throw new UsageError("--env must be test or live");
      const company = await t.requireCompany((v.company as string) ?? "default");
      // A key acts for a member, and a member is a person made on purpose (members create), never a key's side effect.
      if (typeof v.member !== "string")
        throw new UsageError("keys create needs --member <email> of an existing member (make one first: members create --email <email> --role <role>)");
      const member = await t.memberByEmail(company.id, v.member);
      if (!member) throw new TenancyError(`no member with email ${v.member} (make one first: members create --email ${v.member} --role <role>)`);
      if (typeof v.role === "string" && v.role !== member.role) throw new TenancyError(`member ${member.email} has role ${member.role}, not ${v.role}`);
      const scopes = typeof v.scopes === "string" ? v.scopes.split(",").map((s) => s.trim()).filter(Boolean) : undefined;
      const expiresAt = typeof v.expires === "string" ? expiryOf(v.expires, clock()) : null;
      const { key, keyHash, hint } = keySecret(env, crypto.getRandomValues(new Uint8Array(32)));
      const apiKey = await changer(cli, clock)<ApiKey>({ type: "key.create", companyId: company.id, by: CLI_ACTOR, issuedByMember: true, memberId: member.id, environment: env, scopes, expiresAt, keyHash, hint });
      const result = { ...presentKey(apiKey), key, role: member.role, memberEmail: member.email, company: company.slug };
      if (!v.json) out(`Created ${env} key ${apiKey.id} for ${member.email} (${member.role})${apiKey.expiresAt ? `, expiring ${apiKey.expiresAt}` : ""}. It is shown once; store it now:`);
      out(v.json ? JSON.stringify(result) : key);
      return;
    }
    case "list": {
      const v = args(rest, {});
      const company = await t.requireCompany((v.company as string) ?? "default");
      const keys = (await t.listKeys(company.id)).map(presentKey);
      const now = clock();
      const state = (k: ReturnType<typeof presentKey>) =>
        k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt && Date.parse(k.expiresAt) <= now ? `expired ${k.expiresAt}` : k.expiresAt ? `active until ${k.expiresAt}` : "active";
      print(out, !!v.json, keys, keys.map((k) => `${k.id}  ${k.environment}  ${k.hint}  ${state(k)}  ${k.memberId}  last used ${k.lastUsedAt ?? "never"}`).join("\n") || "no keys");
      return;
    }
    case "revoke": {
      const v = args(rest, { id: { type: "string" } });
      const company = await t.requireCompany((v.company as string) ?? "default");
      const k = await changer(cli, clock)<ApiKey>({ type: "key.revoke", companyId: company.id, by: CLI_ACTOR, id: need(v, "id") });
      print(out, !!v.json, presentKey(k), `Revoked ${k.id}`);
      return;
    }
    default:
      throw new UsageError("usage: keys create --env test|live --member <email> [--role <role>] [--scopes a:read,b:write] [--expires <ISO instant>|<N>d] [--company <slug>] [--json] | keys list | keys revoke --id <id>");
  }
}

export async function runMembers(cli: CliContext, argv: string[], out: Out, clock: () => number = Date.now): Promise<void> {
  const [sub, ...rest] = argv;
  const t = cli.repositories(clock).tenancy;
  switch (sub) {
    case "create": {
      const v = args(rest, { email: { type: "string" }, role: { type: "string" } });
      const company = await t.requireCompany((v.company as string) ?? "default");
      const m = await changer(cli, clock)<Member>({ type: "member.create", companyId: company.id, by: CLI_ACTOR, email: need(v, "email"), role: need(v, "role") });
      print(out, !!v.json, presentMember(m), `Created member ${m.email} (${m.role}) ${m.id}`);
      return;
    }
    case "list": {
      const v = args(rest, {});
      const company = await t.requireCompany((v.company as string) ?? "default");
      const ms = (await t.listMembers(company.id)).map(presentMember);
      print(out, !!v.json, ms, ms.map((m) => `${m.id}  ${m.email}  ${m.role}  ${m.status}`).join("\n") || "no members");
      return;
    }
    case "disable":
    case "enable": {
      const v = args(rest, { email: { type: "string" } });
      const company = await t.requireCompany((v.company as string) ?? "default");
      const m = await changer(cli, clock)<Member>({ type: "member.status", companyId: company.id, by: CLI_ACTOR, email: need(v, "email"), status: sub === "disable" ? "disabled" : "active" });
      print(out, !!v.json, presentMember(m), `Member ${m.email} is ${m.status}`);
      return;
    }
    case "setup": {
      // The way in when nobody can sign in (the first owner, a lost second factor): a one-time code printed here, on
      // the host; it replaces the member's passphrase and second factor and ends their sessions.
      const v = args(rest, { email: { type: "string" } });
      const company = await t.requireCompany((v.company as string) ?? "default");
      const code = formatSetupCode(crypto.getRandomValues(new Uint8Array(16)));
      const expiresAt = clock() + SETUP_CODE_TTL_MS;
      const m = await changer(cli, clock)<Member>({ type: "member.setup", companyId: company.id, by: CLI_ACTOR, email: need(v, "email"), codeHash: hashKey(canonicalSetupCode(code)), expiresAt });
      const result = { ...presentMember(m), setupCode: code, setupCodeExpiresAt: new Date(expiresAt).toISOString() };
      if (!v.json) out(`Setup code for ${m.email} (${m.role}), valid until ${result.setupCodeExpiresAt}; shown once. Their passphrase and second factor are cleared and their sessions ended. Give them the code and sign in to the console with it:`);
      out(v.json ? JSON.stringify(result) : code);
      return;
    }
    case "sign-out": {
      const v = args(rest, { email: { type: "string" } });
      const company = await t.requireCompany((v.company as string) ?? "default");
      const n = (await changer(cli, clock)<{ sessionsEnded: number }>({ type: "member.sign_out", companyId: company.id, by: CLI_ACTOR, email: need(v, "email") })).sessionsEnded;
      print(out, !!v.json, { email: v.email, sessionsEnded: n }, `Ended ${n} session${n === 1 ? "" : "s"} of ${v.email}`);
      return;
    }
    case "role": {
      const v = args(rest, { email: { type: "string" }, role: { type: "string" } });
      const company = await t.requireCompany((v.company as string) ?? "default");
      const m = await changer(cli, clock)<Member>({ type: "member.role", companyId: company.id, by: CLI_ACTOR, email: need(v, "email"), role: need(v, "role") });
      print(out, !!v.json, presentMember(m), `Member ${m.email} now has role ${m.role}`);
      return;
    }
    default:
      throw new UsageError("usage: members create --email <email> --role <role> | members list | members setup --email <email> | members sign-out --email <email> | members disable|enable --email <email> | members role --email <email> --role <role>  [--company <slug>] [--json]");
  }
}

export async function runCompanies(cli: CliContext, argv: string[], out: Out, clock: () => number = Date.now): Promise<void> {
  const [sub, ...rest] = argv;
  const repositories = cli.repositories(clock);
  const t = repositories.tenancy;
  switch (sub) {
    case "create": {
      const v = args(rest, { slug: { type: "string" }, name: { type: "string" } });
      const c = await changer(cli, clock)<Company>({ type: "company.create", slug: need(v, "slug"), name: v.name as string | undefined });
      print(out, !!v.json, presentCompany(c), `Created company ${c.slug} (${c.id})`);
      return;
    }
    case "list": {
      const v = args(rest, {});
      const cs = (await t.listCompanies()).map(presentCompany);
      print(out, !!v.json, cs, cs.map((c) => `${c.id}  ${c.slug}  ${c.status}`).join("\n"));
      return;
    }
    case "suspend":
    case "reactivate": {
      const v = args(rest, { slug: { type: "string" } });
      const c = await changer(cli, clock)<Company>({ type: "company.status", slug: need(v, "slug"), status: sub === "suspend" ? "suspended" : "active" });
      print(out, !!v.json, presentCompany(c), `Company ${c.slug} is ${c.status}`);
      return;
    }
    case "feature": {
      const v = args(rest, { slug: { type: "string" }, enable: { type: "string" }, disable: { type: "string" } });
      const slug = need(v, "slug");
      if ((typeof v.enable === "string") === (typeof v.disable === "string")) throw new UsageError("give one of --enable <feature> or --disable <feature>");
      const c = await changer(cli, clock)<Company>({ type: "company.feature", slug, feature: typeof v.enable === "string" ? v.enable : (v.disable as string), enabled: typeof v.enable === "string" });
      print(out, !!v.json, presentCompany(c), `Company ${c.slug}: features off: ${c.disabledFeatures.join(", ") || "none"}`);
      return;
    }
    case "profile": {
      // The company's own identity (legal name, country, identifiers): its country decides which threshold applies (README).
      let v: Record<string, string | boolean | string[] | undefined>;
      try {
        v = parseArgs({
          args: rest,
          options: { slug: { type: "string" }, "legal-name": { type: "string" }, country: { type: "string" }, lei: { type: "string" }, identifier: { type: "string", multiple: true }, json: { type: "boolean" } },
          strict: true,
          allowPositionals: false,
        }).values;
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      const c = await t.requireCompany(need(v as Record<string, string | undefined>, "slug"));
      const change: ProfileChange = {};
      if (typeof v["legal-name"] === "string") change.legalName = v["legal-name"];
      if (typeof v.country === "string") change.country = v.country;
      const ids = [...(typeof v.lei === "string" ? [`LEI:${v.lei}`] : []), ...((v.identifier as string[] | undefined) ?? [])].map((s) => {
        const i = s.indexOf(":");
        if (i <= 0) throw new UsageError(`--identifier "${s}" must be <type>:<value> (an empty value removes the type)`);
        return { type: s.slice(0, i), value: s.slice(i + 1) };
      });
      if (ids.length) change.identifiers = ids;
      const changing = Object.keys(change).length > 0;
      let profile: CompanyProfile;
      if (changing) {
        const set = await repositories.thresholds.setProfile(c.id, change, clock());
        if (!set.ok) throw new TenancyError(set.errors.join("; "));
        profile = set.profile;
      } else profile = (await repositories.thresholds.profile(c.id)) ?? { legalName: null, country: null, identifiers: [] };
      const human = [
        `Company ${c.slug}${changing ? " profile updated" : ""}`,
        `  legal name:  ${profile.legalName ?? "(not set)"}`,
        `  country:     ${profile.country ?? "(not set)"}`,
        `  identifiers: ${profile.identifiers.map((x) => `${x.type}:${x.value}`).join(", ") || "(none)"}`,
      ].join("\n");
      print(out, !!v.json, profile, human);
      return;
    }
    default:
      throw new UsageError("usage: companies create --slug <slug> [--name <name>] | companies list | companies suspend|reactivate --slug <slug> | companies feature --slug <slug> --enable|--disable <feature> | companies profile --slug <slug> [--legal-name <name>] [--country <CC>] [--lei <LEI>] [--identifier <type:value> ...]  [--json]");
  }
}
