// screening_c: the adapter and its wire helpers.
export { screeningC, SCREENING_C_TIMEOUT_MS, type ScreeningCOptions } from "./adapter.ts";
export { DEFAULT_URLS, parseRegionUrls, REGIONS, type Region } from "./wire.ts";
