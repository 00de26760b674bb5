// The challenge text a wallet's key signs: it names the wallet, address and network, a random nonce and the expiry.
import { bytesToHex } from "@noble/hashes/utils.js";

/** 15 minutes: long enough to open a wallet app and sign, short enough that a leaked text soon proves nothing. */
export const CHALLENGE_TTL_MS = 15 * 60 * 1000;

export interface ChallengeText {
  /** Who asks (the company's name): the signer should know to whom they prove control. */
  issuer: string;
  walletId: string;
  address: string;
  network: string;
  /** 128 random bits as hex: no two challenges have the same text. */
  nonce: string;
  expiresAt: string;
}

export function newNonce(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

/** One line of text whatever the company's name holds (control characters and runs of space folded, 100 characters). */
function oneLine(s: string): string {
  return s.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ").trim().slice(0, 100) || "Caravan";
}

/** Lines joined by "\n" exactly: wallets sign the bytes as given, so the text must not depend on the platform. */
export function challengeMessage(c: ChallengeText): string {
  return [
    `Wallet ownership proof for ${oneLine(c.issuer)}`,
    "",
    "I control this address. Signing this message moves no funds.",
    "",
    `Wallet: ${c.walletId}`,
    `Address: ${c.address}`,
    `Network: ${c.network}`,
    `Nonce: ${c.nonce}`,
    `Expires: ${c.expiresAt}`,
  ].join("\n");
}
