// An independent TRP v3 VASP for the sandbox, written from the OpenVASP TRP specification and the open
// implementations' examples (TRISA's `pkg/openvasp`, Envoy's `pkg/trp`). It imports nothing of Caravan's. Mutual TLS
// with its own test CA (made with openssl at start): a client without a certificate from an accepted CA is refused at
// the handshake, and each request sees which certificate it was (node:tls, whose sockets expose the peer certificate
// under Bun and Deno). Switchable behaviour as beneficiary: approve, reject, acknowledge then resolve later, never
// answer, answer 4xx or 5xx; api-versions it refuses. It also originates inquiries towards a Travel Address.
import http from "node:http";
import tls from "node:tls";
import { createHash, randomUUID } from "node:crypto";
import { bech32, createBase58check, utf8 } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2.js";
import { makeTestCa, type Issued, type TestCa } from "./ca.ts";

export type Behaviour = "approve" | "reject" | "acknowledge" | "silent" | "http_4xx" | "http_5xx";

export interface ReceivedInquiry {
  requestId: string;
  apiVersion: string;
  extensions: string[];
  /** SHA-256 of the client certificate's DER (hex) the inquiry came with. */
  clientFingerprint: string;
  path: string;
  body: Record<string, unknown>;
  answer: { status: number; body: unknown } | null;
}

export interface SentInquiry {
  requestId: string;
  url: string;
  status: number;
  answer: unknown;
  /** The resolution POSTed later to our callback, once it came. */
  resolution: Record<string, unknown> | null;
}

export interface TrpPeerOptions {
  host?: string;
  port?: number;
  name?: string;
  lei?: string;
  behaviour?: Behaviour;
  /** Versions answered; any other `api-version` is refused with 400 naming these. */
  supportedVersions?: string[];
  /** More CA certificates (PEM) whose clients and servers the peer accepts, beside its own CA. */
  trust?: string[];
  /**
   * The chain address it approves with, per account (the path's last segment); a default otherwise. An inquiry at
   * `POST /inquiry` (no account in the path) is approved only when its beneficiary accountNumber is one of these.
   */
  addresses?: Record<string, string>;
}

export interface TrpPeer {
  url: string;
  ca: TestCa;
  identity: Issued;
  received: ReceivedInquiry[];
  sent: SentInquiry[];
  confirmations: { id: string; body: Record<string, unknown> }[];
  setBehaviour(b: Behaviour): void;
  setSupportedVersions(v: string[]): void;
  /** The next `n` resolutions POSTed to the peer's callback are answered 503 (a callback that is down). */
  failCallbacks(n: number): void;
  /** Resolutions that reached the callback, failed ones included. */
  callbackAttempts: number;
  trustCa(pem: string): void;
  /** A `ta…` Travel Address of one of the peer's accounts. */
  travelAddress(account: string): string;
  /** Resolves an acknowledged inquiry: POSTs approval (with an address) or rejection to its callback. */
  resolve(requestId: string, decision: "approve" | "reject"): Promise<number>;
  /** As originator: an inquiry to a Travel Address (ta…, lnurl… or URL), over mutual TLS. */
  sendInquiry(travelAddress: string, inquiry: { asset: Record<string, unknown>; amount: number | string; IVMS101: Record<string, unknown> }, opts?: { apiVersion?: string; requestId?: string }): Promise<SentInquiry>;
  /** As originator, after an approval: POSTs `{txid}` or `{canceled}` to the approval's callback. */
  confirm(requestId: string, body: { txid: string } | { canceled: string }): Promise<number>;
  close(): Promise<void>;
}

const b58check = createBase58check(sha256);
const DEFAULT_VERSIONS = ["3.2.1", "3.2.0", "3.1.0", "3.0.0"];

function decodeAddress(text: string): string {
  if (/^lnurl1/i.test(text)) return utf8.encode(bech32.fromWords(bech32.decode(text.toLowerCase() as `${string}1${string}`, 2048).words));
  if (text.startsWith("ta")) return `https://${utf8.encode(b58check.decode(text.slice(2)))}`;
  return text;
}

export async function startTrpPeer(opts: TrpPeerOptions = {}): Promise<TrpPeer> {
  const ca = makeTestCa("TRP Sandbox Peer CA");
  const host = opts.host ?? "127.0.0.1";
  const identity = ca.issue(opts.name ?? "trp-peer.localhost", { dns: ["localhost"], ips: [host] });
  const trusted = [ca.certificate, ...(opts.trust ?? [])];
  let behaviour: Behaviour = opts.behaviour ?? "approve";
  let versions = opts.supportedVersions ?? DEFAULT_VERSIONS;
  const started = Date.now();
  const received: ReceivedInquiry[] = [];
  const sent: SentInquiry[] = [];
  const confirmations: { id: string; body: Record<string, unknown> }[] = [];
  const silent = new Set<http.ServerResponse>();
  let url = "";
  let failNext = 0;
  let callbackAttempts = 0;

  const clientTls = () => ({ cert: identity.certificate, key: identity.privateKey, ca: trusted.join("\n") });
  const post = async (to: string, requestId: string, body: unknown, version = versions[0]) =>
    fetch(to, {
      method: "POST",
      headers: { "api-version": version, "request-identifier": requestId, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(body),
      tls: clientTls(),
    } as RequestInit);

  const approval = (account: string, requestId: string) => ({ approved: { address: opts.addresses?.[account] ?? "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", callback: `${url}/confirm/${requestId}` } });

  const app = http.createServer((req, res) => {
    const sock = req.socket as tls.TLSSocket;
    const cert = sock.getPeerCertificate?.(false) as { raw?: Uint8Array } | undefined;
    const fp = cert?.raw ? createHash("sha256").update(cert.raw).digest("hex") : "";
    const chunks: Uint8Array[] = [];
    req.on("data", (c: Uint8Array) => chunks.push(c));
    req.on("end", () => {
      const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { ...(body === undefined ? {} : { "content-type": typeof body === "string" ? "text/plain" : "application/json" }), ...headers });
        res.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
      };
      const path = (req.url ?? "/").split("?")[0];
      if (req.method === "GET") {
        if (path === "/version") return send(200, { version: versions[0], vendor: "Caravan sandbox TRP peer" });
        if (path === "/uptime") return send(200, String(Math.floor((Date.now() - started) / 1000)));
        if (path === "/extensions") return send(200, { required: [], supported: [] });
        if (path === "/identity") return send(200, { name: opts.name ?? "Sandbox TRP Peer", lei: opts.lei ?? "506700T7Z685VUOZL877", x509: identity.certificate });
        return send(404, { error: "not found" });
      }
      if (req.method !== "POST") return send(405, { error: "method not allowed" });
      const version = String(req.headers["api-version"] ?? "");
      if (!versions.includes(version)) return send(400, { error: `unsupported api-version; supported: ${versions.join(", ")}`, supported: versions }, { "api-version": versions[0] });
      const requestId = String(req.headers["request-identifier"] ?? "");
      if (!requestId) return send(400, { error: "missing request-identifier" });
      const echo = { "api-version": versions[0], "request-identifier": requestId };
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(400, { error: "body is not JSON" }, echo);
      }
      const parts = path.split("/").filter(Boolean);
      if (parts[0] === "inquiry") {
        const earlier = received.find((r) => r.requestId === requestId && r.clientFingerprint === fp);
        if (earlier?.answer) return send(earlier.answer.status, earlier.answer.body, echo);
        const entry: ReceivedInquiry = { requestId, apiVersion: version, extensions: String(req.headers["api-extensions"] ?? "").split(",").map((s) => s.trim()).filter(Boolean), clientFingerprint: fp, path, body, answer: null };
        received.push(entry);
        const answer = (status: number, b: unknown) => ((entry.answer = { status, body: b }), send(status, b, echo));
        if (typeof body.callback !== "string" || body.IVMS101 === undefined || body.asset === undefined || body.amount === undefined) return answer(422, { error: "asset, amount, callback and IVMS101 are required" });
        switch (behaviour) {
          case "approve": {
            if (parts[1] !== undefined) return answer(200, approval(parts[1], requestId));
            // `POST /inquiry` names no account (as Envoy's `POST /transfers`): the beneficiary's accountNumber does.
            const named = ((body.IVMS101 as { beneficiary?: { accountNumber?: unknown } }).beneficiary?.accountNumber ?? []) as unknown[];
            const account = Object.entries(opts.addresses ?? {}).find(([, a]) => named.some((n) => typeof n === "string" && n.toLowerCase() === a.toLowerCase()))?.[0];
            return answer(200, account ? approval(account, requestId) : { rejected: "no account of the sandbox peer holds this address" });
          }
          case "reject":
            return answer(200, { rejected: "beneficiary not known to the sandbox peer" });
          case "acknowledge":
            return answer(200, { version: versions[0] });
          case "silent":
            silent.add(res);
            return;
          case "http_4xx":
            return answer(422, { error: "the sandbox peer refuses this inquiry" });
          case "http_5xx":
            return answer(503, { error: "the sandbox peer is unavailable" });
        }
      }
      if (parts[0] === "confirm" && parts[1]) {
        confirmations.push({ id: parts[1], body });
        return send(204, undefined, echo);
      }
      if (parts[0] === "callback" && parts[1]) {
        callbackAttempts++;
        if (failNext > 0) {
          failNext--;
          return send(503, { error: "the sandbox peer's callback is down" }, echo);
        }
        const s = sent.find((x) => x.requestId === parts[1]);
        if (!s) return send(404, { error: "unknown inquiry" }, echo);
        s.resolution = body;
        return send(204, undefined, echo);
      }
      return send(404, { error: "not found" });
    });
  });

  const sockets = new Set<tls.TLSSocket>();
  const server = tls.createServer({ key: identity.privateKey, cert: identity.certificate, ca: trusted, requestCert: true, rejectUnauthorized: true }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    app.emit("connection", socket);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, () => resolve()));
  url = `https://${host}:${(server.address() as { port: number }).port}`;

  return {
    url,
    ca,
    identity,
    received,
    sent,
    confirmations,
    setBehaviour: (b) => void (behaviour = b),
    setSupportedVersions: (v) => void (versions = v),
    failCallbacks: (n) => void (failNext = n),
    get callbackAttempts() {
      return callbackAttempts;
    },
    trustCa(pem) {
      trusted.push(pem);
      server.setSecureContext({ key: identity.privateKey, cert: identity.certificate, ca: trusted, requestCert: true, rejectUnauthorized: true } as tls.SecureContextOptions);
    },
    travelAddress: (account) => `ta${b58check.encode(utf8.decode(`${url.replace(/^https:\/\//, "")}/inquiry/${account}?t=i`))}`,
    async resolve(requestId, decision) {
      const r = received.find((x) => x.requestId === requestId);
      if (!r) throw new Error(`no inquiry ${requestId}`);
      const body = decision === "approve" ? approval(r.path.split("/").filter(Boolean)[1] ?? "", requestId) : { rejected: "declined after review by the sandbox peer" };
      const res = await post(String(r.body.callback), requestId, body);
      await res.body?.cancel();
      return res.status;
    },
    async sendInquiry(address, inquiry, o = {}) {
      const requestId = o.requestId ?? randomUUID();
      const to = decodeAddress(address);
      const res = await post(to, requestId, { ...inquiry, callback: `${url}/callback/${requestId}` }, o.apiVersion);
      const text = await res.text();
      let answer: unknown = text;
      try {
        answer = JSON.parse(text);
      } catch {
        /* kept as text */
      }
      const s: SentInquiry = { requestId, url: to, status: res.status, answer, resolution: null };
      sent.push(s);
      return s;
    },
    async confirm(requestId, body) {
      const s = sent.find((x) => x.requestId === requestId);
      const ap = (s?.resolution ?? (s?.answer as Record<string, unknown> | undefined))?.approved as { callback?: string } | undefined;
      if (!ap?.callback) throw new Error(`inquiry ${requestId} was not approved`);
      const res = await post(ap.callback, requestId, body);
      await res.body?.cancel();
      return res.status;
    },
    async close() {
      for (const r of silent) r.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
      app.close();
      ca.dispose();
    },
  };
}
