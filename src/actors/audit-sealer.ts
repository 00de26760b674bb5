// The server's audit sealer: every second it gives committed audit entries their leaves (the port's seal, the one
// place leaf indexes are assigned), and every CARAVAN_AUDIT_CHECKPOINT_SECONDS (300 by default) it signs a checkpoint
// of each tree that grew, sent to webhook subscribers as `audit.checkpoint`. Both run on the server's thread between
// requests; a fault is logged and the next turn tries again (nothing is lost: unsealed entries stay in order). With
// several nodes only the leader's sealer turns (`leads`): sealing and signing take the store's lock in turn, so two
// nodes never assign a leaf or sign a tree size twice anyway, but one signer keeps the checkpoints at one interval.
import type { AuditSealing, SigningKey } from "../ports/audit-tree.ts";
import type { Logger } from "../adapters/log.ts";

export interface AuditSealerOptions {
  trees: AuditSealing;
  /** The current signing key (re-read after a rotation by another process). */
  key: () => Promise<SigningKey>;
  clock: () => number;
  log: Logger;
  checkpointMs: number;
  sealMs?: number;
  announce: (seqs: number[]) => void;
  /** Several nodes: whether this node leads now (the turns pass on the others). Absent: always. */
  leads?: () => boolean;
}

export interface AuditSealer {
  /** Seals now and signs a checkpoint of every tree that grew (what the interval does). */
  checkpointNow(): Promise<void>;
  stop(): void;
}

export function startAuditSealer(o: AuditSealerOptions): AuditSealer {
  let lastCheckpoint = o.clock();
  const checkpointNow = async () => {
    // The next try waits a whole interval, also after a failure (a missing key is logged once an interval, not every second).
    lastCheckpoint = o.clock();
    const { eventSeqs } = await o.trees.checkpoint(await o.key(), o.clock());
    o.announce(eventSeqs);
  };
  // One turn at a time: a turn still waiting for the connection when the interval fires again is not doubled.
  let turning = false;
  const tick = async () => {
    if (turning || (o.leads && !o.leads())) return;
    turning = true;
    try {
      await o.trees.seal();
      if (o.clock() - lastCheckpoint >= o.checkpointMs) await checkpointNow();
    } catch (e) {
      o.log("warn", "audit sealing failed; retried on the next turn", { error: e instanceof Error ? e.message : String(e) });
    } finally {
      turning = false;
    }
  };
  const timer = setInterval(() => void tick(), Math.min(o.sealMs ?? 1_000, o.checkpointMs));
  (timer as { unref?: () => void }).unref?.();
  return {
    checkpointNow,
    stop: () => clearInterval(timer),
  };
}
