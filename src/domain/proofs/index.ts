// Wallet ownership proofs without I/O: challenge texts, EIP-191 and BIP-137 signatures, proof status and verification.
export { CHALLENGE_TTL_MS, challengeMessage, newNonce, type ChallengeText } from "./challenge.ts";
export { personalMessageHash, evmAddressOf, parseEvmSignature, recoverEvmSigner } from "./eip191.ts";
export { bitcoinMessageHash, decodeHeader, parseBip137Signature, recoverBitcoinAddresses, bitcoinAddressOf, varint, type BitcoinAddressType } from "./bip137.ts";
export { signedSchemeFor, parseSignature, checkSigner, type SignedScheme, type ParsedSignature } from "./signed.ts";
export { explainUnmatched, judgeOwn, judgeSignedProof, type ChallengeView, type Judgement } from "./judge.ts";
export { OTHERS_LIMIT, OTHERS_WINDOW_MS, OWN_CHALLENGES, planSignedProof, type ChallengeReads, type SignedProofRequest } from "./plan.ts";
export { deriveVerification, effectiveStatus, parseExpiry, type ProofState, type ProofStatus, type Verification } from "./status.ts";
export { decideAttestation, decideChallenge, decideRevocation, proofRecord, type ProvenWallet } from "./decide.ts";
export type { Plan, ProofType, SignedEvidence, WalletChallenge, WalletProof } from "./records.ts";
