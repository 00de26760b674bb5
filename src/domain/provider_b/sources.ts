// PROVIDER_B_ALLOWED_IPS: the source addresses provider_b callbacks are accepted from (Part 3, Authentication 3); pure.
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface AllowedSources {
  readonly ranges: readonly Range[];
  /** Entries that are neither an address nor a CIDR range: ignored (refusing is the safe default), reported at start. */
  readonly invalid: readonly string[];
}

/** Comma- or whitespace-separated IPv4/IPv6 addresses and CIDR ranges (`203.0.113.7, 198.51.100.0/24, 2001:db8::/32`). */
export function parseAllowedSources(text: string | undefined): AllowedSources {
  const ranges: Range[] = [];
  const invalid: string[] = [];
  for (const raw of (text ?? "").split(/[\s,]+/)) {
    const entry = raw.trim().replace(/^\[|\]$/g, "");
    if (!entry) continue;
    const slash = entry.indexOf("/");
    const ip = strictParse(slash < 0 ? entry : entry.slice(0, slash));
    const bits = slash < 0 ? (ip?.kind() === "ipv4" ? 32 : 128) : /^\d{1,3}$/.test(entry.slice(slash + 1)) ? Number(entry.slice(slash + 1)) : -1;
    if (!ip || bits < 0 || bits > (ip.kind() === "ipv4" ? 32 : 128)) invalid.push(raw);
    else ranges.push([ip, bits]);
  }
  return { ranges, invalid };
}

/** Dotted-quad IPv4 or IPv6 only: ipaddr.js alone would also read `127.1` or `0x7f000001` as addresses. */
function strictParse(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/**
 * Whether `CF-Connecting-IP` is in the list. While the list is empty every call is refused (Part 3). An IPv4-mapped
 * IPv6 address is matched as the IPv4 address it carries, and an IPv4 entry does not match IPv6 ranges or the reverse.
 */
export function sourceAllowed(sources: AllowedSources, connectingIp: string | null): boolean {
  if (sources.ranges.length === 0 || !connectingIp) return false;
  const parsed = strictParse(connectingIp.trim());
  if (!parsed) return false;
  const ip = parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  const kind = ip.kind();
  return sources.ranges.some(([net, bits]) => net.kind() === kind && ip.match(net as never, bits));
}
