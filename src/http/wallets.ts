// /api/v2/wallets: the registry of customers' hosted addresses (Part 1, Wallets).
import { apiError } from "../domain/errors.ts";
import { newId } from "../domain/ids.ts";
import { SUPPORTED_NETWORKS, isSupportedNetwork } from "../domain/networks/index.ts";
import { addressCandidates, canonicalAddress, checkWalletCreate } from "../domain/wallets.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import type { Repositories } from "../ports/repositories.ts";
import type { Wallet } from "../ports/wallets.ts";
import { deriveVerification } from "../domain/proofs/index.ts";
import { ok, page, type ApiKit, type RouteContext } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import { q } from "./query.ts";
import { askActor, unwrap } from "./outcome.ts";
import * as api from "../api/wallets.ts";
import type { ProviderSettingsRepository } from "../ports/provider-settings.ts";
import { readProviderDConfig } from "../domain/provider_d/settings.ts";
import { walletToken } from "../domain/provider_d/tokens.ts";
import { encodeTravelAddress } from "../domain/provider_d/travel-address.ts";
import { hasVerifiedIdentity } from "../domain/identity.ts";

export interface WalletRouteDeps {
  repositories: Pick<Repositories, "wallets" | "proofs" | "customers">;
  runtime: ActorRuntime;
  cursorKey: Uint8Array;
  /** provider_d (TRP): the saved settings (for the Travel Address of a verified wallet) and the token key. */
  providerSettings: ProviderSettingsRepository;
  masterKey: { derive(purpose: string): Uint8Array };
}

/** How long a Travel Address handed out stays valid. */
export const TRAVEL_ADDRESS_TTL_MS = 30 * 24 * 60 * 60_000;

const ID = /^wal_[0-9a-z]{26}$/;
const read = { scope: "wallets:read", permission: "wallets:view" } as const;

/** Every wallet answer has exactly these fields (Part 1). */
export function presentWallet(w: Wallet) {
  return {
    id: w.id,
    address: w.address,
    network: w.network,
    customerId: w.customerId,
    label: w.label,
    verified: w.verified,
    verifiedAt: w.verifiedAt,
    environment: w.environment,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

/** A registration's body (MISSING_FIELDS, INVALID_FIELDS or VALIDATION_ERROR, as the wallet rules give them). */
function readCreate(b: unknown) {
  const v = checkWalletCreate(b);
  if (!v.ok) throw apiError(v.code, { message: v.message, details: v.details });
  return v.value;
}

/** A verification's body: an address, and a network if given (MISSING_FIELDS, INVALID_FIELDS). */
function readVerify(b: unknown): { address: string; network: unknown } {
  if (b === undefined || b === null || typeof b !== "object" || Array.isArray(b))
    throw apiError("VALIDATION_ERROR", { message: "The body must be a JSON object", details: { issues: [{ path: "", message: "must be a JSON object" }] } });
  const { address, network } = b as { address?: unknown; network?: unknown };
  if (address === undefined || address === null) throw apiError("MISSING_FIELDS", { message: "Missing fields: address", details: { fields: ["address"] } });
  const bad = [typeof address !== "string" && "address", network !== undefined && network !== null && typeof network !== "string" && "network"].filter(Boolean);
  if (bad.length) throw apiError("INVALID_FIELDS", { message: `Invalid fields: ${bad.join(", ")}`, details: { fields: bad } });
  return { address: address as string, network };
}

export function walletRoutes(kit: ApiKit, deps: WalletRouteDeps) {
  const repo = deps.repositories.wallets;
  const proofs = deps.repositories.proofs;

  /**
   * `verified` is true while a proof is valid (Part 1): a stored flag whose last proof has passed its expiry is
   * read as it is now, before the expiry sweep writes it (a few seconds later).
   */
  async function asOf(w: Wallet, now: number): Promise<Wallet> {
    if (!w.verified) return w;
    const v = deriveVerification(await proofs.ofWallet(w.id), now);
    return v.verified ? { ...w, verifiedAt: v.verifiedAt } : { ...w, verified: false, verifiedAt: null };
  }

  async function find(c: RouteContext, id: string): Promise<Wallet> {
    const w = ID.test(id) ? await repo.get(c.auth.company.id, c.auth.environment, id) : undefined;
    if (!w) throw apiError("WALLET_NOT_FOUND", { details: { resource: "Wallet", id } });
    return w;
  }

  /** A label change's body, checked by the handler once the wallet is found (404 first). */
  const readPatch = (b: unknown) => () => patchOf(b);

  function patchOf(b: unknown): { label: string | null; labelGiven: boolean } {
    if (b === undefined || b === null || typeof b !== "object" || Array.isArray(b))
      throw apiError("VALIDATION_ERROR", { message: "The body must be a JSON object", details: { issues: [{ path: "", message: "must be a JSON object" }] } });
    const label = (b as { label?: unknown }).label;
    const labelGiven = "label" in (b as object);
    if (labelGiven && label !== null && typeof label !== "string")
      throw apiError("INVALID_FIELDS", { message: "label must be text or null", details: { fields: ["label"] } });
    return { label: labelGiven ? (label as string | null) : null, labelGiven };
  }

  async function tellCustomer(c: RouteContext, customerId: string, msg: Record<string, unknown>) {
    const o = await askActor<Wallet | { id: string; deleted: true }>(deps.runtime, `customer:${customerId}`, {
      ...msg,
      companyId: c.auth.company.id,
      environment: c.auth.environment,
      actor: c.auth.actor,
    });
    return unwrap(o);
  }

  return kit.group("/api/v2/wallets", (r) =>
    r
      .get(
        "/",
        {
          summary: "List wallets, newest first",
          access: read,
          tags: ["wallets"],
          query: { network: q.string(200), verified: q.bool(), customerId: q.id("cus"), search: q.string(200), limit: q.limit(100), cursor: q.cursor() },
        },
        async (c) => {
          const { company, environment } = c.auth;
          const f = { network: c.query.network, verified: c.query.verified, customerId: c.query.customerId, search: c.query.search };
          const res = await keysetPageAsync<Wallet>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `wallets|${JSON.stringify(f)}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.page(company.id, environment, f, after as [string, string] | null, n),
            position: (w) => [w.createdAt, w.id],
            total: () => repo.count(company.id, environment, f),
          });
          const rows: Wallet[] = [];
          for (const w of res.rows) rows.push(await asOf(w, c.now));
          return page(rows.map(presentWallet), res.meta);
        },
      )
      .post("/", { summary: "Register a customer's wallet (re-registering updates network and label)", access: { scope: "wallets:write", permission: "wallets:create" }, body: api.CreateWallet, read: readCreate, tags: ["wallets"] }, async (c) => {
        const { address, network, customerId, label } = c.body;
        if (!/^cus_[0-9a-z]{26}$/.test(customerId)) throw apiError("CUSTOMER_NOT_FOUND", { details: { resource: "Customer", id: customerId } });
        const { data, status } = await tellCustomer(c, customerId, { type: "registerWallet", walletId: newId("wal", c.now), address, network, label });
        return { status, data: presentWallet(data as Wallet) };
      })
      .post("/verify", { summary: "Is this address a registered, ownership-proven wallet?", access: { scope: "wallets:verify", permission: "wallets:verify" }, body: api.VerifyWallet, read: readVerify, tags: ["wallets"] }, async (c) => {
        const { address, network } = c.body;
        // Nothing is rejected by this call (Part 1): an address in no known format is simply not registered.
        const asked = typeof network === "string" && isSupportedNetwork(network) ? network : null;
        const canonical = asked ? canonicalAddress(asked, address as string) : null;
        const candidates = canonical?.ok ? [canonical.address, (address as string).trim()] : addressCandidates(address as string, SUPPORTED_NETWORKS);
        const found = (await repo.byAddresses(c.auth.company.id, c.auth.environment, candidates))[0];
        const w = found ? await asOf(found, c.now) : undefined;
        if (!w) return ok({ isRegistered: false, isVerified: false, walletType: "unknown" });
        const sameNetwork = typeof network !== "string" || network === w.network;
        return ok({ isRegistered: true, isVerified: w.verified && sameNetwork, walletType: "hosted", customerId: w.customerId });
      })
      .get("/:id", { summary: "One wallet", access: read, tags: ["wallets"] }, async (c) => ok(presentWallet(await asOf(await find(c, c.params.id), c.now))))
      .get("/:id/travel-address", { summary: "A Travel Address (TRP, provider_d) for a verified wallet of a customer with a verified identity: what its user gives the sending VASP", access: read, tags: ["wallets"] }, async (c) => {
        const w = await asOf(await find(c, c.params.id), c.now);
        const { company, environment } = c.auth;
        const settings = deps.providerSettings;
        const creds = (await settings.enabled(company.id, "provider_d")) ? await settings.credentials(company.id, environment, "provider_d") : null;
        const read = creds ? readProviderDConfig(creds, c.now) : null;
        const providerId = await settings.id(company.id, "provider_d");
        if (!read?.ok || !providerId) throw apiError("NOT_CONFIGURED", { message: `provider_d is not enabled with usable settings for the ${environment} environment` });
        if (!w.verified) throw apiError("INVALID_REQUEST", { message: "The wallet's ownership is not verified: a Travel Address is given for verified wallets only", details: { reason: "WALLET_NOT_VERIFIED" } });
        const customer = await deps.repositories.customers.get(company.id, environment, w.customerId);
        if (!hasVerifiedIdentity(customer)) throw apiError("INVALID_REQUEST", { message: "The wallet's customer has no verified identity", details: { reason: "VERIFIED_IDENTITY_REQUIRED" } });
        const expiresAt = Math.floor((c.now + TRAVEL_ADDRESS_TTL_MS) / 1000) * 1000;
        const token = walletToken(deps.masterKey.derive("provider_d-tokens"), company.id, environment, w.id, expiresAt);
        const url = `${read.config.baseUrl}/api/system/trp/provider_d/${environment}/${providerId}?t=i&ta=${token}`;
        return ok({ walletId: w.id, travelAddress: encodeTravelAddress(url), url, expiresAt: new Date(expiresAt).toISOString() });
      })
      .patch("/:id", { summary: "Change a wallet's label (only the label changes)", access: { scope: "wallets:write", permission: "wallets:update" }, body: api.PatchWallet, read: readPatch, tags: ["wallets"] }, async (c) => {
        const w = await find(c, c.params.id);
        const { label, labelGiven } = c.body();
        const { data } = await tellCustomer(c, w.customerId, { type: "updateWalletLabel", walletId: w.id, label, labelGiven });
        return ok(presentWallet(data as Wallet));
      })
      .delete("/:id", { summary: "Remove a wallet with its ownership proofs", access: { scope: "wallets:write", permission: "wallets:delete" }, tags: ["wallets"] }, async (c) => {
        const w = await find(c, c.params.id);
        const { data } = await tellCustomer(c, w.customerId, { type: "deleteWallet", walletId: w.id });
        return ok(data);
      }),
  );
}
