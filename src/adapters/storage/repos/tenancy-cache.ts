// The authentication cache of the tenancy repositories, one piece for both engines (./tenancy.ts over SQLite,
// ../postgres/repos/tenancy.ts over PostgreSQL): keys by hash and companies by slug, bounded, and emptied before the
// next lookup when anything may have changed what a credential authenticates as.
//
// Two things empty it. A write in this process through any tenancy repository over the same store bumps the store's
// epoch (`changed`). A commit by another connection (the CLI in another process) moves the store's data version
// (`DataVersion`): SQLite's `PRAGMA data_version` (Storage.dataVersion), PostgreSQL's change notice
// (../postgres/notice.ts).
import { AUTH_CACHE_MAX, type Company, type KeyAuth } from "../../../ports/tenancy.ts";

/**
 * What tells a cache that another connection committed: a number that differs from the one read before when it may
 * have. SQLite's Storage is one (`PRAGMA data_version`); PostgreSQL's change notice is the other.
 */
export interface DataVersion {
  dataVersion(): number;
  /**
   * Whether an answer read under `snapshot` (the engine's text for what the read saw) is current although the data
   * version moved from `from` since the read began: every change counted since is one the read already saw.
   * Absent: no answer read across a move is kept (SQLite's reads in a cache fill are one synchronous turn).
   */
  vouches?(from: number, snapshot: string): boolean;
}

/** Where a fill began: see `CredentialCache.mark`. */
export interface FillMark {
  readonly generation: number;
  readonly epoch: number;
  readonly version: number;
}

const epochs = new WeakMap<object, { n: number }>();
function epochOf(store: object): { n: number } {
  let e = epochs.get(store);
  if (!e) epochs.set(store, (e = { n: 0 }));
  return e;
}

/** How often a key's last use is written, per key and process. */
const TOUCH_EVERY_MS = 60_000;

export class CredentialCache {
  private readonly keys = new Map<string, KeyAuth>(); // by key hash; LRU: oldest first
  private readonly companies = new Map<string, Company>(); // by slug
  private readonly touched = new Map<string, number>();
  private cachedEpoch = -1;
  private cachedVersion = -1;
  /** Moves each time the caches are emptied: a fill that began before an emptying is not kept. */
  private generation = 0;

  /** `store`: what the epoch is shared over (every repository over one database); `changes`: its data version. */
  constructor(
    private readonly store: object,
    private readonly changes: DataVersion,
  ) {}

  /** Empties every cache over this store before its next lookup. */
  changed(): void {
    epochOf(this.store).n++;
  }

  /** Empties the caches when this process or another connection changed the database since they were filled. */
  private fresh(): number {
    const e = epochOf(this.store).n;
    const v = this.changes.dataVersion();
    if (e !== this.cachedEpoch || v !== this.cachedVersion) {
      this.keys.clear();
      this.companies.clear();
      this.cachedEpoch = e;
      this.cachedVersion = v;
      this.generation++;
    }
    return this.generation;
  }

  /**
   * Take before the read whose answer `rememberKey`/`rememberCompany` keeps: an answer read across a change is
   * dropped (unless the data version vouches that the read saw the change already).
   */
  mark(): FillMark {
    return { generation: this.fresh(), epoch: this.cachedEpoch, version: this.cachedVersion };
  }

  private stillCurrent(mark: FillMark, snapshot: string | undefined): boolean {
    if (this.fresh() === mark.generation) return true;
    return snapshot !== undefined && this.cachedEpoch === mark.epoch && (this.changes.vouches?.(mark.version, snapshot) ?? false);
  }

  key(hash: string): KeyAuth | undefined {
    this.fresh();
    const hit = this.keys.get(hash);
    if (hit) {
      this.keys.delete(hash);
      this.keys.set(hash, hit);
    }
    return hit;
  }

  rememberKey(hash: string, rec: KeyAuth, mark: FillMark, snapshot?: string): void {
    if (!this.stillCurrent(mark, snapshot)) return;
    this.keys.set(hash, rec);
    if (this.keys.size > AUTH_CACHE_MAX) this.keys.delete(this.keys.keys().next().value!);
  }

  company(slug: string): Company | undefined {
    this.fresh();
    return this.companies.get(slug);
  }

  /** Companies are few; the cache is still bounded. */
  rememberCompany(slug: string, rec: Company, mark: FillMark, snapshot?: string): void {
    if (!this.stillCurrent(mark, snapshot)) return;
    if (this.companies.size >= AUTH_CACHE_MAX) this.companies.clear();
    this.companies.set(slug, rec);
  }

  /** Whether a key's last use is due to be written (at most once a minute per key, by this process). */
  touchDue(id: string, now: number): boolean {
    const last = this.touched.get(id);
    return last === undefined || now - last >= TOUCH_EVERY_MS;
  }

  /** True when the key's last use is due: it is then taken as written now. */
  touch(id: string, now: number): boolean {
    if (!this.touchDue(id, now)) return false;
    this.touched.set(id, now);
    if (this.touched.size > AUTH_CACHE_MAX) this.touched.delete(this.touched.keys().next().value!);
    return true;
  }
}
