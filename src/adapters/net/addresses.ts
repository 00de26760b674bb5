// Which IP addresses outbound requests may reach: globally routable unicast only, plus the operator's exceptions.
import ipaddr from "ipaddr.js";

/** Why an address is refused, named for error messages (ipaddr.js range names, spelled out). */
const REFUSED_RANGES: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT (CGNAT) address",
  private: "a private network address",
  reserved: "a reserved address",
  as112: "a reserved (AS112) address",
  amt: "a reserved (AMT) address",
  uniqueLocal: "an IPv6 unique local (ULA) address",
  ipv4Mapped: "an IPv4-mapped IPv6 address",
  rfc6145: "an IPv4-translated IPv6 address",
  rfc6052: "a NAT64 (IPv4-embedded) address",
  "6to4": "a 6to4 (IPv4-embedded) address",
  teredo: "a Teredo (IPv4-embedded) address",
  deprecatedSiteLocal: "a site-local address",
  discard: "a discard-only address",
  benchmarking: "a benchmarking address",
  as112v6: "a reserved (AS112) address",
  deprecatedOrchid: "a reserved (ORCHID) address",
  orchid2: "a reserved (ORCHIDv2) address",
  droneRemoteIdProtocolEntityTags: "a reserved (DRIP) address",
  segmentRouting: "a segment-routing address",
};

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** null when the address is public (globally routable unicast), else why it is refused. IPv6 outside 2000::/3 is not allocated for unicast. */
export function refusedBecause(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return "not an IP address";
  }
  const range = ip.range();
  if (range !== "unicast") return REFUSED_RANGES[range] ?? `a special-purpose address (${range})`;
  if (ip.kind() === "ipv6" && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6 as [ipaddr.IPv6, number])) return "an unallocated IPv6 address";
  return null;
}

export const isIpLiteral = (host: string): boolean => ipaddr.isValid(host.replace(/^\[|\]$/g, ""));

/** The exceptions of CARAVAN_ALLOW_PRIVATE_TARGETS: host names and IP ranges that may be private and spoken to over http. */
export class AllowList {
  private constructor(
    readonly hosts: ReadonlySet<string>,
    private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][],
    readonly text: string,
  ) {}

  static readonly none = new AllowList(new Set(), [], "");

  /** Comma-separated entries: `localhost`, `hook.test`, `127.0.0.2`, `10.0.0.0/8`, `::1`, `fd00::/8`. Throws on an unreadable entry. */
  static parse(text: string | undefined): AllowList {
    if (!text || !text.trim()) return AllowList.none;
    const hosts = new Set<string>();
    const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
    for (const raw of text.split(",")) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      if (entry.includes("/")) {
        try {
          ranges.push(ipaddr.parseCIDR(entry));
        } catch {
          throw new RangeError(`"${entry}" is not a CIDR range`);
        }
      } else if (ipaddr.isValid(entry.replace(/^\[|\]$/g, ""))) {
        const ip = ipaddr.parse(entry.replace(/^\[|\]$/g, ""));
        ranges.push([ip, ip.kind() === "ipv4" ? 32 : 128]);
      } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(entry)) {
        hosts.add(entry.replace(/\.$/, ""));
      } else {
        throw new RangeError(`"${entry}" is neither a host name, an IP address nor a CIDR range`);
      }
    }
    return new AllowList(hosts, ranges, text);
  }

  hasHost(hostname: string): boolean {
    return this.hosts.has(hostname.toLowerCase().replace(/\.$/, ""));
  }

  hasAddress(address: string): boolean {
    let ip: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      ip = ipaddr.parse(address);
    } catch {
      return false;
    }
    // An IPv4-mapped address is matched as the IPv4 address it carries, so `127.0.0.1` covers `::ffff:127.0.0.1`.
    const plain = ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
    return this.ranges.some(([net, bits]) => net.kind() === plain.kind() && plain.match(net as never, bits));
  }

  get empty(): boolean {
    return this.hosts.size === 0 && this.ranges.length === 0;
  }
}
