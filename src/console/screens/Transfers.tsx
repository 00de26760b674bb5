// Held transfers: newest first, filter and search, a detail (parties, amounts, checks, the matched rule, history,
// linked case) and the confirmed actions accept, reject (reason + details) and retry (reason).
import { useEffect, useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { withQuery } from "../client.ts";
import { allows, useConsole, useModalState, useResource } from "../context.ts";
import { act, useSelection } from "../hooks.ts";
import { moveSelection, navOf } from "../keys.ts";
import { ago, cut, pad, shortTime } from "../format.ts";
import { stateTone, useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { Flow, type Step } from "../components/Flow.tsx";

const FILTERS = ["held", "failed", "all"] as const;
type Filter = (typeof FILTERS)[number];
export const REJECT_REASONS = ["BENE_NOT_FOUND", "BENE_NAME_MISMATCH", "SANCTIONS_MATCH", "HIGH_RISK", "COMPLIANCE_POLICY", "INVALID_DATA", "EXPIRED", "OTHER"];

export const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 4)}…${id.slice(-8)}` : id);

export function transferRow(t: any, width: number, now: number): string {
  const amount = `${t.amount} ${String(t.asset ?? "").split(/[:/]/).pop()}`;
  const bene = t.beneficiary?.address ?? "";
  const fixed = `${pad(shortId(t.id), 13)} ${pad(t.direction === "incoming" ? "in" : "out", 3)} ${pad(amount, 16, true)} ${pad(t.state, 9)} ${pad(t.status, 8)} ${pad(ago(t.createdAt, now), 4, true)} `;
  return fixed + cut(bene, Math.max(0, width - fixed.length));
}

export function transferLines(t: any, linked: any | null, piiMasked: boolean): Line[] {
  const L: Line[] = [];
  L.push({ text: `${t.id} · ${t.direction} · ${t.state} · verdict ${t.compliance?.status ?? "-"}`, bold: true, tone: stateTone(t.state) });
  L.push({ text: `Amount      ${t.amount} ${t.asset} on ${t.network}` });
  L.push({ text: `Originator  ${t.originator?.address ?? "-"}  VASP ${t.originator?.vaspName ?? t.originator?.vaspId ?? "-"}` });
  L.push({ text: `Beneficiary ${t.beneficiary?.address ?? "-"}  VASP ${t.beneficiary?.vaspName ?? t.beneficiary?.vaspId ?? "-"}` });
  L.push({ text: `Travel Rule ours ${t.status?.ours ?? "-"} · theirs ${t.status?.theirs ?? "-"}${t.txHash ? ` · tx ${t.txHash}` : ""}` });
  if (t.rejection) L.push({ text: `Rejected    ${t.rejection.reason}${t.rejection.details ? `: ${t.rejection.details}` : ""}`, tone: "bad" });
  L.push({ text: `Checks (${t.compliance?.total ?? 0})`, bold: true });
  for (const c of t.compliance?.checks ?? [])
    L.push({ text: `  ${c.integration ?? c.displayName} ${c.stage ?? ""} ${c.type ?? ""} ${c.status}${c.durationMs != null ? ` ${c.durationMs}ms` : ""}${c.error ? ` (${c.error})` : ""}`, tone: c.status === "error" ? "bad" : undefined });
  if (linked?.rule) L.push({ text: `  rule matched: ${linked.rule.name} (${linked.rule.category}, ${linked.rule.action}, ${linked.rule.severity})`, tone: "warn" });
  L.push({ text: "Linked case", bold: true });
  if (linked === null) L.push({ text: "  none", dim: true });
  else if (linked === undefined) L.push({ text: "  (needs cases:read)", dim: true });
  else L.push({ text: `  ${linked.caseNumber} ${linked.status} ${linked.priority}${linked.assignee ? ` → ${linked.assignee.email}` : ""}: ${linked.title}`, tone: stateTone(linked.priority) });
  L.push({ text: "History", bold: true });
  L.push({ text: `  ${shortTime(t.createdAt)} created` });
  for (const m of t.messages ?? []) L.push({ text: `  ${shortTime(m.timestamp)} ${m.direction} ${m.type}` });
  if (t.acceptedAt) L.push({ text: `  ${shortTime(t.acceptedAt)} accepted` });
  if (t.completedAt) L.push({ text: `  ${shortTime(t.completedAt)} completed` });
  if (piiMasked) L.push({ text: "personal data masked (role without pii:view)", dim: true });
  return L;
}

export function Transfers({ height, width, openCase }: { height: number; width: number; openCase?: (caseId: string) => void }) {
  const { client, me, modal, flash, now } = useConsole();
  const tone = useTone();
  const [filter, setFilter] = useState<Filter>("held");
  const [search, setSearch] = useState("");
  const [detail, setDetail] = useState(false);
  const [scroll, setScroll] = useState(0);
  const [flow, setFlow] = useModalState<"accept" | "reject" | "retry" | "search">();
  const list = useResource<any[]>(withQuery("/api/v2/transfers", { state: filter === "all" ? undefined : filter, search: search || undefined, limit: 100 }), ["transfer"]);
  const items = list.data ?? [];
  const [sel, setSel] = useSelection(items.length);
  const current = items[sel];
  const det = useResource<any>(detail && current ? `/api/v2/transfers/${current.id}` : null, ["transfer"]);
  const canCases = allows(me, "cases:read", "cases:view");
  const cases = useResource<any[]>(detail && current && canCases ? "/api/v2/cases?hasTransfer=true&limit=200" : null, ["case"]);
  const linkedId = useMemo(() => (cases.data ?? []).find((c) => c.transferIds?.includes(current?.id))?.id ?? null, [cases.data, current?.id]);
  const linked = useResource<any>(linkedId ? `/api/v2/cases/${linkedId}` : null, ["case"]);
  useEffect(() => setScroll(0), [current?.id, detail]);

  const page = Math.max(1, height - 3);
  const mayWrite = allows(me, "transfers:write", "transfers:update");
  useInput(
    (input, key) => {
      if (modal || flow) return;
      const nav = navOf(input, key);
      if (detail) {
        if (nav === "back") return setDetail(false);
        if (nav === "up" || nav === "down" || nav === "pageUp" || nav === "pageDown" || nav === "top") return setScroll((s) => Math.max(0, moveSelection(s, nav, 1000, page)));
      } else if (nav === "open" && current) return setDetail(true);
      else if (nav) return setSel((s) => moveSelection(s, nav, items.length, page));
      if (input === "f") return setFilter((f) => FILTERS[(FILTERS.indexOf(f) + 1) % FILTERS.length]);
      if (input === "/") return setFlow("search");
      if (input === "c" && linkedId && openCase) return openCase(linkedId);
      if ((input === "a" || input === "x" || input === "r") && current) {
        if (!mayWrite) return flash("✕ not allowed: the key needs transfers:write and the role transfers:update", "bad");
        setFlow(input === "a" ? "accept" : input === "x" ? "reject" : "retry");
      }
    },
    { isActive: !modal },
  );

  const run = (v: Record<string, string>) => {
    const t = current;
    const kind = flow;
    setFlow(null);
    if (kind === "search") {
      setSearch(v.search ?? "");
      setSel(0);
      return;
    }
    if (!t || !kind) return;
    const body =
      kind === "accept" ? (v.txHash ? { action: "accept", txHash: v.txHash } : { action: "accept" }) : kind === "reject" ? { action: "reject", status: "rejected", reason: v.reason, ...(v.details ? { details: v.details } : {}) } : { action: "retry", reason: v.reason };
    void act(flash, client.send<any>("PATCH", `/api/v2/transfers/${t.id}`, body), (d, m) => `${kind} ${shortId(t.id)}: ${m.previousState ?? t.state} → ${d.state}`).then(() => {
      list.reload();
      det.reload();
    });
  };

  const steps = (): Step[] => {
    const id = current ? shortId(current.id) : "";
    switch (flow) {
      case "search":
        return [{ kind: "text", name: "search", label: "Search transfers (ID, external ID, VASP ID, address; empty clears)", optional: true, max: 200, initial: search }];
      case "accept":
        return current?.direction === "outgoing"
          ? [
              { kind: "text", name: "txHash", label: "Blockchain transaction hash (32-byte hex)", max: 80 },
              { kind: "confirm", label: (v) => `Accept ${id} with tx ${v.txHash}?` },
            ]
          : [{ kind: "confirm", label: () => `Accept ${id} (${current?.amount} ${current?.asset})?` }];
      case "reject":
        return [
          { kind: "pick", name: "reason", label: "Reason", options: REJECT_REASONS.map((r) => ({ value: r, label: r })) },
          { kind: "text", name: "details", label: "Details (at most 500 characters)", optional: true, max: 500 },
          { kind: "confirm", label: (v) => `Reject ${id} with ${v.reason}?` },
        ];
      case "retry":
        return [
          { kind: "text", name: "reason", label: "Reason for the retry (kept for the record)", max: 500 },
          { kind: "confirm", label: () => `Queue ${id} again?` },
        ];
      default:
        return [];
    }
  };

  const header = `${pad("ID", 13)} ${pad("dir", 3)} ${pad("amount", 16, true)} ${pad("state", 9)} ${pad("verdict", 8)} ${pad("age", 4, true)} beneficiary`;
  const title = `Transfers · ${filter}${search ? ` · "${search}"` : ""} · ${list.meta.total ?? items.length} ${list.error ? "" : ""}`;
  const split = width >= 150 && detail;
  const listWidth = split ? Math.floor(width * 0.45) : width;
  const bodyHeight = height - 2;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {title}
        <Text color={tone("muted")}>{`  f filter · / search · Enter detail${mayWrite ? " · a accept · x reject · r retry" : ""}`}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {flow ? (
        <Flow title={flow === "search" ? "Search" : `${flow} transfer`} steps={steps()} onDone={run} onCancel={() => setFlow(null)} />
      ) : (
        <Box>
          {!detail || split ? (
            <Box width={listWidth} flexDirection="column">
              <List items={items} selected={sel} height={bodyHeight} width={listWidth} header={header} render={(t, w) => transferRow(t, w, now())} tone={(t) => tone(stateTone(t.state))} empty={list.loading ? "loading…" : `no ${filter === "all" ? "" : `${filter} `}transfers`} />
            </Box>
          ) : null}
          {detail ? (
            <Box flexDirection="column" paddingLeft={split ? 1 : 0} width={split ? width - listWidth : width}>
              {det.data ? <Lines lines={transferLines(det.data, canCases ? (linkedId ? (linked.data ?? { caseNumber: "…", status: "", priority: "", title: "" }) : null) : undefined, det.meta.piiMasked === true)} offset={scroll} height={bodyHeight} /> : <Text dimColor>{det.error ? `✕ ${det.error.code}: ${det.error.error}` : "loading…"}</Text>}
            </Box>
          ) : null}
        </Box>
      )}
    </Box>
  );
}
