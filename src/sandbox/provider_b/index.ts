// A sandbox provider_b (CodeVASP) network: a real loopback HTTP server with member VASPs, signed Request API, faults, and callbacks to Caravan.
import { listen } from "../serve.ts";
import type { CountryCode } from "../../domain/ivms101/types.ts";
import type { Ivms101Message } from "./wire.ts";
import { answer, matchRoute, type ApiAnswer, type NetworkState, type ProviderBRoute, type ReceivedTransfer } from "./api.ts";
import { RequestAuth } from "./auth.ts";
import * as cb from "./callbacks.ts";
import { Directory, type CaravanEntry, type SandboxVasp, type SandboxVaspInput } from "./directory.ts";

export type { ProviderBRoute, ReceivedTransfer } from "./api.ts";
export { ROUTES } from "./api.ts";
export type { CallbackReply, CallbackTarget, IncomingTransferInput } from "./callbacks.ts";
export type { AccountLookup, CaravanEntry, SandboxDenied, SandboxVasp, SandboxVaspInput, SandboxWallet } from "./directory.ts";
export { Directory } from "./directory.ts";
export { REPLAY_WINDOW_MS } from "./auth.ts";

/**
 * Caravan's member in a sandbox network started by `caravan sandbox`: the provider_b settings a newcomer pastes
 * (`apiUrl` is the network's own). The key is published on purpose and is known to no network but the loopback
 * sandbox, which registers it at start (docs/getting-started.md).
 */
export const SANDBOX_CARAVAN_B = {
  vaspEntityId: "CARAVAN-SANDBOX",
  privateKey: "4trhwfwDWPt/3N90yHbSICXbjRK/8Zjt8rCHiYGshjA=",
  legalName: "Caravan Sandbox VASP",
  country: "NL",
} as const;

/** Alpine Exchange's customer in `caravan sandbox`: transfers to this address under this name are verified. */
export const SANDBOX_ALPINE_CUSTOMER = {
  name: "Ruth Roe",
  address: "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  person: { naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Roe", secondaryIdentifier: "Ruth", nameIdentifierType: "LEGL" as const }] }, countryOfResidence: "CH" as CountryCode } },
};

/**
 * A fault replaces the answer of a route after the request was authenticated:
 * - `status`: that HTTP status with `{ errorType }` (default per status: 408 BENEFICIARY_VASP_REQUEST_TIMEOUT,
 *   429 TOO_MANY_REQUESTS, 500 CODE_SERVER_INTERNAL_ERROR, 503 VASP_BACKEND_INTERNAL_ERROR; `errorType: null` sends `{}`);
 * - `invalidReceiverPublicKey`: 422 INVALID_RECEIVER_PUBLIC_KEY (as after a key rotation the caller has not seen);
 * - `answer`: a canned answer (for answers that do not match the request);
 * - `garbage`: 200 with an HTML page; `redirect`: 302 to another host; `hang`: no answer until `stop()`.
 */
export type ProviderBFault =
  | { kind: "status"; status: number; errorType?: string | null }
  | { kind: "invalidReceiverPublicKey" }
  | { kind: "answer"; status?: number; body: unknown }
  | { kind: "garbage" }
  | { kind: "redirect" }
  | { kind: "hang" };

export interface PeerRequest {
  method: string;
  path: string;
  route: ProviderBRoute | null;
  /** The authenticated sender, or null when the request was refused before that. */
  fromEntityId: string | null;
  status: number;
  errorType?: string;
  /** The request's JSON body as sent (payload still sealed). */
  body?: unknown;
  /** The decrypted payload, when the route opened one. */
  payload?: Ivms101Message;
  fault?: ProviderBFault["kind"];
}

export interface ProviderBPeerOptions {
  vasps?: SandboxVaspInput[];
  hostname?: string;
  port?: number;
  /** `CF-Connecting-IP` of callbacks; default 127.0.0.1. */
  connectingIp?: string;
  /** Clock for the datetime window, nonce memory and key expiry; default Date.now. */
  now?: () => number;
  /** v2 discovery: GETs answered PROCESSING before the result; default 0. */
  discoveryPendingPolls?: number;
}

type Target = cb.CallbackTarget;

export interface ProviderBPeer {
  /** The network's API origin (`apiUrl`): `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly directory: Directory;
  /** Every Request-API call received, oldest first. */
  readonly requests: PeerRequest[];
  /** Authorization requests received by sandbox VASPs, by transfer ID. */
  readonly transfers: Map<string, ReceivedTransfer>;
  addVasp(input: SandboxVaspInput): SandboxVasp;
  registerCaravan(entry: { entityId: string; publicKeyBase64: string; callbackBaseUrl: string; name?: string; legalName?: string; country?: CountryCode }): CaravanEntry;
  /**
   * Sets (or with null clears) the fault of a route, or of every route with "*", for `times` answers: default once
   * for `invalidReceiverPublicKey` (the caller re-reads the key and retries), otherwise until cleared.
   */
  setFault(route: ProviderBRoute | "*", fault: ProviderBFault | null, times?: number): void;
  clearFaults(): void;
  setDiscoveryPending(polls: number): void;
  setHealth(entityId: string, health: "up" | "down"): void;
  /** New key pair for a VASP; returns its new public key. */
  rotateKey(entityId: string, seedBase64?: string): string;
  setConnectingIp(ip: string): void;
  sendIncomingTransfer(i: cb.IncomingTransferInput): ReturnType<typeof cb.sendIncomingTransfer>;
  sendTxid(i: Target & { transferId: string; txid: string; vout?: string }): ReturnType<typeof cb.sendTxid>;
  sendCancel(i: Target & { transferId: string; reasonType?: string }): ReturnType<typeof cb.sendCancel>;
  askStatus(i: Target & { transferId: string }): ReturnType<typeof cb.askStatus>;
  verifyAddress(i: Parameters<typeof cb.verifyAddress>[1]): ReturnType<typeof cb.verifyAddress>;
  verificationTx(i: Target & { txid: string; beneficiaryAddress: string }): ReturnType<typeof cb.verificationTx>;
  requestTransferData(i: Parameters<typeof cb.requestTransferData>[1]): ReturnType<typeof cb.requestTransferData>;
  health(i: Target): ReturnType<typeof cb.health>;
  stop(): Promise<void>;
}

/** Part 3, Limits: a provider_b body is at most 256 KiB. */
const MAX_BODY = 256 * 1024;

const DEFAULT_ERROR_TYPE: Record<number, string> = {
  408: "BENEFICIARY_VASP_REQUEST_TIMEOUT",
  429: "TOO_MANY_REQUESTS",
  500: "CODE_SERVER_INTERNAL_ERROR",
  503: "VASP_BACKEND_INTERNAL_ERROR",
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export async function startProviderBPeer(opts: ProviderBPeerOptions = {}): Promise<ProviderBPeer> {
  const now = opts.now ?? Date.now;
  const directory = new Directory(now);
  for (const v of opts.vasps ?? []) directory.add(v);
  const state: NetworkState = {
    directory,
    transfers: new Map(),
    discoveries: new Map(),
    discoveryPendingPolls: opts.discoveryPendingPolls ?? 0,
  };
  const auth = new RequestAuth((id) => directory.publicKeyOf(id), now);
  const requests: PeerRequest[] = [];
  const faults = new Map<ProviderBRoute | "*", { fault: ProviderBFault; left: number }>();
  let connectingIp = opts.connectingIp ?? "127.0.0.1";
  // Hung requests, released on stop() so that stopping never waits for them.
  const hung = new Set<() => void>();

  const takeFault = (route: ProviderBRoute): ProviderBFault | null => {
    const entry = faults.get(route) ?? faults.get("*");
    if (!entry) return null;
    if (--entry.left <= 0) faults.delete(faults.get(route) === entry ? route : "*");
    return entry.fault;
  };

  const faultAnswer = async (f: ProviderBFault): Promise<Response> => {
    switch (f.kind) {
      case "status": {
        const errorType = f.errorType === undefined ? DEFAULT_ERROR_TYPE[f.status] : f.errorType;
        return json(f.status, errorType ? { errorType, errorMsg: "" } : {});
      }
      case "invalidReceiverPublicKey":
        return json(422, { errorType: "INVALID_RECEIVER_PUBLIC_KEY", errorMsg: "" });
      case "answer":
        return json(f.status ?? 200, f.body);
      case "garbage":
        return new Response("<html><body>502 Bad Gateway</body></html>", { status: 200, headers: { "content-type": "text/html" } });
      case "redirect":
        return new Response(null, { status: 302, headers: { location: "https://example.invalid/elsewhere" } });
      case "hang":
        await new Promise<void>((resolve) => hung.add(resolve));
        return json(503, { errorType: "VASP_BACKEND_INTERNAL_ERROR", errorMsg: "" });
    }
  };

  const handle = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const entry: PeerRequest = { method: req.method, path: url.pathname, route: null, fromEntityId: null, status: 0 };
    requests.push(entry);
    const finish = (res: Response, errorType?: string): Response => {
      entry.status = res.status;
      if (errorType) entry.errorType = errorType;
      return res;
    };
    const match = matchRoute(req.method, url.pathname);
    if (!match) return finish(json(404, { errorType: "NOT_FOUND", errorMsg: "" }), "NOT_FOUND");
    entry.route = match.route;
    const bytes = new Uint8Array(await req.arrayBuffer());
    if (bytes.length > MAX_BODY) return finish(json(413, { errorType: "MESSAGE_TOO_LARGE", errorMsg: "" }), "MESSAGE_TOO_LARGE");
    // The signature covers the exact bytes received, before any parsing.
    const who = auth.check(req.headers, bytes);
    if (!who.ok) return finish(json(who.status, { errorType: who.errorType, errorMsg: "" }), who.errorType);
    entry.fromEntityId = who.entityId;
    let body: unknown;
    if (bytes.length > 0) {
      try {
        body = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        return finish(json(422, { errorType: "MISSING_REQUIRED_MSG_FIELD", errorMsg: "" }), "MISSING_REQUIRED_MSG_FIELD");
      }
      entry.body = body;
    }
    const fault = takeFault(match.route);
    if (fault) {
      entry.fault = fault.kind;
      const res = await faultAnswer(fault);
      const errorType = fault.kind === "status" ? (fault.errorType === undefined ? DEFAULT_ERROR_TYPE[fault.status] : fault.errorType) : fault.kind === "invalidReceiverPublicKey" ? "INVALID_RECEIVER_PUBLIC_KEY" : undefined;
      return finish(res, errorType ?? undefined);
    }
    const a: ApiAnswer = answer(state, match, who, req.headers, body);
    if (a.payload) entry.payload = a.payload;
    const errorType = (a.body as { errorType?: string }).errorType;
    return finish(json(a.status, a.body), a.status >= 400 ? errorType : undefined);
  };

  const server = await listen(handle, { hostname: opts.hostname ?? "127.0.0.1", port: opts.port ?? 0 });
  const ctx: cb.CallbackContext = { directory, connectingIp: () => connectingIp, now };

  return {
    url: `http://${server.hostname}:${server.port}`,
    directory,
    requests,
    transfers: state.transfers,
    addVasp: (input) => directory.add(input),
    registerCaravan: (entry) => directory.registerCaravan(entry),
    setFault: (route, fault, times) => {
      if (fault) faults.set(route, { fault, left: times ?? (fault.kind === "invalidReceiverPublicKey" ? 1 : Infinity) });
      else faults.delete(route);
    },
    clearFaults: () => faults.clear(),
    setDiscoveryPending: (polls) => {
      state.discoveryPendingPolls = polls;
    },
    setHealth: (id, health) => directory.setHealth(id, health),
    rotateKey: (id, seed) => directory.rotateKey(id, seed),
    setConnectingIp: (ip) => {
      connectingIp = ip;
    },
    sendIncomingTransfer: (i) => cb.sendIncomingTransfer(ctx, i),
    sendTxid: (i) => cb.sendTxid(ctx, i),
    sendCancel: (i) => cb.sendCancel(ctx, i),
    askStatus: (i) => cb.askStatus(ctx, i),
    verifyAddress: (i) => cb.verifyAddress(ctx, i),
    verificationTx: (i) => cb.verificationTx(ctx, i),
    requestTransferData: (i) => cb.requestTransferData(ctx, i),
    health: (i) => cb.health(ctx, i),
    stop: async () => {
      for (const release of hung) release();
      hung.clear();
      await server.stop();
    },
  };
}
