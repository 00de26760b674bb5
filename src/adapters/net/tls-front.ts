// Caravan's own TLS listener for TRP (provider_d, mutual TLS): node:tls terminates TLS, asking every client for its
// certificate (verified by the provider_d intake against the company's accepted CAs, so a refusal is logged with its
// reason), and hands each connection to the HTTP server over loopback. The HTTP server finds the certificate by that
// loopback connection (src/adapters/net/client-cert.ts). node:tls is used because it is what exposes the peer
// certificate under both Bun and Deno (Bun.serve verifies one but does not say which; Deno.serve cannot ask).
import net from "node:net";
import tls from "node:tls";
import { registerFrontConnection } from "./client-cert.ts";

export interface TlsFrontOptions {
  host: string;
  port: number;
  certificate: string;
  privateKey: string;
  upstream: { host: string; port: number };
}

export interface TlsFront {
  readonly port: number;
  stop(): Promise<void>;
}

export async function startTlsFront(o: TlsFrontOptions): Promise<TlsFront> {
  const open = new Set<net.Socket>();
  const server = tls.createServer({ cert: o.certificate, key: o.privateKey, requestCert: true, rejectUnauthorized: false, minVersion: "TLSv1.2" }, (client) => {
    // The leaf and the chain the client presented (its intermediates), up to the self-issued end of it.
    type Peer = { raw?: Uint8Array; issuerCertificate?: Peer };
    const leaf = client.getPeerCertificate?.(true) as Peer | undefined;
    const der = leaf?.raw && leaf.raw.length > 0 ? new Uint8Array(leaf.raw) : null;
    const chain: Uint8Array[] = [];
    for (let p = leaf?.issuerCertificate, i = 0; p && p.raw && p !== leaf && i < 5; p = p.issuerCertificate === p ? undefined : p.issuerCertificate, i++) chain.push(new Uint8Array(p.raw));
    client.pause();
    const up = net.connect({ host: o.upstream.host, port: o.upstream.port });
    open.add(client);
    open.add(up);
    let local: number | null = null;
    up.on("connect", () => {
      local = up.localPort ?? null;
      if (local !== null) registerFrontConnection(local, { der, chain });
      client.pipe(up);
      up.pipe(client);
      client.resume();
    });
    const done = () => {
      if (local !== null) registerFrontConnection(local, null);
      local = null;
      client.destroy();
      up.destroy();
      open.delete(client);
      open.delete(up);
    };
    client.on("close", done);
    up.on("close", done);
    client.on("error", done);
    up.on("error", done);
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}
