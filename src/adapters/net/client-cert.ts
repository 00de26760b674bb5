// Which client certificate a request came with (provider_d, mutual TLS), in the two deployments Caravan supports:
// - its own TLS listener (src/adapters/net/tls-front.ts): the listener terminated TLS and handed the connection to the
//   HTTP server over loopback; the certificate is found by that loopback connection (its source port), never by a
//   header, so a client of the listener cannot claim another certificate;
// - a trusted proxy (CARAVAN_TRUSTED_PROXIES only) that terminated TLS and verified the client: it passes the
//   certificate in `X-Client-Cert` (URL-encoded PEM, nginx's `$ssl_client_escaped_cert`, or base64 DER) or in Envoy's
//   `X-Forwarded-Client-Cert` (`Cert="<URL-encoded PEM>"`). From any other source these headers are ignored.
import { X509Certificate } from "node:crypto";
import { peerAddress, type ClientAddresses } from "./client-address.ts";

export interface PeerSocket {
  address: string;
  port: number;
}

/** What the TLS listener saw: the certificate's DER (null when the client sent none) and the chain it presented. */
export type FrontSeen = { der: Uint8Array | null; chain?: Uint8Array[] };

const sockets = new WeakMap<Request, () => PeerSocket | null>();
/** Loopback connections from our own TLS listener, by their source port. */
const front = new Map<number, FrontSeen>();

/** Called by the HTTP server adapter: how to find a request's socket (address and port). */
export function recordPeerSocket(req: Request, lookup: () => PeerSocket | null): void {
  sockets.set(req, lookup);
}

/** Called by the TLS listener for each connection it hands on (and with null when it closes). */
export function registerFrontConnection(localPort: number, seen: FrontSeen | null): void {
  if (seen) front.set(localPort, seen);
  else front.delete(localPort);
}

export type ClientCertificate =
  | { ok: true; source: "listener" | "proxy"; certificate: X509Certificate; intermediates: X509Certificate[] }
  | { ok: false; reason: "no_tls" | "no_certificate" | "unreadable" };

function fromHeaders(req: Request): X509Certificate | null | "unreadable" {
  const xfcc = req.headers.get("x-forwarded-client-cert");
  const plain = req.headers.get("x-client-cert");
  let text: string | null = null;
  if (plain) text = plain.includes("%") ? decodeURIComponent(plain) : plain;
  else if (xfcc) {
    const m = /(?:^|[;,])\s*Cert="([^"]+)"/i.exec(xfcc);
    if (!m) return "unreadable";
    text = decodeURIComponent(m[1]);
  }
  if (text === null) return null;
  try {
    if (text.includes("BEGIN CERTIFICATE")) return new X509Certificate(text.replace(/\t/g, "\n"));
    return new X509Certificate(Buffer.from(text.replace(/\s/g, ""), "base64"));
  } catch {
    return "unreadable";
  }
}

/** The client certificate of a request, read before its body. */
export function clientCertificate(req: Request, proxies: ClientAddresses): ClientCertificate {
  const sock = sockets.get(req)?.() ?? null;
  const seen = sock && isLoopback(sock.address) ? front.get(sock.port) : undefined;
  if (seen) {
    if (!seen.der) return { ok: false, reason: "no_certificate" };
    try {
      return { ok: true, source: "listener", certificate: new X509Certificate(seen.der), intermediates: (seen.chain ?? []).map((d) => new X509Certificate(d)) };
    } catch {
      return { ok: false, reason: "unreadable" };
    }
  }
  const peer = peerAddress(req);
  if (peer !== null && proxies.trusts(peer)) {
    const c = fromHeaders(req);
    if (c === "unreadable") return { ok: false, reason: "unreadable" };
    if (c) return { ok: true, source: "proxy", certificate: c, intermediates: [] };
    return { ok: false, reason: "no_certificate" };
  }
  return { ok: false, reason: "no_tls" };
}

const isLoopback = (a: string) => a === "127.0.0.1" || a === "::1" || a === "::ffff:127.0.0.1";
