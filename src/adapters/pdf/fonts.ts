// The TTF fonts of report PDFs (SIL Open Font License 1.1, via @expo-google-fonts): Noto Sans for Latin, Greek and
// Cyrillic; Noto Sans SC, JP and KR for Han, kana and Hangul. Read once per process, as base64 for jspdf's VFS.
//
// Where they are read from: `loadFonts()` (awaited by the render worker and the in-process renderer before the
// first render) takes the paths of font-files.ts, which Bun embeds in a `bun build --compile` executable, so the
// single binary renders without node_modules. Where that module cannot load (Deno has no `file` import type),
// or before `loadFonts()` ran, the fonts are resolved in node_modules (running from a checkout).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cjkScript } from "../../domain/reports/report.ts";

export type FontName = "latin" | "latinBold" | "sc" | "jp" | "kr";

const PACKAGE_FILES: Record<FontName, string> = {
  latin: "@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf",
  latinBold: "@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf",
  sc: "@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf",
  jp: "@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf",
  kr: "@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf",
};

const cache = new Map<FontName, string>();
/** Paths from font-files.ts once loaded (embedded in the executable, node_modules from source under Bun). */
let embedded: Record<FontName, string> | null = null;
let loading: Promise<void> | null = null;

/**
 * Loads the embedded font paths (Bun, source or executable). Never rejects: where the module cannot be loaded
 * (Deno), fonts keep being resolved in node_modules.
 */
export function loadFonts(): Promise<void> {
  loading ??= import("./font-files.ts").then(
    (m) => void (embedded = m.FONT_FILES),
    () => undefined,
  );
  return loading;
}

/**
 * Where a font is read from: its embedded path when loaded, else the package file in node_modules. An executable
 * never falls back to node_modules (it must render from its own copies, wherever it is run).
 */
export function fontPath(name: FontName): string {
  if (embedded) return embedded[name];
  if (import.meta.url.includes("/$bunfs/")) throw new Error("the embedded report fonts are not loaded (await loadFonts() first)");
  return fileURLToPath(import.meta.resolve(PACKAGE_FILES[name]));
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) s += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(s);
}

export function fontBase64(name: FontName): string {
  let b = cache.get(name);
  if (b === undefined) {
    b = toBase64(readFileSync(fontPath(name)));
    cache.set(name, b);
  }
  return b;
}

/** The font that draws one character (the script table is the domain's: the same that picks the PDF lane). */
export function fontFor(ch: string): Exclude<FontName, "latinBold"> {
  return cjkScript(ch) ?? "latin";
}
