// Who is calling: the connection's own address, unless that connection comes from a proxy the operator trusts
// (CARAVAN_TRUSTED_PROXIES); only then are the forwarding headers (CF-Connecting-IP, X-Forwarded-For) believed.
import ipaddr from "ipaddr.js";
import { parseAllowedSources, sourceAllowed, type AllowedSources } from "../../domain/provider_b/sources.ts";

/** Finds the socket address of a request its server is handling (set once per server by `listen`). */
export type PeerLookup = (req: Request) => string | null;

const peers = new WeakMap<Request, PeerLookup>();

/** Called by the HTTP server adapter for each request it hands on: how to find the request's socket address. */
export function recordPeer(req: Request, lookup: PeerLookup): void {
  peers.set(req, lookup);
}

/** The address of the connection a request came in on; null for a request no server received (in-process tests). */
export function peerAddress(req: Request): string | null {
  const lookup = peers.get(req);
  return lookup ? normalize(lookup(req)) : null;
}

/** Dotted-quad IPv4 or IPv6 text; an IPv4-mapped IPv6 address as its IPv4 address; null for anything else. */
function normalize(text: string | null | undefined): string | null {
  if (!text) return null;
  const t = text.trim().replace(/^\[|\]$/g, "");
  if (ipaddr.IPv4.isValidFourPartDecimal(t)) return t;
  if (!ipaddr.IPv6.isValid(t)) return null;
  const v6 = ipaddr.IPv6.parse(t.replace(/%.*$/, ""));
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toString();
}

export class ClientAddresses {
  private constructor(readonly trusted: AllowedSources) {}

  /** CARAVAN_TRUSTED_PROXIES: comma- or space-separated addresses and CIDR ranges; empty (the default) trusts none. */
  static fromEnv(env: Record<string, string | undefined> | undefined): ClientAddresses {
    return new ClientAddresses(parseAllowedSources(env?.CARAVAN_TRUSTED_PROXIES));
  }

  static parse(text: string | undefined): ClientAddresses {
    return new ClientAddresses(parseAllowedSources(text));
  }

  /** Entries that are neither an address nor a range (ignored: trusting fewer proxies is the safe side). */
  get invalid(): readonly string[] {
    return this.trusted.invalid;
  }

  /**
   * The client's address. A direct connection: its socket address, whatever headers it sends. A connection from a
   * trusted proxy: `CF-Connecting-IP` when present, else the right-most hop of `X-Forwarded-For` that is not itself a
   * trusted proxy (hops to its left were written by the client and prove nothing). null when the address is unknown:
   * no socket address, a trusted proxy that names no client, or a forwarding header that is not an address.
   */
  /** Whether a socket address is one of the trusted proxies. */
  trusts(address: string): boolean {
    return sourceAllowed(this.trusted, address);
  }

  of(req: Request): string | null {
    const peer = peerAddress(req);
    if (peer === null || !sourceAllowed(this.trusted, peer)) return peer;
    const cf = req.headers.get("cf-connecting-ip");
    if (cf !== null) return normalize(cf);
    const xff = req.headers.get("x-forwarded-for");
    if (xff === null) return null;
    const hops = xff.split(",");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalize(hops[i]);
      if (hop === null) return null;
      if (i === 0 || !sourceAllowed(this.trusted, hop)) return hop;
    }
    return null;
  }
}
