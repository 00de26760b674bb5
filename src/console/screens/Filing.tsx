// Filing: a suspicion report carried to filing from the console through Caravan's operator routes: edit the
// regulatory fields, jurisdiction and narrative, submit, approve by a second officer, file with the FIU's reference
// (what is still missing is listed first, and filing is not offered while anything is), and draft one by hand.
// The selection follows the report's ID, never its row.
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { allows, useConsole, useModalState, useResource } from "../context.ts";
import { act, navigateMasterDetail, useCommand, useSelectedId } from "../hooks.ts";
import { useListControls } from "../list-controls.tsx";
import type { Column } from "../table.ts";
import { whyNot } from "../access.ts";
import { navOf } from "../keys.ts";
import { pad, shortTime } from "../format.ts";
import { useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { Flow, type Step } from "../components/Flow.tsx";
import { NarrativeEditor } from "../components/NarrativeEditor.tsx";
import { shortId } from "./Transfers.tsx";
import { indicatorLines } from "../words.ts";
import { paths, type ReportDetail, type ReportListItem, type ReportReadiness } from "../api.ts";

type FlowKind = "field" | "narrative" | "submit" | "approve" | "file" | "draft";

/** The detail of a report with what filing still needs: the lines the officer reads before acting. */
export function filingLines(r: ReportListItem & Partial<ReportDetail>, ready: ReportReadiness | null, codes = false): Line[] {
  const L: Line[] = [
    { text: `${r.reportNumber} · ${r.label} · ${r.status} · jurisdiction ${r.jurisdiction ?? "not set"}`, bold: true },
    { text: `Transfer    ${r.transferId}` },
    { text: `Deadline    ${r.filingDeadline?.deadline?.slice(0, 10) ?? "-"}${r.filingDeadline?.isOverdue ? " (overdue)" : ""}`, tone: r.filingDeadline?.isOverdue && r.status !== "filed" ? "bad" : undefined },
  ];
  // Four eyes: the drafter is named, as they may not approve it.
  if (r.generatedBy && r.generatedBy !== "system") L.push({ text: `Drafted     by ${r.generatedByMember?.email ?? r.generatedBy}` });
  if (ready) {
    if (ready.submittedBy) L.push({ text: `Submitted   ${shortTime(ready.submittedAt)} by ${ready.submittedBy.email ?? ready.submittedBy.id}` });
    if (ready.approvedBy) L.push({ text: `Approved    ${shortTime(ready.approvedAt)} by ${ready.approvedBy.email ?? ready.approvedBy.id}` });
    if (ready.reportingThreshold) {
      const t = ready.reportingThreshold;
      L.push({ text: `Threshold   ${t.thresholdAmount} ${t.thresholdCurrency} (${t.countryCode}): ${t.reached === true ? "reached" : t.reached === false ? "not reached" : "not compared"}` });
    }
    const missing = ready.missing?.labels ?? [];
    if (r.status !== "filed") {
      L.push(missing.length ? { text: "Missing for filing", bold: true, tone: "warn" } : { text: "Ready to file: nothing missing", tone: "ok" });
      for (const m of missing) L.push({ text: `  • ${m}`, tone: "warn" });
    }
  }
  if (r.filingReference) L.push({ text: `Filed       ${shortTime(r.filedAt)} reference ${r.filingReference}`, tone: "ok" });
  L.push({ text: "Narrative", bold: true }, ...String(r.narrative ?? "-").split("\n").map((t) => ({ text: `  ${t}` })));
  L.push({ text: "Regulatory fields", bold: true });
  const data = r.regulatoryData ?? {};
  for (const f of ready?.fields ?? []) if (f.key !== "jurisdiction") L.push({ text: `  ${pad(f.label, 44)} ${data[f.key] ?? "—"}${f.required && !data[f.key] ? "  (required)" : ""}` });
  // In words, as on Reports; `c` shows each code beside its sentence.
  L.push(...indicatorLines(r.riskIndicators, codes));
  return L;
}

/** The list's columns: the filter (`/`, `:filter`) matches what they show, `<` `>` sort by them. */
export const filingColumns: Column<ReportListItem>[] = [
  { key: "report", title: "report", width: 26, text: (r) => r.reportNumber },
  { key: "status", title: "status", width: 14, text: (r) => r.status },
  { key: "jur", title: "jur", width: 4, text: (r) => r.jurisdiction ?? "--" },
  { key: "ready", title: "ready", width: 5, text: (r) => (r.filingReady ? "yes" : "no") },
  { key: "deadline", title: "deadline", width: 10, minTotal: 90, text: (r) => r.filingDeadline?.deadline?.slice(0, 10) ?? "-" },
  { key: "transfer", title: "transfer", width: 14, flex: true, text: (r) => r.transferId ?? "--" },
];

export function Filing({ height, width }: { height: number; width: number }) {
  const { client, modal, flash, me } = useConsole();
  const tone = useTone();
  const [openId, setOpenId] = useState<string | null>(null);
  const [scroll, setScroll] = useState(0);
  const [codes, setCodes] = useState(false);
  const [flow, setFlow] = useModalState<FlowKind>();
  const list = useResource<ReportListItem[]>(paths.reports({ limit: 200 }), ["case"], { pollMs: 10_000 });
  const items = useMemo(() => (list.data ?? []).filter((r) => r.status !== "filed"), [list.data]);
  // The selection is the report's ID: rows that arrive or leave do not move it to another report.
  const ctl = useListControls("filing", items, filingColumns, width - 1, { extra: (r) => `${r.id} ${r.label}` });
  useCommand((c) => ctl.onCommand(c));
  const selected = useSelectedId("filing", ctl.rows, false);
  const sel = selected.index;
  const current = selected.item ?? undefined;
  const targetId = openId ?? current?.id ?? null;
  // Reports send no stream events: an open report is read again as often as the list (another officer's step shows).
  const det = useResource<ReportDetail>(targetId && openId ? paths.report(targetId) : null, ["case"], { pollMs: 10_000 });
  const ready = useResource<ReportReadiness>(targetId && openId ? paths.reportReadiness(targetId) : null, ["case"], { pollMs: 10_000 });
  const target = openId ? (det.data ?? items.find((r) => r.id === openId)) : current;
  const page = Math.max(1, height - 3);
  const canWrite = allows(me, "strs:write", "strs:update");
  const cannot = whyNot(me, "strs:write", "strs:update");
  const refresh = () => {
    list.reload();
    det.reload();
    ready.reload();
  };

  useInput(
    (input, key) => {
      if (modal || flow) return;
      const nav = navOf(input, key);
      if (navigateMasterDetail(nav, { openId, setOpenId, setScroll, selected, page })) return;
      if (!openId && ctl.onKey(input)) return;
      if (input === "c" && openId) return setCodes((c) => !c);
      if (!"DensaF".includes(input) || !input) return;
      if (!canWrite) return flash(`✕ not allowed: ${cannot ?? "the key needs strs:write and the role strs:update"}`, "bad");
      if (input === "D") return setFlow("draft");
      if (!openId) {
        // On the list: the step acts on the selected report, opened so its readiness shows beside the prompt.
        if (!current) return flash("✕ no report selected: nothing to act on", "bad");
        setOpenId(current.id);
      }
      if (input === "e") return setFlow("field");
      if (input === "n") return setFlow("narrative");
      if (input === "s") return setFlow("submit");
      if (input === "a") {
        if (ready.data?.submittedBy?.id && ready.data.submittedBy.id === me?.member.id) return flash("✕ four eyes: you submitted this report; a second officer approves it", "bad");
        if (det.data?.generatedBy && det.data.generatedBy === me?.member.id) return flash("✕ four eyes: you drafted this report; another officer approves it", "bad");
        return setFlow("approve");
      }
      if (input === "F") {
        const missing: string[] = ready.data?.missing?.labels ?? [];
        if (missing.length) return flash(`✕ not filing-ready, missing: ${missing.join("; ")}`, "bad");
        return setFlow("file");
      }
    },
    { isActive: !modal },
  );

  const steps = (): Step[] => {
    const label = target ? `${target.reportNumber} (${target.id})` : "";
    switch (flow) {
      case "field": {
        const fields = ready.data?.fields ?? [];
        const data = (det.data?.regulatoryData ?? {}) as Record<string, unknown>;
        const now = (key: string) => (key === "jurisdiction" ? (target?.jurisdiction ?? "") : data[key] == null ? "" : String(data[key]));
        const nameOf = (key: string) => fields.find((f) => f.key === key)?.label ?? key;
        return [
          { kind: "pick", name: "key", label: `Field of ${label}`, options: fields.map((f) => ({ value: f.key, label: `${f.label}${f.required ? " *" : ""}: ${now(f.key) || "—"}` })) },
          {
            kind: "text",
            name: "value",
            label: (v) => `${nameOf(v.key)} of ${label}, now ${now(v.key) ? `"${now(v.key)}"` : "empty"} (edit it; empty clears${v.key === "jurisdiction" ? "; a country code" : ""})`,
            initial: (v) => now(v.key),
            optional: true,
            max: 2000,
          },
        ];
      }
      case "narrative":
        return [{ kind: "text", name: "narrative", label: `Narrative of ${label} (replaces the current one, including the draft placeholder)`, max: 60_000 }];
      case "submit":
        return [{ kind: "confirm", label: () => `Submit ${label} for review? A second officer approves it. (y/n)` }];
      case "approve":
        return [{ kind: "confirm", label: () => `Approve ${label} (submitted by ${ready.data?.submittedBy?.email ?? "another officer"})? (y/n)` }];
      case "file":
        return [
          { kind: "text", name: "reference", label: `FIU reference for ${label}`, max: 100 },
          { kind: "confirm", label: (v) => `Mark ${label} filed with reference ${v.reference}? This is final. (y/n)` },
        ];
      case "draft":
        return [
          { kind: "text", name: "transferId", label: "Draft a suspicion report for transfer (trf_…)", max: 40 },
          { kind: "text", name: "jurisdiction", label: "Jurisdiction (empty: the transfer's, else the company's)", optional: true, max: 2 },
          { kind: "confirm", label: (v) => `Draft a suspicion report for ${v.transferId}? (y/n)` },
        ];
      default:
        return [];
    }
  };

  const run = (v: Record<string, string>) => {
    const kind = flow;
    setFlow(null);
    if (!kind) return;
    if (kind === "draft") {
      const body = { transferId: v.transferId, ...(v.jurisdiction ? { jurisdiction: v.jurisdiction } : {}) };
      void act(flash, client.send<ReportDetail>("POST", paths.reports(), body), (d) => `drafted ${d.reportNumber} (${d.id}) for ${d.transferId}`).then((r) => {
        if (r.ok) {
          selected.select(r.data.id);
          setOpenId(r.data.id);
        }
        refresh();
      });
      return;
    }
    if (!target) return;
    const path = paths.report(target.id);
    const call =
      kind === "field"
        ? client.send<ReportDetail>("PATCH", path, v.key === "jurisdiction" ? { jurisdiction: v.value } : { fields: { [v.key]: v.value } })
        : kind === "narrative"
          ? client.send<ReportDetail>("PATCH", path, { narrative: v.narrative })
          : kind === "file"
            ? client.send<ReportDetail>("POST", `${path}/file`, { reference: v.reference })
            : client.send<ReportDetail>("POST", `${path}/${kind}`);
    void act(flash, call, (d) => `${d.reportNumber} ${kind === "field" || kind === "narrative" ? "edited" : kind === "file" ? `filed as ${d.filingReference}` : kind === "submit" ? "submitted for review" : "approved"} · ${d.status}`).then(refresh);
  };

  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Filing · ${items.length} not filed`}
        <Text color={tone("muted")}>{canWrite ? "  / filter · </> sort · Enter open · c codes · e field · n narrative · s submit · a approve · F file · D draft by hand" : `  read only: ${cannot} · / filter · Enter open · c codes`}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {openId || flow ? null : ctl.bar}
      {flow === "narrative" && target ? (
        <NarrativeEditor
          title={`Narrative of ${target.reportNumber} (${target.id}): what you write here; the facts Caravan recorded stay below it`}
          narrative={det.data?.narrative ?? null}
          height={height - 2}
          onSave={(narrative) => run({ narrative })}
          onCancel={() => setFlow(null)}
        />
      ) : flow ? (
        <Flow title={flow === "draft" ? "Draft by hand" : `${flow} report`} steps={steps()} onDone={run} onCancel={() => setFlow(null)} />
      ) : openId ? (
        det.data ? <Lines lines={filingLines(det.data, ready.data, codes)} offset={scroll} height={height - 2} width={width - 1} /> : <Text dimColor>{det.error ? `✕ ${det.error.code}: ${det.error.error}` : "loading…"}</Text>
      ) : (
        <List
          items={ctl.rows}
          selected={sel}
          height={height - 2 - (ctl.bar ? 1 : 0)}
          width={width}
          header={ctl.header}
          render={(r) => ctl.render(r)}
          tone={(r) => tone(r.filingDeadline?.isOverdue ? "bad" : r.filingReady ? "ok" : undefined)}
          empty={list.loading ? "loading…" : list.error ? "" : ctl.filter ? `no report matching "${ctl.filter}"` : "no report waiting to be filed"}
        />
      )}
    </Box>
  );
}
