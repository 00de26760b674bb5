// Pure text helpers for rows that fit: truncation, padding, times, amounts (decimal strings shown as the API gave them).

/** Cuts to `width` display cells with an ellipsis. */
export function cut(s: string | null | undefined, width: number): string {
  const t = (s ?? "").replace(/\s+/g, " ");
  if (width <= 0) return "";
  if (t.length <= width) return t;
  return width === 1 ? "…" : `${t.slice(0, width - 1)}…`;
}

export function pad(s: string | null | undefined, width: number, right = false): string {
  const t = cut(s, width);
  return right ? t.padStart(width) : t.padEnd(width);
}

/** `2026-11-25T08:01:02.345Z` → `11-25 08:01`; null → `-`. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "-";
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

export function ago(iso: string | null | undefined, now: number): string {
  if (!iso) return "-";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

const BARS = "▁▂▃▄▅▆▇█";

/** One cell per value, scaled to the largest; zero is a space. */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => (v <= 0 || max === 0 ? " " : BARS[Math.min(7, Math.floor((v / max) * 7.999))])).join("");
}

/** Transfers per minute by state group over the last `minutes` minutes, oldest first. */
export function perMinute(items: { createdAt: string; state: string }[], now: number, minutes: number, group: (state: string) => string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const start = Math.floor(now / 60_000) - minutes + 1;
  for (const t of items) {
    const m = Math.floor(Date.parse(t.createdAt) / 60_000) - start;
    if (m < 0 || m >= minutes) continue;
    const g = group(t.state);
    let row = out.get(g);
    if (!row) out.set(g, (row = new Array(minutes).fill(0)));
    row[m]++;
  }
  return out;
}

export function stateGroup(state: string): string {
  if (state === "held") return "held";
  if (state === "completed" || state === "accepted") return "done";
  if (state === "rejected" || state === "failed" || state === "cancelled") return "refused";
  return "in flight";
}

/** The line a refusal shows: the API's own text, verbatim, with its code. */
export function refusal(r: { error: string; code: string }): string {
  return `${r.code}: ${r.error}`;
}
