// provider_a callback (Part 3 "provider_a callback", Authentication 2): POST /api/system/trp/provider_a/<environment>/<providerId>.
// Checks in order (the shared intake): company → provider of the company, enabled, credentials → 256 KiB and JSON →
// Standard Webhooks signature (5 minutes) → budget → version, entity, transfer ID, message, processed before → read
// the provider's transfer → hand it to the transfer's actor (or create the incoming transfer first); recorded as
// processed only after success.
import { Elysia } from "elysia";
import type { Repositories } from "../../ports/repositories.ts";
import type { ProviderRegistry } from "../../adapters/providers/registry.ts";
import type { Environment } from "../../domain/types.ts";
import { newId } from "../../domain/ids.ts";
import { readJsonCapped, type JsonRead } from "../../adapters/net/read.ts";
import { hmacSha256, sha256Hex } from "../../adapters/crypto/hash.ts";
import { json } from "../kit.ts";
import { budgetStep, companyStep, runIntake, type Intake, type IntakeBase, type ProviderCallbackDeps } from "./intake.ts";
import { signedHeaders, verify } from "../../domain/provider_a/signature.ts";
import { readEvent } from "../../domain/provider_a/events.ts";
import { agentChainOk, agentOf, carries, chainOf, roleOf, type ProviderTx } from "../../domain/provider_a/transfer.ts";
import { failed, type ProviderA } from "../../adapters/providers/provider_a/adapter.ts";
import { validateAddress } from "../../domain/networks/index.ts";
import type { EventResult } from "../../actors/flows/provider_a.ts";
import type { ProviderAIncomingOutcome } from "../../actors/provider_a-incoming.ts";
import type { Outcome } from "../../actors/outcome.ts";

/** Part 3, Limits: "provider_a callback body 256 KiB". */
export const MAX_CALLBACK_BODY = 256 * 1024;
export const CALLBACK_PATH = "/api/system/trp/provider_a/:environment/:providerId";
const PROVIDER_ACTOR = { type: "provider" as const };
/** A flow may call the provider three times (15 s each) and screen: the callback waits that long for its answer. */
const PROCESS_TIMEOUT_MS = 60_000;

const unavailable = () => json(503, { error: "Provider unavailable" });
const failure = (code: string) => json(503, { error: code });

/** Wallet addresses in their canonical registry forms for an address and memo. */
function candidates(address: string, memo: string | null): string[] {
  if (!memo) return [address];
  const m = encodeURIComponent(memo);
  return [`${address}?dt=${m}`, `${address}?memo=${m}`, `${address}?tag=${m}`];
}

/** What the intake has read so far. */
interface Call extends IntakeBase {
  now?: number;
  connect?: () => ReturnType<ProviderA["connect"]>;
  body?: Extract<JsonRead, { ok: true }>;
  connected?: Extract<ReturnType<ProviderA["connect"]>, { ok: true }>;
  headers?: ReturnType<typeof signedHeaders>;
  providerTransferId?: string;
  key?: Parameters<Repositories["providerA"]["processed"]>[0];
  tx?: ProviderTx;
}

/** What provider_a's callbacks need besides the intake's. */
export interface ProviderACallbackDeps extends ProviderCallbackDeps {
  readonly repositories: Pick<Repositories, "providerA" | "wallets">;
  readonly providers: ProviderRegistry;
}

export function providerACallbacks(services: ProviderACallbackDeps) {
  const store = services.repositories.providerA;

  async function tellTransfer(id: string, companyId: string, environment: Environment, tx: ProviderTx): Promise<EventResult> {
    const r = await services.runtime.ask<EventResult | Outcome>(`transfer:${id}`, { type: "providerEvent", provider: "provider_a", event: { kind: "event", tx }, companyId, environment, actor: PROVIDER_ACTOR }, { timeoutMs: PROCESS_TIMEOUT_MS });
    if (r.ok) return { ok: true, state: (r as { state?: string }).state ?? "" };
    return { ok: false, code: (r as { code: string }).code };
  }

  /** Incoming steps 1–2: a verified wallet of a customer with a verified identity, else nothing is created (503). */
  async function createIncoming(companyId: string, environment: Environment, tx: ProviderTx, did: string): Promise<{ id: string } | { code: string }> {
    if (!agentChainOk(tx)) return { code: "UNSUPPORTED_AGENT_CHAIN" };
    const asset = services.catalog.assets.find((a) => a.id === tx.asset);
    if (!asset || !carries(asset.network)) return { code: "UNSUPPORTED_ASSET" };
    // The settlement address on the asset's chain, in the registry's canonical spelling (EIP-55 for EVM), then its tagged forms.
    if (tx.beneficiaryAddress === null || (tx.beneficiaryChain !== null && tx.beneficiaryChain !== chainOf(asset.id))) return { code: "BENEFICIARY_WALLET_NOT_VERIFIED" };
    const valid = validateAddress(asset.network, tx.beneficiaryAddress);
    if (!valid.ok) return { code: "BENEFICIARY_WALLET_NOT_VERIFIED" };
    const wallets = (await services.repositories.wallets.byAddresses(companyId, environment, candidates(valid.address, tx.memo))).filter((w) => w.network === asset.network);
    if (wallets.length !== 1 || !wallets[0].verified) return { code: "BENEFICIARY_WALLET_NOT_VERIFIED" };
    const w = wallets[0];
    const origin = agentOf(tx, "ORIGINATOR")!;
    const us = agentOf(tx, "BENEFICIARY")!;
    const r = await services.runtime.ask<Outcome<ProviderAIncomingOutcome>>(
      `customer:${w.customerId}`,
      {
        type: "receiveProviderAIncoming",
        companyId,
        environment,
        actor: PROVIDER_ACTOR,
        transfer: {
          id: newId("trf", services.clock()),
          providerTransferId: tx.id,
          walletId: w.id,
          asset: asset.aliases[0] ?? asset.name,
          assetId: asset.id,
          amount: tx.amount,
          network: asset.network,
          beneficiaryAddress: w.address,
          originatorAddress: tx.originatorAddress,
          originatorPersons: tx.ivms101.originator?.originatorPersons ?? [],
          beneficiaryPersons: tx.ivms101.beneficiary?.beneficiaryPersons ?? [],
          originatorVasp: { id: origin.did, name: origin.name },
          beneficiaryVasp: { id: did, name: us.name },
        },
      },
      { timeoutMs: PROCESS_TIMEOUT_MS },
    );
    if (!r.ok) return { code: "Webhook processing failed" };
    if (!r.data.transfer) return { code: r.data.refused ?? "BENEFICIARY_WALLET_NOT_VERIFIED" };
    return { id: r.data.transfer.id };
  }

  // The callback's intake (Part 3, provider_a callback): provider, size, signature, budget, the event's shape, the
  // provider's status (never taken from the event), then the transfer's actor.
  const intake: Intake<Call> = {
    provider: "provider_a",
    failed: () => failure("Webhook processing failed"),
    steps: [
      ["company", companyStep(services)],
      [
        "provider",
        // The company's provider, enabled, with credentials for the path's environment.
        async (c) => {
          const company = c.company!;
          const settings = services.providerSettings;
          const providerId = decodeURIComponent(c.params.providerId ?? "");
          if (company.status !== "active" || !(await settings.enabled(company.id, "provider_a")) || (await settings.id(company.id, "provider_a")) !== providerId) return unavailable();
          c.now = services.clock();
          const ctx = await services.providers.context(company.id, c.environment, "provider_a", c.now);
          const adapter = services.providers.adapter("provider_a") as ProviderA | undefined;
          if (!ctx || !adapter) return unavailable();
          c.connect = () => adapter.connect(ctx);
        },
      ],
      [
        "size",
        // 256 KiB, counted while reading, then JSON nested at most 32 deep: refused by the reader, before the
        // signature or anything else looks at the body.
        async (c) => {
          const body = await readJsonCapped(c.request, MAX_CALLBACK_BODY);
          if (!body.ok) return body.reason === "too_large" ? json(413, { error: "Body too large" }) : json(400, { error: "Invalid JSON" });
          c.body = body;
        },
      ],
      [
        "signature",
        // Standard Webhooks signature with webhookSecret, timestamp within five minutes.
        (c) => {
          const connected = c.connect!();
          if (!connected.ok) return failure("INVALID_CONFIGURATION");
          c.connected = connected;
          c.headers = signedHeaders(c.request.headers);
          if (!verify(connected.settings.webhookSecret, c.headers, c.body!.bytes, c.now!, hmacSha256).ok) return json(401, { error: "Invalid signature" });
        },
      ],
      // Accepted callbacks count toward the company's request budget (shared with /api/v2).
      ["budget", budgetStep(services, (headers) => json(429, { error: "Rate limit exceeded", code: "RATE_LIMITED" }, headers))],
      [
        "shape",
        // The event: version 1.0.0, for our entity, a provider transfer ID; then its message. Processed before
        // (entity, message ID, body): answered again, nothing done.
        async (c) => {
          const did = c.connected!.settings.vaspDid;
          const event = readEvent(c.body!.value, did);
          if (event.kind === "invalid") {
            services.log("warn", "provider_a event not understood", { path: event.path });
            return json(400, { error: "Invalid event or entity" });
          }
          if (event.kind === "ignored") return json(200, { ignored: true });
          c.providerTransferId = event.providerTransferId;
          c.key = { companyId: c.company!.id, environment: c.environment, entity: did, messageId: c.headers!.id!, bodySha256: sha256Hex(c.body!.bytes) };
          if (await store.processed(c.key)) return json(200, { received: true });
        },
      ],
      [
        "status",
        // The status is never taken from the event: the transfer is read from the provider.
        async (c) => {
          const read = await c.connected!.client.getTx(c.providerTransferId!);
          if (!read.ok) return failure(failed(read.code));
          if (read.body.id !== c.providerTransferId) return failure("Webhook processing failed");
          c.tx = read.body;
        },
      ],
      ["actor", (c) => toActor(c)],
    ],
  };

  /** The transfer's actor takes the provider's transfer (the incoming transfer created first); then recorded as processed. */
  async function toActor(c: Call): Promise<Response> {
    const { company, environment } = { company: c.company!, environment: c.environment };
    const tx = c.tx!;
    const did = c.connected!.settings.vaspDid;
    let transfer = await store.byProviderTransferId(company.id, environment, tx.id);
    // A lost answer at creation: the transfer is found by our reference and bound by this event.
    // Our side is found by our DID among the transfer's VASP agents.
    const ours = roleOf(tx, did);
    if (!transfer && tx.ref && ours === "ORIGINATOR") {
      const mine = await store.outgoingByRef(company.id, environment, tx.ref);
      if (mine && mine.providerExternalId === null) transfer = mine;
    }
    let id = transfer?.id;
    if (!id) {
      if (ours !== "BENEFICIARY" || agentOf(tx, "ORIGINATOR")?.did === did) return failure("UNKNOWN_TRANSFER");
      const created = await createIncoming(company.id, environment, tx, did);
      if ("code" in created) return failure(created.code);
      id = created.id;
    }
    const result = await tellTransfer(id, company.id, environment, tx);
    if (!result.ok) return failure(result.code === "Provider unavailable" ? "Webhook processing failed" : result.code);
    await store.record(c.key!, tx.id, id, services.clock());
    return json(200, { received: true });
  }

  const app = new Elysia({ name: "provider_a-callbacks", normalize: false });
  app.post(CALLBACK_PATH, (({ request, params }: { request: Request; params: Record<string, string> }) => runIntake(services, intake, request, params ?? {}, (b) => ({ ...b }))) as never, { parse: "none" } as never);
  return app;
}
