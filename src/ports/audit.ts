// The audit log in the domain's terms: who acts, the entry a change records (in the change's own unit of work), and
// the entries as the API reads them. Asynchronous like every port (src/ports/store.ts). The SQLite engine's AuditLog
// (storage's repos/audit.ts) implements it, and the storage contract suite holds every engine to it.
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

/** An audit entry as stored: its ID, its place in commit order (`seq`), the actor's fields as recorded (null when absent). */
export interface AuditEntry {
  id: string;
  /** Ascending in commit order within one engine: the keyset of the newest-first pages. */
  seq: number;
  companyId: string;
  environment: Environment;
  actor: { type: AuditActor["type"]; memberId: string | null; apiKeyId: string | null; sessionId: string | null };
  action: string;
  entityType: string;
  entityId: string;
  detail: Record<string, unknown>;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
}

export interface AuditFilter {
  entityType?: string;
  entityId?: string;
  action?: string;
  memberId?: string;
}

export interface AuditRepository {
  /** Appends an entry; its ID. Call inside the unit of work of the change it records. */
  record(e: AuditEntryInput, now: number): Promise<string>;
  get(companyId: string, environment: Environment, id: string): Promise<AuditEntry | undefined>;
  /** Newest first (by `seq`), only entries with `seq` below `beforeSeq`, at most `limit`. */
  page(companyId: string, environment: Environment, f: AuditFilter, beforeSeq: number | null, limit: number): Promise<AuditEntry[]>;
  count(companyId: string, environment: Environment, f: AuditFilter): Promise<number>;
}
