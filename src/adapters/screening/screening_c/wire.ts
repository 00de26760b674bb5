// screening_c's wire (ComplyAdvantage-style, ../shared/PROVIDERS.md): regions and their base addresses, the search body,
// and the shape a search answer must have to count (Part 3 "screening_c screening", response mapping). Pure.

export const REGIONS = ["eu", "us", "apac"] as const;
export type Region = (typeof REGIONS)[number];

/**
 * The vendor's documented regional API roots ("use the appropriate ComplyAdvantage root regional API URL",
 * https://docs.complyadvantage.com/api-docs/): EU is the original root api.complyadvantage.com, US and APAC have their own hosts.
 */
export const DEFAULT_URLS: Readonly<Record<Region, string>> = Object.freeze({
  eu: "https://api.complyadvantage.com",
  us: "https://api.us.complyadvantage.com",
  apac: "https://api.ap.complyadvantage.com",
});

export const DEFAULT_REGION: Region = "eu";
export const DEFAULT_FUZZINESS = "0.6";
/** Part 3: `limit` 100 hits per search, `share_url` 0, `filters.entity_type` person for every name. */
export const SEARCH_LIMIT = 100;

export function isRegion(v: string): v is Region {
  return (REGIONS as readonly string[]).includes(v);
}

/**
 * `CARAVAN_SCREENING_C_URLS` = `eu=<origin>,us=<origin>,apac=<origin>` (any subset; the rest keep the defaults).
 * Each value must be an http(s) origin without path, query, fragment or credentials. Throws RangeError otherwise.
 */
export function parseRegionUrls(text: string | undefined): Record<Region, string> {
  const urls: Record<Region, string> = { ...DEFAULT_URLS };
  if (!text || text.trim() === "") return urls;
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue;
    const eq = entry.indexOf("=");
    const region = (eq < 0 ? entry : entry.slice(0, eq)).trim();
    const value = eq < 0 ? "" : entry.slice(eq + 1).trim();
    if (!isRegion(region)) throw new RangeError(`CARAVAN_SCREENING_C_URLS: unknown region "${region}" (eu, us or apac)`);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new RangeError(`CARAVAN_SCREENING_C_URLS: ${region} is not a URL`);
    }
    const plain = (url.pathname === "/" || url.pathname === "") && !url.search && !url.hash && !url.username && !url.password;
    if ((url.protocol !== "https:" && url.protocol !== "http:") || !plain)
      throw new RangeError(`CARAVAN_SCREENING_C_URLS: ${region} must be an http(s) origin without path, query or credentials`);
    urls[region] = url.origin;
  }
  return urls;
}

/** The saved `fuzziness` as a number from 0 to 1 (plain decimal notation), or null when it is not one. Blank means the default. */
export function parseFuzziness(saved: string | undefined): number | null {
  const text = saved === undefined || saved.trim() === "" ? DEFAULT_FUZZINESS : saved.trim();
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}

/** The saved `region` exactly as the settings list it (`eu`, `us`, `apac`); blank means the default (EU); anything else is null. */
export function parseRegion(saved: string | undefined): Region | null {
  const text = saved === undefined || saved.trim() === "" ? DEFAULT_REGION : saved.trim();
  return isRegion(text) ? text : null;
}

export interface SearchBody {
  search_term: string;
  fuzziness: number;
  filters: { entity_type: "person" };
  limit: number;
  share_url: 0;
}

export function searchBody(term: string, fuzziness: number): SearchBody {
  return { search_term: term, fuzziness, filters: { entity_type: "person" }, limit: SEARCH_LIMIT, share_url: 0 };
}

export type SearchVerdict = { ok: true } | { ok: false; code: "INVALID_RESPONSE" } | { ok: false; code: "INCOMPLETE_RESULTS" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A search answer counts when it has `status: success` with `content.data.total_hits` and `content.data.hits`, each hit with
 * `doc.name`, `doc.types` and a score; a hit count other than `total_hits` is an incomplete result (Part 3).
 */
export function judgeSearch(body: unknown): SearchVerdict {
  if (!isObject(body) || body.status !== "success" || !isObject(body.content) || !isObject(body.content.data)) return { ok: false, code: "INVALID_RESPONSE" };
  const data = body.content.data;
  const total = data.total_hits;
  if (typeof total !== "number" || !Number.isInteger(total) || total < 0 || !Array.isArray(data.hits)) return { ok: false, code: "INVALID_RESPONSE" };
  for (const hit of data.hits) {
    if (!isObject(hit) || !isObject(hit.doc) || typeof hit.score !== "number" || !Number.isFinite(hit.score)) return { ok: false, code: "INVALID_RESPONSE" };
    if (typeof hit.doc.name !== "string" || !Array.isArray(hit.doc.types) || !hit.doc.types.every((t) => typeof t === "string")) return { ok: false, code: "INVALID_RESPONSE" };
  }
  if (data.hits.length !== total) return { ok: false, code: "INCOMPLETE_RESULTS" };
  return { ok: true };
}

/** The connection test's answer: `status: success` and a `content.data` list. */
export function isUsersAnswer(body: unknown): boolean {
  return isObject(body) && body.status === "success" && isObject(body.content) && Array.isArray(body.content.data);
}
