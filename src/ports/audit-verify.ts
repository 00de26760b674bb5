// The offline audit verifier (`caravan audit verify`) as the CLI sees it: a database file or a backup checked leaf by
// leaf and checkpoint by checkpoint, the first fault named. The SQLite engine implements it on the file, opened
// read-only; the composition root (src/main.ts) hands it to the command.

export interface KeptCheckpoint {
  /** Where it came from, for messages: a file name. */
  source: string;
  note: string;
}

export interface VerifyOptions {
  /** The keys to trust; null: the keys the database itself lists (weaker: an intruder can list his own). */
  trusted: Uint8Array[] | null;
  kept: KeptCheckpoint[];
  progress?: (line: string) => void;
  /** Leaves between progress lines. */
  progressEvery?: number;
  now?: () => number;
}

export interface LogResult {
  origin: string;
  leaves: number;
  checkpoints: number;
  /** Entries committed after the last leaf (the sealer had not reached them yet): not a fault. */
  unsealed: number;
}

export interface VerifyResult {
  ok: boolean;
  /** The first fault: `leaf <i> of <origin>: …` or `checkpoint <size> of <origin> (<source>): …`. */
  failure?: string;
  logs: LogResult[];
  entries: number;
  checkpoints: number;
  seconds: number;
  /** Seconds per million entries at the rate of this run (null for an empty log). */
  secondsPerMillion: number | null;
  trustedFrom: "--public-key" | "database";
}

/** Verifies the audit log of the database file `file`. */
export type AuditVerifier = (file: string, o: VerifyOptions) => Promise<VerifyResult>;
