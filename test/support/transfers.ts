// The outgoing transfer the end-to-end tests create most: Jane, a customer with a wallet at ORIGIN_ADDR, sends ETH
// to Richard at a beneficiary address.
import { JANE, RICHARD } from "./persons.ts";

/** Jane's wallet address (ethereum, a valid EIP-55 spelling). */
export const ORIGIN_ADDR = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/** A POST /api/v2/transfers body: 1 ETH from customer `customerId` at ORIGIN_ADDR to Richard; `extra` adds or overrides fields. */
export function janeToRichard(customerId: string, beneficiaryAddress: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    asset: "ETH",
    amount: "1",
    network: "ethereum",
    originatorCustomerId: customerId,
    originatorAddress: ORIGIN_ADDR,
    beneficiaryAddress,
    originator: { originatorPersons: [JANE] },
    beneficiary: { beneficiaryPersons: [RICHARD] },
    ...extra,
  };
}

/**
 * A POST /api/v2/transfers body below the FATF fallback (0.001 ETH from customer `customerId`, the originator Jane Jones
 * named inline): answered 201 and completed at once, with no Travel Rule exchange.
 */
export function smallTransfer(customerId: string): Record<string, unknown> {
  return {
    asset: "ETH",
    amount: "0.001",
    network: "ethereum",
    originatorCustomerId: customerId,
    beneficiaryAddress: ORIGIN_ADDR,
    originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: "Jones", secondaryIdentifier: "Jane", nameIdentifierType: "LEGL" }] }, countryOfResidence: "GB" } }] },
  };
}
