// Worker entry: renders report documents off the server's event loop, one at a time; fonts stay cached here.
import type { ReportDocument } from "../../domain/reports/document.ts";
import { renderReportPdf } from "./render.ts";
import { loadFonts } from "./fonts.ts";
import { setPriority } from "node:os";
import process from "node:process";

// Drawing yields the CPU to the server: on Linux a thread has its own nice value and setPriority(0, …) sets only
// the calling thread's, so this worker runs at nice 19, the lowest, while the event loop keeps the process's
// (CARAVAN_PDF_NICE, 0–19; 0 renders at the server's own priority). Linux only: elsewhere setpriority(0) names the
// whole process, so other systems render at the default priority, as do systems that refuse it.
const nice = Number(process.env.CARAVAN_PDF_NICE ?? 19);
try {
  if (process.platform === "linux" && Number.isInteger(nice) && nice > 0 && nice <= 19) setPriority(0, nice);
} catch {
  // not permitted or not supported: render at normal priority
}

// The embedded fonts' paths (the single binary has no node_modules); every render waits for them.
const fontsReady = loadFonts();

self.onmessage = async (e) => {
  const { id, doc } = e.data;
  await fontsReady;
  try {
    const bytes = renderReportPdf(doc);
    self.postMessage({ id, ok: true, bytes }, [bytes.buffer as ArrayBuffer]);
  } catch (err) {
    self.postMessage({ id, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
};
