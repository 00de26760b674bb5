// provider_e rules without I/O (Part 3 "provider_e transfers"): the beneficiary group, expiry windows, the permission
// callback token, the reading of the provider's status. Time is passed in.
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Person } from "../ivms101/index.ts";
import { constantTimeEqual } from "../keys.ts";
import { samePerson } from "../provider_b/names.ts";

export const MAX_BENEFICIARY_PERSONS = 20;
/** Part 3: `expiresAt` at least three minutes away; the provider's `expire_date` at least 3 minutes ahead. */
export const MIN_EXPIRY_MS = 3 * 60_000;
/** Part 3, incoming: a request dated more than five minutes ahead is refused; without any expiry, 30 days after it. */
export const FUTURE_SKEW_MS = 5 * 60_000;
export const DEFAULT_INCOMING_EXPIRY_MS = 30 * 24 * 3600_000;
/** Part 3, discovery: directory dated within five minutes; eight candidates at a time for up to 20 seconds; 500. */
export const DIRECTORY_MAX_AGE_MS = 5 * 60_000;
export const DISCOVERY_PARALLEL = 8;
export const DISCOVERY_BUDGET_MS = 20_000;
export const MAX_CANDIDATES = 500;

/** One natural person, or a legal person followed only by natural persons; at most 20 (BENEFICIARY_IDENTITY_REQUIRED). */
export function beneficiaryGroupOk(persons: Person[]): boolean {
  if (persons.length < 1 || persons.length > MAX_BENEFICIARY_PERSONS) return false;
  if (persons[0].naturalPerson) return persons.length === 1;
  return persons.slice(1).every((p) => p.naturalPerson !== undefined);
}

/** The token of the permission callback URL: HMAC-SHA256 of our transfer ID under a key derived from `privateKey`. */
export function permissionToken(privateKeyHex: string, transferId: string): string {
  const key = sha256(new TextEncoder().encode(`caravan:provider_e:permission:${privateKeyHex.toLowerCase()}`));
  return bytesToHex(hmac(sha256, key, new TextEncoder().encode(transferId))).slice(0, 40);
}

export function tokenMatches(privateKeyHex: string, transferId: string, token: string): boolean {
  return constantTimeEqual(token, permissionToken(privateKeyHex, transferId));
}

/** Incoming expiry (Part 3): the request's, else the provider's, else 30 days after the request date; null = TRANSFER_EXPIRED. */
export function incomingExpiry(requestExpire: number | undefined, providerExpire: number | undefined, dataDt: number, now: number): number | null {
  if (dataDt > now + FUTURE_SKEW_MS) return null;
  const at = requestExpire ?? providerExpire ?? dataDt + DEFAULT_INCOMING_EXPIRY_MS;
  return at <= now ? null : at;
}

/**
 * Part 3, incoming: the originator-sent beneficiary persons must match the identity (type and name, ignoring case,
 * spaces and punctuation); a single legal person is matched with the identity's first person. A name is compared as
 * provider_b's matching does (`samePerson`: folded, given and family names in either order, local names included).
 */
export function beneficiaryNamesMatch(sent: Person[], identity: Person[]): boolean {
  if (sent.length === 0 || identity.length === 0) return false;
  if (sent.length === 1 && sent[0].legalPerson) return samePerson(sent[0], identity[0]);
  return sent.every((s) => identity.some((i) => samePerson(s, i)));
}

/**
 * What an incoming transfer was screened as (Part 3, held incoming decisions: accept is refused when the transfer no
 * longer matches what was screened): a digest of its amount, asset, addresses, customer and both sides' persons.
 */
export function screenedFingerprint(t: { amount: string; asset: string; network: string; originatorAddress: string | null; beneficiaryAddress: string; beneficiaryCustomerId: string | null; expiresAt: string | null }, originator: Person[], beneficiary: Person[]): string {
  const text = JSON.stringify([t.amount, t.asset, t.network, t.originatorAddress, t.beneficiaryAddress, t.beneficiaryCustomerId, t.expiresAt, originator, beneficiary]);
  return bytesToHex(sha256(new TextEncoder().encode(text)));
}
