// The sandbox provider_b network's members: counterparty VASPs (keys, health, wallets, deny list, customers) and Caravan's entries.
import type { CountryCode, Person } from "../../domain/ivms101/types.ts";
import { newSeedBase64, publicKeyOf as verifyKeyOf } from "./crypto.ts";
import { accountOf, type DenyReason, type VaspEntry } from "./wire.ts";

export interface SandboxWallet {
  address: string;
  tag?: string;
  /** Key into the VASP's `customers`: whose wallet it is. */
  customer: string;
}

export interface SandboxDenied {
  address: string;
  tag?: string;
  /** Why transfers to it are denied; default SANCTION_LIST. */
  reasonType?: DenyReason;
}

export interface SandboxVaspInput {
  entityId: string;
  /** `vaspName` in the directory; default the entity ID. */
  name?: string;
  /** `vaspLegalName`, and the legal person in BeneficiaryVASP; default `<name> Ltd.` */
  legalName?: string;
  country: CountryCode;
  /** Its Ed25519 seed (base64); random when absent. */
  seedBase64?: string;
  health?: "up" | "down";
  allianceName?: string;
  /** Customer key → that customer's IVMS101 persons (sent back as beneficiaryPersons). */
  customers?: Record<string, Person[]>;
  wallets?: SandboxWallet[];
  deny?: SandboxDenied[];
  /** `expiresAt` of its key in the directory; default a year from start. */
  keyExpiresAt?: string;
}

export interface SandboxVasp {
  entityId: string;
  name: string;
  legalName: string;
  country: CountryCode;
  seedBase64: string;
  publicKeyBase64: string;
  health: "up" | "down";
  allianceName: string;
  customers: Map<string, Person[]>;
  wallets: SandboxWallet[];
  deny: SandboxDenied[];
  keyExpiresAt: string;
}

/** Caravan as registered with the network (by the test or the demo). */
export interface CaravanEntry {
  entityId: string;
  publicKeyBase64: string;
  /** Caravan's host; callbacks go to `<callbackBaseUrl>/api/system/trp/provider_b/<env>/connections/<providerId>/…`. */
  callbackBaseUrl: string;
  name: string;
  legalName: string;
  country: CountryCode;
}

export type AccountLookup =
  | { kind: "wallet"; wallet: SandboxWallet; persons: Person[] }
  | { kind: "denied"; reasonType: DenyReason }
  | { kind: "unknown" };

// EVM-style hex addresses are case-insensitive (EIP-55 case is only a checksum); everything else is compared exactly.
const sameAccount = (a: string, b: string) => (/^0x[0-9a-f]+(:|$)/i.test(a) ? a.toLowerCase() === b.toLowerCase() : a === b);

export class Directory {
  readonly vasps = new Map<string, SandboxVasp>();
  readonly caravans = new Map<string, CaravanEntry>();
  private lastCaravan: string | null = null;

  constructor(private readonly now: () => number) {}

  add(input: SandboxVaspInput): SandboxVasp {
    if (this.vasps.has(input.entityId) || this.caravans.has(input.entityId)) throw new Error(`entity ${input.entityId} already in the directory`);
    const seedBase64 = input.seedBase64 ?? newSeedBase64();
    const name = input.name ?? input.entityId;
    const vasp: SandboxVasp = {
      entityId: input.entityId,
      name,
      legalName: input.legalName ?? `${name} Ltd.`,
      country: input.country,
      seedBase64,
      publicKeyBase64: verifyKeyOf(seedBase64),
      health: input.health ?? "up",
      allianceName: input.allianceName ?? "code",
      customers: new Map(Object.entries(input.customers ?? {})),
      wallets: [...(input.wallets ?? [])],
      deny: [...(input.deny ?? [])],
      keyExpiresAt: input.keyExpiresAt ?? new Date(this.now() + 365 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
    for (const w of vasp.wallets) this.checkCustomer(vasp, w.customer);
    this.vasps.set(vasp.entityId, vasp);
    return vasp;
  }

  /** Caravan's own entry: replaces an earlier one with the same entity ID; the latest is the default callback target. */
  registerCaravan(entry: { entityId: string; publicKeyBase64: string; callbackBaseUrl: string; name?: string; legalName?: string; country?: CountryCode }): CaravanEntry {
    if (this.vasps.has(entry.entityId)) throw new Error(`entity ${entry.entityId} is a sandbox VASP`);
    const c: CaravanEntry = {
      entityId: entry.entityId,
      publicKeyBase64: entry.publicKeyBase64,
      callbackBaseUrl: entry.callbackBaseUrl.replace(/\/+$/, ""),
      name: entry.name ?? "caravan",
      legalName: entry.legalName ?? "Caravan",
      country: entry.country ?? "US",
    };
    this.caravans.set(c.entityId, c);
    this.lastCaravan = c.entityId;
    return c;
  }

  vasp(entityId: string): SandboxVasp {
    const v = this.vasps.get(entityId);
    if (!v) throw new Error(`no sandbox VASP ${entityId}`);
    return v;
  }

  caravan(entityId?: string): CaravanEntry {
    const id = entityId ?? this.lastCaravan;
    const c = id ? this.caravans.get(id) : undefined;
    if (!c) throw new Error(entityId ? `Caravan entity ${entityId} is not registered` : "registerCaravan() first");
    return c;
  }

  /** The registered public key of any member (a VASP or Caravan), for signature checks. */
  publicKeyOf(entityId: string): string | null {
    return this.vasps.get(entityId)?.publicKeyBase64 ?? this.caravans.get(entityId)?.publicKeyBase64 ?? null;
  }

  setHealth(entityId: string, health: "up" | "down"): void {
    this.vasp(entityId).health = health;
  }

  /** A new key pair for the VASP (the old key stops working at once): tests the INVALID_RECEIVER_PUBLIC_KEY re-read. */
  rotateKey(entityId: string, seedBase64: string = newSeedBase64()): string {
    const v = this.vasp(entityId);
    v.seedBase64 = seedBase64;
    v.publicKeyBase64 = verifyKeyOf(seedBase64);
    return v.publicKeyBase64;
  }

  addWallet(entityId: string, wallet: SandboxWallet): void {
    const v = this.vasp(entityId);
    this.checkCustomer(v, wallet.customer);
    v.wallets.push(wallet);
  }

  addCustomer(entityId: string, key: string, persons: Person[]): void {
    this.vasp(entityId).customers.set(key, persons);
  }

  addDenied(entityId: string, denied: SandboxDenied): void {
    this.vasp(entityId).deny.push(denied);
  }

  /** What the VASP knows of an account number (`address` or `address:memo`): the deny list wins over its wallets. */
  lookup(vasp: SandboxVasp, account: string): AccountLookup {
    const denied = vasp.deny.find((d) => sameAccount(accountOf(d.address, d.tag), account));
    if (denied) return { kind: "denied", reasonType: denied.reasonType ?? "SANCTION_LIST" };
    const wallet = vasp.wallets.find((w) => sameAccount(accountOf(w.address, w.tag), account));
    if (!wallet) return { kind: "unknown" };
    return { kind: "wallet", wallet, persons: vasp.customers.get(wallet.customer) ?? [] };
  }

  /** Every VASP whose wallets or deny list hold the account (v2 discovery searches all members). */
  holders(account: string): SandboxVasp[] {
    return [...this.vasps.values()].filter((v) => this.lookup(v, account).kind !== "unknown");
  }

  /** `GET /v1/code/vasps`: the sandbox VASPs and Caravan's entries, as CodeVASP lists its members. */
  entries(): VaspEntry[] {
    const farFuture = "2099-12-31T23:59:59Z";
    return [
      ...[...this.vasps.values()].map((v) => ({
        vaspEntityId: v.entityId,
        vaspName: v.name,
        vaspLegalName: v.legalName,
        countryOfRegistration: v.country,
        health: v.health,
        allianceName: v.allianceName,
        pubkeys: [{ pubkey: v.publicKeyBase64, expiresAt: v.keyExpiresAt }],
      })),
      ...[...this.caravans.values()].map((c) => ({
        vaspEntityId: c.entityId,
        vaspName: c.name,
        vaspLegalName: c.legalName,
        countryOfRegistration: c.country,
        health: "up" as const,
        allianceName: "code",
        pubkeys: [{ pubkey: c.publicKeyBase64, expiresAt: farFuture }],
      })),
    ];
  }

  private checkCustomer(v: SandboxVasp, customer: string): void {
    if (!v.customers.has(customer)) throw new Error(`VASP ${v.entityId} has no customer ${customer}`);
  }
}
