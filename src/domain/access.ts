// Scopes a key holds, permissions a role grants, and which environments a role may use (Part 1, Authentication).
import type { Environment } from "./types.ts";

/** Resources with `<resource>:read|write` scopes. */
export const SCOPE_RESOURCES = [
  "customers",
  "wallets",
  "transfers",
  "vasps",
  "assets",
  "cases",
  "reports",
  "rules",
  "thresholds",
  "webhooks",
  "providers",
  "integrations",
  "audit",
] as const;

export const EXTRA_SCOPES = ["customers:erase", "wallets:verify", "strs:read", "strs:write"] as const;

export const ALL_SCOPES: readonly string[] = [
  ...SCOPE_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`]),
  ...EXTRA_SCOPES,
];

export type Scope = string;

export function isScope(s: string): boolean {
  return ALL_SCOPES.includes(s);
}

/** Role permissions: finer than scopes (Part 2 names `webhooks:create`, `providers:test`, `thresholds:disable`, ...). */
const VIEW = SCOPE_RESOURCES.map((r) => `${r}:view`);
const PERMISSIONS = [
  ...VIEW,
  "pii:view",
  "customers:create",
  "customers:update",
  "customers:erase",
  "wallets:create",
  "wallets:update",
  "wallets:delete",
  "wallets:verify",
  "transfers:create",
  "transfers:update",
  "cases:create",
  "cases:update",
  "cases:assign",
  "cases:resolve",
  "reports:create",
  "reports:update",
  "strs:view",
  "strs:update",
  "rules:create",
  "rules:update",
  "thresholds:create",
  "thresholds:update",
  "thresholds:disable",
  "webhooks:create",
  "webhooks:update",
  "webhooks:test",
  "providers:create",
  "providers:update",
  "providers:test",
  "integrations:create",
  "integrations:update",
  "integrations:test",
  // The dashboard's own powers (Part 1: "managed in the dashboard only"), through a member's console session.
  "keys:manage",
  "members:manage",
  // An operator's power over the actors' dead letters (docs/operations.md, "Dead letters"): put one back to be run again.
  "dead-letters:replay",
] as const;

export type Permission = (typeof PERMISSIONS)[number];
export const ALL_PERMISSIONS: readonly Permission[] = PERMISSIONS;

export const ROLES = ["owner", "compliance_officer", "analyst", "developer"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(s: string): s is Role {
  return (ROLES as readonly string[]).includes(s);
}

interface RoleDefinition {
  environments: readonly Environment[];
  permissions: ReadonlySet<Permission>;
  description: string;
}

const except = (...drop: Permission[]) => new Set(ALL_PERMISSIONS.filter((p) => !drop.includes(p)));

export const ROLE_DEFINITIONS: Record<Role, RoleDefinition> = {
  owner: {
    environments: ["test", "live"],
    permissions: new Set(ALL_PERMISSIONS),
    description: "Everything, both environments; the only role that manages API keys and members and replays dead letters.",
  },
  compliance_officer: {
    environments: ["test", "live"],
    // Runs compliance: customers, transfers, cases, reports, rules, thresholds, personal data.
    // Connection credentials and webhook endpoints are engineering's.
    permissions: except(
      "providers:create",
      "providers:update",
      "providers:test",
      "integrations:create",
      "integrations:update",
      "integrations:test",
      "webhooks:create",
      "webhooks:update",
      "webhooks:test",
      "keys:manage",
      "members:manage",
      "dead-letters:replay",
    ),
    description: "All compliance work including pii:view, erasure and suspicion reports; views but does not change provider, integration and webhook settings. Both environments.",
  },
  analyst: {
    environments: ["test", "live"],
    permissions: new Set(VIEW as Permission[]),
    description: "Reads everything except personal data (masked) and suspicion reports. Both environments.",
  },
  developer: {
    environments: ["test"],
    // The audit log tells who did what in the company: not for the integration's builders.
    permissions: new Set<Permission>([
      ...(VIEW as Permission[]).filter((p) => p !== "audit:view"),
      "customers:create",
      "customers:update",
      "wallets:create",
      "wallets:update",
      "wallets:delete",
      "transfers:create",
      "transfers:update",
      "webhooks:create",
      "webhooks:update",
      "webhooks:test",
      "providers:create",
      "providers:update",
      "providers:test",
      "integrations:create",
      "integrations:update",
      "integrations:test",
    ]),
    description: "Builds the integration in the test environment: customers, wallets, transfers, webhooks, provider and integration settings; no personal data, no erasure, no suspicion reports, no audit log. Test environment only.",
  },
};

export function roleAllowsEnvironment(role: Role, env: Environment): boolean {
  return ROLE_DEFINITIONS[role].environments.includes(env);
}

export function roleHas(role: Role, permission: Permission): boolean {
  return ROLE_DEFINITIONS[role].permissions.has(permission);
}
