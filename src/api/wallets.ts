// Wallets: the registry of customers' addresses, and the "is this address ours?" check.
import { Type, type Static } from "@sinclair/typebox";
import { Answer, Body, Iso, Nullable, OneOf } from "./common.ts";

// ---- requests ----
export const CreateWallet = Body({
  address: Type.String(),
  network: Type.String(),
  customerId: Type.String(),
  label: Type.Optional(Nullable(Type.String())),
});
export type CreateWallet = Static<typeof CreateWallet>;
export const VerifyWallet = Body({ address: Type.String(), network: Type.Optional(Nullable(Type.String())) });
export const PatchWallet = Body({ label: Type.Optional(Nullable(Type.String())) });

export const walletExamples = {
  create: { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", network: "ethereum", customerId: "cus_01jd0000000000000000000000", label: "Main wallet" },
  verify: { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", network: "ethereum" },
  patch: { label: "Cold storage" },
};

// ---- answers ----
export const Wallet = Answer({
  id: Type.String({ pattern: "^wal_[0-9a-z]{26}$" }),
  address: Type.String(),
  network: Type.String(),
  customerId: Type.String(),
  label: Nullable(Type.String()),
  verified: Type.Boolean(),
  verifiedAt: Nullable(Iso),
  environment: OneOf(["test", "live"]),
  createdAt: Iso,
  updatedAt: Iso,
});
export type Wallet = Static<typeof Wallet>;

export const WalletCheck = Answer({
  isRegistered: Type.Boolean(),
  isVerified: Type.Boolean(),
  walletType: OneOf(["hosted", "unknown"]),
  customerId: Type.Optional(Type.String()),
});
export type WalletCheck = Static<typeof WalletCheck>;

/** A Travel Address (TRP, provider_d) for a verified wallet: what its user gives the sending VASP, valid until expiresAt. */
export const TravelAddress = Answer({
  walletId: Type.String(),
  travelAddress: Type.String({ pattern: "^ta" }),
  url: Type.String(),
  expiresAt: Iso,
});
export type TravelAddress = Static<typeof TravelAddress>;
