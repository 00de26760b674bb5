// A customer's Travel Rule identity: the sealing context it is stored under, and the one reading of "an active
// customer with a verified identity, its persons unsealed" that every provider's checks use.
import type { Person } from "./ivms101/index.ts";

/** Opens a sealed value under its context (the service's PII sealer). */
export type Unseal = (sealed: string, context: string) => string;

/** The associated data a customer's identity persons are sealed under (one spelling, sealed and opened alike). */
export function identityContext(customerId: string): string {
  return `customer:${customerId}:identity`;
}

/** The fields of a customer record the identity read needs. */
export interface IdentityHolder {
  id: string;
  status: string;
  identityStatus: string | null;
  identitySealed: string | null;
}

/** Active, identity verified, and persons stored: a customer a provider may present as a Travel Rule party. */
export function hasVerifiedIdentity<C extends IdentityHolder>(c: C | null | undefined): c is C & { identitySealed: string } {
  return !!c && c.status === "active" && c.identityStatus === "verified" && !!c.identitySealed;
}

/** The customer's stored persons, unsealed (whatever the identity's status). */
export function openIdentity(c: { id: string; identitySealed: string }, open: Unseal): Person[] {
  return JSON.parse(open(c.identitySealed, identityContext(c.id))) as Person[];
}

/** The customer's verified identity, or null when inactive, unverified, blocked, without persons or gone. */
export function verifiedIdentity(c: IdentityHolder | null | undefined, open: Unseal): Person[] | null {
  return hasVerifiedIdentity(c) ? openIdentity(c, open) : null;
}
