// Reports: drafts and deadlines (daysRemaining, overdue in red), a detail, and the PDF downloaded to a path.
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { useConsole, useKept, useModalState, useResource } from "../context.ts";
import { navigateMasterDetail, useCommand, useSelectedId, useYank } from "../hooks.ts";
import { useListControls } from "../list-controls.tsx";
import type { Column } from "../table.ts";
import { navOf } from "../keys.ts";
import { pad, refusal, shortTime } from "../format.ts";
import { useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { Flow } from "../components/Flow.tsx";
import { paths, type ReportDetail, type ReportListItem, type TransferValuation } from "../api.ts";
import { valuationLines } from "../components/evidence-lines.ts";
import { allows } from "../context.ts";
import { indicatorLines } from "../words.ts";

const FILTERS = ["open", "drafts", "all"] as const;
type Filter = (typeof FILTERS)[number];

/** Writes the file (the console's one local side effect); injectable for tests. */
export type SaveFile = (path: string, bytes: Uint8Array) => Promise<void>;
const defaultSave: SaveFile = async (path, bytes) => {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(path, bytes);
};

export function deadlineText(r: { status: string; filingDeadline?: Pick<NonNullable<ReportListItem["filingDeadline"]>, "daysRemaining" | "isOverdue"> | null }): string {
  const d = r.filingDeadline;
  if (!d || r.status === "filed") return "filed";
  if (d.isOverdue) return `overdue ${Math.abs(d.daysRemaining)}d`;
  return `${d.daysRemaining}d left`;
}

export function reportLines(r: ReportListItem & Partial<ReportDetail>, valuation?: TransferValuation | null, codes = false): Line[] {
  const d: Partial<NonNullable<ReportListItem["filingDeadline"]>> = r.filingDeadline ?? {};
  const L: Line[] = [
    { text: `${r.reportNumber} · ${r.label} · ${r.status} · ${r.jurisdiction}`, bold: true },
    // The deadline as the rule states it, filed with the FIU (the supervisor is not who receives the report).
    { text: `Deadline    ${d.deadline?.slice(0, 10) ?? "-"} (${deadlineText(r)}; ${d.regulation ?? ""})${r.reportTo ? ` · file with ${r.reportTo}` : ""}`, tone: d.isOverdue && r.status !== "filed" ? "bad" : d.isApproaching ? "warn" : undefined },
    { text: `Transfer    ${r.transferId ?? "-"}` },
    ...valuationLines(valuation && valuation.transferId === r.transferId ? valuation : undefined),
    { text: `Drafted     ${shortTime(r.generatedAt)} by ${r.generatedByMember?.email ?? r.generatedBy} · ${r.detectionMethod}` },
    { text: `Filing      ${r.filingReady ? "ready" : "not ready (the PDF is marked DRAFT)"}${r.filedAt ? ` · filed ${shortTime(r.filedAt)} ref ${r.filingReference}` : ""}` },
    { text: "Narrative", bold: true },
    ...String(r.narrative ?? "-").split("\n").map((t) => ({ text: `  ${t}` })),
    // In words; `c` shows each code beside its sentence (free text an officer wrote reads as written).
    ...indicatorLines(r.riskIndicators, codes),
  ];
  return L;
}

/** The list's columns: the filter (`/`, `:filter`) matches what they show, `<` `>` sort by them. */
export const reportColumns: Column<ReportListItem>[] = [
  { key: "report", title: "report", width: 26, text: (r) => r.reportNumber },
  { key: "status", title: "status", width: 14, text: (r) => r.status },
  { key: "jur", title: "jur", width: 3, text: (r) => r.jurisdiction ?? "--" },
  { key: "deadline", title: "deadline", width: 11, text: (r) => r.filingDeadline?.deadline?.slice(0, 10) ?? "-", sort: (r) => r.filingDeadline?.deadline ?? "9" },
  { key: "days", title: "days", width: 12, text: (r) => deadlineText(r), sort: (r) => r.filingDeadline?.deadline ?? "9" },
  { key: "transfer", title: "transfer", width: 14, flex: true, text: (r) => r.transferId ?? "-" },
];

export function Reports({ height, width, save = defaultSave }: { height: number; width: number; save?: SaveFile }) {
  const { client, modal, flash } = useConsole();
  const tone = useTone();
  const [filter, setFilter] = useKept<Filter>("reports.filter", "open");
  const [openId, setOpenId] = useKept<string | null>("reports.open", null);
  const [scroll, setScroll] = useState(0);
  const [codes, setCodes] = useState(false);
  const [asking, setAsking] = useModalState<"pdf" | "goaml">();
  const list = useResource<ReportListItem[]>(paths.reports({ limit: 200, status: filter === "drafts" ? "draft" : undefined }), ["case"], { pollMs: 10_000 });
  const items = useMemo(() => {
    const all = list.data ?? [];
    const shown = filter === "open" ? all.filter((r) => r.status !== "filed") : all;
    return [...shown].sort((a, b) => String(a.filingDeadline?.deadline ?? "9").localeCompare(String(b.filingDeadline?.deadline ?? "9")));
  }, [list.data, filter]);
  const ctl = useListControls("reports", items, reportColumns, width - 1, { extra: (r) => `${r.id} ${r.filingReference ?? ""} ${r.label}` });
  useCommand((c) => ctl.onCommand(c));
  const selected = useSelectedId("reports", ctl.rows, openId !== null);
  const sel = selected.index;
  const current = selected.item ?? undefined;
  const yank = useYank();
  const det = useResource<ReportDetail>(openId ? paths.report(openId) : null);
  const { me } = useConsole();
  const value = useResource<TransferValuation>(openId && det.data?.transferId && allows(me, "transfers:read", "transfers:view") ? paths.transferValuation(det.data.transferId) : null, [], { pollMs: 60_000 });
  const page = Math.max(1, height - 3);
  useInput(
    (input, key) => {
      if (modal || asking) return;
      const nav = navOf(input, key);
      if (navigateMasterDetail(nav, { openId, setOpenId, setScroll, selected, page })) return;
      if (!openId && ctl.onKey(input)) return;
      if (input === "y") return yank(openId ?? current?.id);
      if (input === "c" && openId) return setCodes((c) => !c);
      if (input === "f") return setFilter((f) => FILTERS[(FILTERS.indexOf(f) + 1) % FILTERS.length]);
      if (input === "d" && (openId || current)) setAsking("pdf");
      // goAML XML for an FIU that takes it (the API says which, and refuses a report not yet filing-ready).
      if (input === "x" && (openId || current)) setAsking("goaml");
    },
    { isActive: !modal },
  );
  const target = openId ? (det.data ?? items.find((r) => r.id === openId)) : current;
  const download = (v: Record<string, string>) => {
    const kind = asking;
    setAsking(null);
    if (!target) return;
    void client.download(kind === "goaml" ? paths.reportGoaml(target.id) : `/api/v2/reports/${target.id}/download?format=pdf`).then(async (r) => {
      if (!r.ok) return flash(`✕ ${refusal(r)}`, "bad");
      try {
        await save(v.path, r.bytes);
        flash(`✓ saved ${v.path} (${r.bytes.length} bytes, sha256 ${(r.headers.get("x-content-sha256") ?? "").slice(0, 12)}…)`, "ok");
      } catch (e) {
        flash(`✕ could not write ${v.path}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`, "bad");
      }
    });
  };
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Reports · ${filter} · ${ctl.filter ? `${ctl.rows.length} of ` : ""}${items.length}`}
        <Text color={tone("muted")}>{"  f open/drafts/all · / filter · </> sort · Enter detail · d PDF · x goAML XML"}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {openId ? null : ctl.bar}
      {asking ? (
        <Flow
          title={asking === "goaml" ? "Export goAML XML" : "Download PDF"}
          steps={[{ kind: "text", name: "path", label: `Save ${target?.reportNumber ?? "the report"}${asking === "goaml" ? " as goAML XML" : ""} to`, initial: `./${target?.reportNumber ?? "report"}${asking === "goaml" ? ".goaml.xml" : ".pdf"}`, max: 1000 }]}
          onDone={download}
          onCancel={() => setAsking(null)}
        />
      ) : openId ? (
        det.data ? <Lines lines={reportLines(det.data, value.data, codes)} offset={scroll} height={height - 2} width={width - 1} /> : <Text dimColor>{det.error ? `✕ ${det.error.code}: ${det.error.error}` : "loading…"}</Text>
      ) : (
        <List
          items={ctl.rows}
          selected={sel}
          height={height - 2 - (ctl.bar ? 1 : 0)}
          width={width}
          header={ctl.header}
          render={(r) => ctl.render(r)}
          tone={(r) => tone(r.status === "filed" ? undefined : r.filingDeadline?.isOverdue ? "bad" : r.filingDeadline?.isApproaching ? "warn" : undefined)}
          empty={list.loading ? "loading…" : list.error ? "" : ctl.filter ? `no reports matching "${ctl.filter}"` : "no reports"}
        />
      )}
    </Box>
  );
}
