// Lays a report document out with jspdf: header, sections, narrative, risk indicators, footer with page numbers
// and the SHA-256 note, DRAFT watermark. Text is drawn run by run in the font that has its glyphs (fonts.ts).
import { jsPDF } from "jspdf";
import type { ReportDocument } from "../../domain/reports/document.ts";
import { fontBase64, fontFor, type FontName } from "./fonts.ts";

const PAGE = { w: 210, h: 297, margin: 18, footer: 14 };
const PT_TO_MM = 0.3528;
const FAMILY: Record<FontName, string> = { latin: "NotoSans", latinBold: "NotoSansBold", sc: "NotoSansSC", jp: "NotoSansJP", kr: "NotoSansKR" };

interface Run {
  font: FontName;
  text: string;
}

class Writer {
  readonly pdf: jsPDF;
  y = PAGE.margin;
  private readonly widths = new Map<string, number>();
  private current = "";

  constructor(fonts: ReadonlySet<FontName>) {
    this.pdf = new jsPDF({ unit: "mm", format: "a4", compress: true });
    for (const f of fonts) {
      this.pdf.addFileToVFS(`${FAMILY[f]}.ttf`, fontBase64(f));
      this.pdf.addFont(`${FAMILY[f]}.ttf`, FAMILY[f], "normal", "Identity-H");
    }
  }

  private use(font: FontName, size: number): void {
    const k = `${font}:${size}`;
    if (k === this.current) return;
    this.pdf.setFont(FAMILY[font], "normal");
    this.pdf.setFontSize(size);
    this.current = k;
  }

  /** Splits text into runs of one font; `bold` draws the Latin runs in the bold face. */
  runs(text: string, bold: boolean): Run[] {
    const out: Run[] = [];
    for (const ch of text) {
      let font: FontName = fontFor(ch);
      if (font === "latin" && bold) font = "latinBold";
      const last = out[out.length - 1];
      if (last && last.font === font) last.text += ch;
      else out.push({ font, text: ch });
    }
    return out;
  }

  private width(font: FontName, size: number, s: string): number {
    const k = `${font}:${size}:${s}`;
    let w = this.widths.get(k);
    if (w === undefined) {
      this.use(font, size);
      w = this.pdf.getTextWidth(s);
      if (s.length <= 2) this.widths.set(k, w);
    }
    return w;
  }

  /**
   * Greedy wrap to `maxWidth`: Latin breaks at spaces (a word longer than a line is cut), CJK between any
   * two characters. Returns lines of runs.
   */
  wrap(text: string, size: number, maxWidth: number, bold = false): Run[][] {
    const lines: Run[][] = [];
    for (const para of text.replace(/\r\n?/g, "\n").split("\n")) {
      // Tokens: a CJK character alone, or a Latin word with its trailing spaces.
      const tokens: Run[] = [];
      for (const r of this.runs(para, bold)) {
        if (r.font === "latin" || r.font === "latinBold") for (const w of r.text.match(/\S+\s*|\s+/g) ?? []) tokens.push({ font: r.font, text: w });
        else for (const ch of r.text) tokens.push({ font: r.font, text: ch });
      }
      let line: Run[] = [];
      let lw = 0;
      const push = (t: Run, w: number) => {
        const last = line[line.length - 1];
        if (last && last.font === t.font) last.text += t.text;
        else line.push({ ...t });
        lw += w;
      };
      for (const t of tokens) {
        const w = this.width(t.font, size, t.text.trimEnd());
        if (lw + w <= maxWidth || line.length === 0) {
          if (w > maxWidth && line.length === 0) {
            // A word longer than the line: cut it character by character.
            for (const ch of t.text) {
              const cw = this.width(t.font, size, ch);
              if (lw + cw > maxWidth && line.length) (lines.push(line), (line = []), (lw = 0));
              push({ font: t.font, text: ch }, cw);
            }
            continue;
          }
          push(t, this.width(t.font, size, t.text));
        } else {
          lines.push(line);
          line = [];
          lw = 0;
          push({ font: t.font, text: t.text.replace(/^\s+/, "") }, this.width(t.font, size, t.text));
        }
      }
      lines.push(line);
    }
    return lines;
  }

  drawLine(line: Run[], x: number, y: number, size: number): void {
    let cx = x;
    for (const r of line) {
      this.use(r.font, size);
      this.pdf.text(r.text, cx, y);
      cx += this.pdf.getTextWidth(r.text);
    }
  }

  ensure(height: number): void {
    if (this.y + height > PAGE.h - PAGE.margin - PAGE.footer) {
      this.pdf.addPage();
      this.y = PAGE.margin;
    }
  }

  paragraph(text: string, o: { size?: number; x?: number; width?: number; bold?: boolean; gap?: number } = {}): void {
    const size = o.size ?? 10;
    const x = o.x ?? PAGE.margin;
    const width = o.width ?? PAGE.w - PAGE.margin - x;
    const lh = size * PT_TO_MM * 1.45;
    for (const line of this.wrap(text, size, width, o.bold)) {
      this.ensure(lh);
      this.y += lh;
      this.drawLine(line, x, this.y, size);
    }
    this.y += o.gap ?? 1.5;
  }

  /** A label and its value side by side; the value wraps in its column. */
  row(label: string, value: string): void {
    const size = 9.5;
    const lh = size * PT_TO_MM * 1.45;
    const labelW = 62;
    const labels = this.wrap(label, size, labelW - 3, true);
    const values = this.wrap(value, size, PAGE.w - 2 * PAGE.margin - labelW);
    const n = Math.max(labels.length, values.length);
    for (let i = 0; i < n; i++) {
      this.ensure(lh);
      this.y += lh;
      this.pdf.setTextColor(90);
      if (labels[i]) this.drawLine(labels[i], PAGE.margin, this.y, size);
      this.pdf.setTextColor(0);
      if (values[i]) this.drawLine(values[i], PAGE.margin + labelW, this.y, size);
    }
    this.y += 1;
  }

  heading(text: string): void {
    this.ensure(14);
    this.y += 4;
    this.paragraph(text, { size: 12, bold: true, gap: 0.5 });
    this.pdf.setDrawColor(180);
    this.pdf.line(PAGE.margin, this.y, PAGE.w - PAGE.margin, this.y);
    this.y += 1;
  }
}

/** Every font a document needs: Latin always, each CJK font only when a character of it appears. */
export function fontsNeeded(doc: ReportDocument): Set<FontName> {
  const fonts = new Set<FontName>(["latin", "latinBold"]);
  const texts = [doc.title, doc.jurisdiction, doc.reportTo, doc.filingInstitution, doc.narrative, ...doc.riskIndicators, ...doc.missing, ...doc.sections.flatMap((s) => [s.heading, ...s.rows.flatMap((r) => [r.label, r.value])])];
  for (const t of texts) for (const ch of t) if (ch.charCodeAt(0) >= 0x1100) fonts.add(fontFor(ch));
  return fonts;
}

export function renderReportPdf(doc: ReportDocument): Uint8Array {
  const w = new Writer(fontsNeeded(doc));
  const pdf = w.pdf;
  pdf.setProperties({ title: `${doc.reportNumber} ${doc.title}`, subject: "Suspicion report", creator: "Caravan" });

  // Header.
  w.paragraph(doc.title, { size: 16, bold: true, gap: 1 });
  w.paragraph(`Report number ${doc.reportNumber}`, { size: 12, bold: true, gap: 3 });
  w.row("Jurisdiction", doc.jurisdiction);
  w.row("File with", doc.reportTo);
  w.row("Filing institution", doc.filingInstitution);
  w.row("Filing deadline", doc.deadline);
  w.row("Status", doc.draft ? `${doc.status} (not ready to file)` : doc.status);
  w.row("Generated at", doc.generatedAt);
  if (doc.missing.length) {
    w.heading("Missing for filing");
    for (const m of doc.missing) w.paragraph(`• ${m}`, { x: PAGE.margin + 2 });
  }

  for (const s of doc.sections) {
    w.heading(s.heading);
    for (const r of s.rows) w.row(r.label, r.value);
  }
  w.heading("Narrative");
  if (doc.narrativeIsPlaceholder) {
    pdf.setTextColor(170, 0, 0);
    w.paragraph("Not yet written by the reporting officer: this report cannot be filed with the text below.", { bold: true });
    pdf.setTextColor(0);
  }
  w.paragraph(doc.narrative || "—");
  w.heading("Risk indicators");
  if (doc.riskIndicators.length === 0) w.paragraph("—");
  for (const r of doc.riskIndicators) w.paragraph(`• ${r}`, { x: PAGE.margin + 2 });

  // Footer and watermark on every page, once the page count is known.
  const pages = pdf.getNumberOfPages();
  for (let p = 1; p <= pages; p++) {
    pdf.setPage(p);
    if (doc.draft) {
      pdf.saveGraphicsState();
      pdf.setGState(new (pdf as unknown as { GState: new (o: { opacity: number }) => unknown }).GState({ opacity: 0.12 }) as never);
      pdf.setFont("NotoSansBold", "normal");
      pdf.setFontSize(110);
      pdf.setTextColor(200, 0, 0);
      pdf.text("DRAFT", PAGE.w / 2, PAGE.h / 2 + 20, { align: "center", angle: 45 });
      pdf.restoreGraphicsState();
      pdf.setTextColor(0);
    }
    pdf.setFont("NotoSans", "normal");
    pdf.setFontSize(7.5);
    pdf.setTextColor(110);
    pdf.text(`${doc.reportNumber}${doc.draft ? " — DRAFT" : ""} · Page ${p} of ${pages}`, PAGE.margin, PAGE.h - 10);
    pdf.text(doc.footerNote, PAGE.margin, PAGE.h - 6.5);
    pdf.setTextColor(0);
  }
  return new Uint8Array(pdf.output("arraybuffer"));
}
