// The committed asset catalog snapshot (db/assets/catalog.json), loaded once; bundled by `bun build --compile`.
// A JSON import (not a file read) so Bun, Deno and the single executable all find it without a path at run time.
import raw from "../../../db/assets/catalog.json" with { type: "json" };
import { isSupportedNetwork } from "../../domain/networks/index.ts";
import type { Catalog } from "../../domain/assets/catalog.ts";

let loaded: Catalog | undefined;

/** The catalog, checked once: a snapshot that does not match its own header is a build fault, not a request fault. */
export function loadCatalog(): Catalog {
  if (loaded) return loaded;
  const c = raw as unknown as Catalog;
  if (!Array.isArray(c.assets) || c.assets.length !== c.assetCount) throw new Error("db/assets/catalog.json: assetCount does not match its assets");
  for (const a of c.assets) if (!isSupportedNetwork(a.network)) throw new Error(`db/assets/catalog.json: ${a.id} is on unsupported network ${a.network}`);
  loaded = c;
  return c;
}
