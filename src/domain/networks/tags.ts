// Destination tags and memos: splitting "address?dt=…" and checking the value against the network's rules.
import type { Network } from "./supported.ts";

export type TagKey = "dt" | "memo" | "tag";

export type ParsedAddress = { address: string; tag: string | null; tagKey: TagKey | null };

const TAG_KEYS: readonly TagKey[] = ["dt", "memo", "tag"];

/** Which tag keys each tag-using network understands. */
const KEYS_BY_NETWORK: Partial<Record<Network, readonly TagKey[]>> = {
  ripple: ["dt", "tag"],
  stellar: ["memo"],
  cosmos: ["memo"],
};

export function acceptsTag(network: Network): boolean {
  return KEYS_BY_NETWORK[network] !== undefined;
}

export function parseAddress(input: string): ParsedAddress | { error: string } {
  const text = input.trim();
  const q = text.indexOf("?");
  if (q < 0) return text ? { address: text, tag: null, tagKey: null } : { error: "address is empty" };
  const address = text.slice(0, q).trim();
  const query = text.slice(q + 1);
  if (!address) return { error: "address is empty" };
  if (query.includes("?") || query.includes("&")) return { error: "only one destination tag or memo may follow the address" };
  const eq = query.indexOf("=");
  const key = eq < 0 ? query : query.slice(0, eq);
  if (!(TAG_KEYS as readonly string[]).includes(key)) return { error: `unknown address parameter "${key}"; expected dt, memo or tag` };
  if (eq < 0 || eq === query.length - 1) return { error: `${key} has no value` };
  let tag: string;
  try {
    // URI-style percent-decoding, so a memo can carry spaces and "&" ("+" stays a plus sign).
    tag = decodeURIComponent(query.slice(eq + 1));
  } catch {
    return { error: `${key} is not valid percent-encoding` };
  }
  return { address, tag, tagKey: key as TagKey };
}

/**
 * A stored destination in its canonical registry form ("addr", "addr?dt=1", "addr?memo=x") split into address and
 * memo, as every provider's wire carries them apart. Canonical forms always parse; anything else stays whole.
 */
export function splitDestination(canonical: string): { address: string; memo: string | null } {
  const parsed = parseAddress(canonical);
  return "error" in parsed ? { address: canonical, memo: null } : { address: parsed.address, memo: parsed.tag };
}

const MAX_UINT32 = 4294967295;
const utf8Length = (s: string): number => new TextEncoder().encode(s).length;

/** Checks a tag or memo value for a network; null when it is acceptable. */
export function tagProblem(network: Network, tagKey: TagKey, tag: string): string | null {
  const keys = KEYS_BY_NETWORK[network];
  if (!keys) return `${network} does not use destination tags or memos`;
  if (!keys.includes(tagKey)) return `${network} takes ${keys.join(" or ")}, not ${tagKey}`;
  if (network === "ripple") {
    // A destination tag is a UInt32 field; leading zeros are refused so each tag has one spelling.
    if (!/^(0|[1-9]\d{0,9})$/.test(tag) || Number(tag) > MAX_UINT32) return `ripple destination tag must be a whole number from 0 to ${MAX_UINT32}`;
    return null;
  }
  // Control characters would be invisible to the person checking the transfer, so memos are printable text only.
  if (/[\u0000-\u001f\u007f]/.test(tag)) return `${network} memo must not contain control characters`;
  // Stellar MEMO_TEXT holds at most 28 bytes (a numeric MEMO_ID fits too); the Cosmos SDK's default memo limit is 256.
  const limit = network === "stellar" ? 28 : 256;
  const length = utf8Length(tag);
  if (length > limit) return `${network} memo must be at most ${limit} bytes of UTF-8, not ${length}`;
  return null;
}
