// Why the console does not offer an action: the key's scope (what the key was issued for) or the member's role (what
// the role may do), named as the one that is missing. Used for hints and refusals, so the reason is the true one.
import type { Me } from "./api.ts";

/** Null when the key and the role both allow it (or /me is unknown: the API decides); else the true reason. */
export function whyNot(me: Me | null, scope: string, permission?: string): string | null {
  if (!me) return null;
  const key = me.key.scopes.includes(scope);
  const role = !permission || me.permissions.includes(permission);
  if (key && role) return null;
  if (!key && !role) return `the key lacks ${scope} and the role ${me.member.role} lacks ${permission}`;
  if (!key) return `the key lacks ${scope} (the role ${me.member.role} would allow it)`;
  return `the role ${me.member.role} lacks ${permission} (the key's scope allows it)`;
}
