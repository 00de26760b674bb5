// Checks a signed provider_b request as the CodeVASP server does: origin, registered key, signature, datetime window, nonce replay.
import { verify } from "./crypto.ts";
import { HEADER, readDatetime, readNonce, readOrigin } from "./wire.ts";

/** PROVIDERS.md / Dev 03: a nonce repeated within ~100 s is refused; the datetime must fall inside the same window. */
export const REPLAY_WINDOW_MS = 100_000;

export type AuthResult =
  | { ok: true; entityId: string; publicKeyBase64: string }
  | { ok: false; status: number; errorType: string };

const refuse = (errorType: string, status = 422): AuthResult => ({ ok: false, status, errorType });

export class RequestAuth {
  // `<entityId>:<nonce>` → when it may be used again.
  private readonly seen = new Map<string, number>();

  constructor(
    /** The registered public key of a member, or null. */
    private readonly publicKeyOf: (entityId: string) => string | null,
    private readonly now: () => number,
  ) {}

  /**
   * Error types are CodeVASP's (Dev 10 - Returning Errors) except INVALID_HEADER_DATETIME, which its documents do
   * not name: the sandbox's own code for a datetime outside the window, so tests can tell it from a replay.
   */
  check(headers: Headers, body: Uint8Array): AuthResult {
    const datetime = headers.get(HEADER.datetime);
    const nonceText = headers.get(HEADER.nonce);
    const pubKey = headers.get(HEADER.pubKey);
    const signature = headers.get(HEADER.signature);
    const originText = headers.get(HEADER.origin);
    if (!datetime || !nonceText || !pubKey || !signature || !originText) return refuse("MISSING_HEADER_FIELD");
    const origin = readOrigin(originText);
    if (!origin) return refuse("ILLEGAL_FORMAT_OF_ORIGIN");
    const registered = origin.alliance === "code" ? this.publicKeyOf(origin.entityId) : null;
    if (!registered) return refuse("INVALID_ORIGIN");
    const nonce = readNonce(nonceText);
    if (nonce === null) return refuse("INVALID_MSG_FIELD_VALUE");
    const at = readDatetime(datetime);
    const now = this.now();
    if (at === null || Math.abs(now - at) > REPLAY_WINDOW_MS) return refuse("INVALID_HEADER_DATETIME");
    // Dev 02 §8: the server verifies with the key registered for the origin, not with whatever the header claims.
    if (pubKey !== registered || !verify(registered, datetime, body, nonce, signature)) return refuse("INVALID_HEADER_SIGNATURE");
    // Only after the signature, so that forged requests cannot use up a member's nonces.
    for (const [k, until] of this.seen) if (until <= now) this.seen.delete(k);
    const key = `${origin.entityId}:${nonce}`;
    if (this.seen.has(key)) return refuse("DUPLICATED_HEADER_NONCE");
    this.seen.set(key, now + REPLAY_WINDOW_MS);
    return { ok: true, entityId: origin.entityId, publicKeyBase64: registered };
  }
}
