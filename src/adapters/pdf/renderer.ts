// The PDF renderer the API uses: documents are drawn in worker threads so the event loop keeps serving requests.
// One lane for documents with Chinese, Japanese or Korean text (big fonts: one at a time, another meanwhile is
// refused as busy, Part 2 PDF_RENDERER_BUSY) and one queued lane for the rest.
import type { ReportDocument } from "../../domain/reports/document.ts";

/**
 * The worker's module. From source (Bun, Deno): worker.ts beside this file. In a `bun build --compile`
 * executable this module is bundled into the executable's entry (`/$bunfs/root/<name>`), and worker.ts is an
 * entry point of its own (`bun run build` lists it) kept at its checkout path under the virtual root by
 * `--root .`, the same layout as the embedded database migrations (the SQLite engine's migrations module).
 */
function workerUrl(): string | URL {
  if (!import.meta.url.includes("/$bunfs/")) return new URL("./worker.ts", import.meta.url);
  return new URL("./src/adapters/pdf/worker.ts", import.meta.url).pathname;
}

export interface PdfRenderer {
  /** Renders; `cjk` documents are refused with RendererBusy while another is drawn. */
  render(doc: ReportDocument, o: { cjk: boolean }): Promise<Uint8Array>;
  close(): void;
}

export class RendererBusy extends Error {
  override name = "RendererBusy";
}

interface Pending {
  resolve(b: Uint8Array): void;
  reject(e: Error): void;
}

/** One worker thread; requests queue in order. Restarted after an error so a broken render leaves no state. */
class Lane {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  inFlight = 0;

  private start(): Worker {
    const w = new Worker(workerUrl(), { type: "module" });
    // An idle renderer never keeps the process alive (Bun; Deno has no unref on workers).
    (w as unknown as { unref?: () => void }).unref?.();
    w.onmessage = (e: MessageEvent<{ id: number; ok: boolean; bytes?: Uint8Array; error?: string }>) => {
      const p = this.pending.get(e.data.id);
      if (!p) return;
      this.pending.delete(e.data.id);
      if (e.data.ok) p.resolve(e.data.bytes!);
      else p.reject(new Error(`PDF render failed: ${e.data.error}`));
    };
    w.onerror = (e) => {
      e.preventDefault?.();
      for (const p of this.pending.values()) p.reject(new Error(`PDF worker failed: ${e.message}`));
      this.pending.clear();
      this.worker?.terminate();
      this.worker = null;
    };
    return w;
  }

  async render(doc: ReportDocument): Promise<Uint8Array> {
    this.worker ??= this.start();
    const id = this.next++;
    this.inFlight++;
    try {
      return await new Promise<Uint8Array>((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        this.worker!.postMessage({ id, doc });
      });
    } finally {
      this.inFlight--;
    }
  }

  close(): void {
    this.worker?.terminate();
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new Error("PDF renderer closed"));
    this.pending.clear();
  }
}

export class WorkerPdfRenderer implements PdfRenderer {
  private readonly cjk = new Lane();
  private readonly latin = new Lane();

  async render(doc: ReportDocument, o: { cjk: boolean }): Promise<Uint8Array> {
    if (!o.cjk) return this.latin.render(doc);
    // Checked and taken in the same tick: two requests cannot both see the lane free.
    if (this.cjk.inFlight > 0) throw new RendererBusy("a report with Chinese, Japanese or Korean text is being drawn");
    return this.cjk.render(doc);
  }

  close(): void {
    this.cjk.close();
    this.latin.close();
  }
}
