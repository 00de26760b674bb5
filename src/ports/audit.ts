// Who acts, as every audited change records it: part of the storage ports (src/ports/), in the domain's terms.
import type { Environment } from "../domain/types.ts";

export interface AuditActor {
  type: "member" | "system" | "provider";
  memberId?: string | null;
  apiKeyId?: string | null;
  /** The console session a member acted through. */
  sessionId?: string | null;
}

/** One audit entry as a change records it (in the change's own transaction). */
export interface AuditEntryInput {
  companyId: string;
  environment: Environment;
  actor: AuditActor;
  action: string;
  entityType: string;
  entityId: string;
  /** Small, without personal data. */
  detail?: Record<string, unknown>;
}
