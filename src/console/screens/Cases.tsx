// Cases: mine / open / all by priority; a detail with notes and history that follows the case live; add a note,
// assign, resolve (approved or rejected, with a note) showing meta.transferAction and then the transfer_updated entry.
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

const VIEWS = ["mine", "open", "all"] as const;
type View = (typeof VIEWS)[number];
const RANK: Record<string, number> = { high: 0, medium: 1, low: 2 };

/** By priority (high first), then newest first: the order the API gave within a priority. */
export function byPriority<T extends { priority: string }>(items: T[]): T[] {
  return items.map((c, i) => ({ c, i })).sort((a, b) => (RANK[a.c.priority] ?? 3) - (RANK[b.c.priority] ?? 3) || a.i - b.i).map((x) => x.c);
}

export function caseRow(c: any, width: number, now: number): string {
  const who = c.assignee ? (c.assignee.email ?? c.assignee.name) : "-";
  // Under 100 columns the title keeps its room: status and type give way (the detail has them).
  const wide = width >= 100;
  const fixed = `${pad(c.caseNumber, 22)} ${pad(c.priority, 6)} ${wide ? `${pad(c.status, 6)} ${pad(c.type, 17)} ` : ""}${pad(who, 14)} ${pad(ago(c.createdAt, now), 4, true)} `;
  return fixed + cut(c.title, Math.max(0, width - fixed.length));
}

export const caseHeader = (width: number) =>
  `${pad("case", 22)} ${pad("prio", 6)} ${width >= 100 ? `${pad("status", 6)} ${pad("type", 17)} ` : ""}${pad("assignee", 14)} ${pad("age", 4, true)} title`;

export function transferActionText(a: any): string {
  if (a == null) return "no held transfer to move";
  if (a.result === "queued") return `transfer ${a.transferId} queued`;
  return `transfer ${a.transferId} ${a.result} (${a.reason})`;
}

export function caseLines(c: any, piiMasked: boolean, action: any | undefined): Line[] {
  const L: Line[] = [];
  L.push({ text: `${c.caseNumber} · ${c.status}${c.resolution ? ` ${c.resolution}` : ""} · ${c.priority} · ${c.type} / ${c.category} · ${c.source}`, bold: true, tone: stateTone(c.resolution ?? c.priority) });
  L.push({ text: `Title       ${c.title}` });
  if (c.description) L.push({ text: `Description ${c.description}` });
  L.push({ text: `Assignee    ${c.assignee ? c.assignee.email : "nobody"} · opened ${shortTime(c.createdAt)} by ${c.createdBy?.email ?? "system"}` });
  if (c.rule) L.push({ text: `Rule        ${c.rule.name} (${c.rule.category}, ${c.rule.action}, ${c.rule.severity})`, tone: "warn" });
  for (const t of c.transfers ?? []) L.push({ text: `Transfer    ${t.id} ${t.direction} ${t.amount} ${t.asset} · ${t.state} · verdict ${t.complianceStatus}`, tone: stateTone(t.state) });
  if (!c.transfers && c.transferIds?.length) L.push({ text: `Transfers   ${c.transferIds.join(", ")}` });
  if (c.status === "closed") L.push({ text: `Resolved    ${c.resolution} ${shortTime(c.resolvedAt)} by ${c.resolvedBy?.email ?? "-"}${c.resolutionNote ? `: ${c.resolutionNote}` : ""}` });
  if (action !== undefined) L.push({ text: `Transfer action: ${transferActionText(action)}`, tone: action?.result === "queued" ? "ok" : "warn" });
  L.push({ text: `Notes (${c.noteCount ?? (c.notes ?? []).length})`, bold: true });
  for (const n of c.notes ?? []) L.push({ text: `  ${shortTime(n.createdAt)} ${n.author?.email ?? n.authorId}: ${n.content}` });
  L.push({ text: `History (${c.historyCount ?? (c.history ?? []).length})`, bold: true });
  for (const h of c.history ?? []) {
    const change = h.field ? ` ${h.field}${h.oldValue != null ? ` ${h.oldValue} →` : ""} ${h.newValue ?? ""}` : h.newValue != null ? ` ${h.newValue}` : "";
    L.push({ text: `  ${shortTime(h.createdAt)} ${h.action}${change} · ${h.user?.email ?? "system"}`, tone: h.action === "transfer_updated" ? "ok" : h.action === "transfer_not_updated" ? "bad" : undefined });
  }
  if (piiMasked) L.push({ text: "personal data masked (role without pii:view)", dim: true });
  return L;
}

export function Cases({ height, width, focus }: { height: number; width: number; focus?: string | null }) {
  const { client, me, modal, flash, now } = useConsole();
  const tone = useTone();
  const [view, setView] = useState<View>("open");
  const [search, setSearch] = useState("");
  const [openId, setOpenId] = useState<string | null>(null);
  const [scroll, setScroll] = useState(0);
  const [flow, setFlow] = useModalState<"note" | "assign" | "resolve" | "search">();
  const [actions, setActions] = useState<Record<string, any>>({});
  useEffect(() => {
    if (focus) setOpenId(focus);
  }, [focus]);
  const query = { status: view === "all" ? undefined : "open", assigneeId: view === "mine" ? "me" : undefined, search: search || undefined, limit: 200 };
  const list = useResource<any[]>(withQuery("/api/v2/cases", query), ["case"]);
  const items = useMemo(() => byPriority(list.data ?? []), [list.data]);
  const [sel, setSel] = useSelection(items.length);
  const current = items[sel];
  // A resolution's transfer outcome arrives later as a history entry: follow the case closely until it does.
  const waiting = openId !== null && actions[openId]?.result === "queued";
  const det = useResource<any>(openId ? `/api/v2/cases/${openId}` : null, ["case", "transfer"]);
  const settled = (det.data?.history ?? []).some((h: any) => h.action === "transfer_updated" || h.action === "transfer_not_updated");
  useEffect(() => {
    if (!waiting || settled) return;
    const id = setInterval(det.reload, 500);
    return () => clearInterval(id);
  }, [waiting, settled, det.reload]);
  useEffect(() => setScroll(0), [openId]);

  const page = Math.max(1, height - 3);
  const target = openId ?? current?.id ?? null;
  useInput(
    (input, key) => {
      if (modal || flow) return;
      const nav = navOf(input, key);
      if (openId) {
        if (nav === "back") return setOpenId(null);
        if (nav && nav !== "open" && nav !== "bottom") return setScroll((s) => Math.max(0, moveSelection(s, nav, 1000, page)));
      } else if (nav === "open" && current) return setOpenId(current.id);
      else if (nav) return setSel((s) => moveSelection(s, nav, items.length, page));
      if (input === "v") {
        setView((v) => VIEWS[(VIEWS.indexOf(v) + 1) % VIEWS.length]);
        return setSel(0);
      }
      if (input === "/") return setFlow("search");
      if (!target) return;
      if (input === "n") return allows(me, "cases:write", "cases:update") ? setFlow("note") : flash("✕ not allowed: the key needs cases:write and the role cases:update", "bad");
      if (input === "s") return allows(me, "cases:write", "cases:assign") ? setFlow("assign") : flash("✕ not allowed: the key needs cases:write and the role cases:assign", "bad");
      if (input === "o") return allows(me, "cases:write", "cases:resolve") ? setFlow("resolve") : flash("✕ not allowed: the key needs cases:write and the role cases:resolve", "bad");
    },
    { isActive: !modal },
  );

  const number = (openId ? det.data?.caseNumber : current?.caseNumber) ?? target ?? "";
  const run = (v: Record<string, string>) => {
    const kind = flow;
    setFlow(null);
    if (kind === "search") {
      setSearch(v.search ?? "");
      return setSel(0);
    }
    if (!target || !kind) return;
    const done = () => {
      list.reload();
      det.reload();
    };
    if (kind === "note") void act(flash, client.send("POST", `/api/v2/cases/${target}/notes`, { content: v.content }), () => `note added to ${number}`).then(done);
    else if (kind === "assign") {
      const assigneeId = v.who === "me" ? (me?.member.id ?? "me") : v.who === "nobody" ? null : v.member;
      void act(flash, client.send<any>("PATCH", `/api/v2/cases/${target}`, { assigneeId }), (d) => `${number} assigned to ${d.assignee?.email ?? "nobody"}`).then(done);
    } else if (kind === "resolve") {
      const body: Record<string, string> = { resolution: v.resolution };
      if (v.note) body.resolutionNote = v.note;
      void act(flash, client.send<any>("POST", `/api/v2/cases/${target}/resolve`, body), (_d, m) => `${number} resolved ${v.resolution}; ${transferActionText(m.transferAction)}`).then((r) => {
        if (r.ok) setActions((a) => ({ ...a, [target]: r.meta.transferAction ?? null }));
        setOpenId(target);
        done();
      });
    }
  };

  const steps = (): Step[] => {
    switch (flow) {
      case "search":
        return [{ kind: "text", name: "search", label: "Search cases (case number; title and description with pii:view; empty clears)", optional: true, max: 100, initial: search }];
      case "note":
        return [{ kind: "text", name: "content", label: `Note on ${number}`, max: 5000 }];
      case "assign": {
        const s: Step[] = [
          { kind: "pick", name: "who", label: `Assign ${number} to`, options: [{ value: "me", label: `me (${me?.member.email ?? "the key's member"})` }, { value: "member", label: "a member ID…" }, { value: "nobody", label: "nobody (unassign)" }] },
        ];
        return [...s, { kind: "text", name: "member", label: "Member ID", max: 64, when: (v) => v.who === "member" }];
      }
      case "resolve":
        return [
          { kind: "pick", name: "resolution", label: `Resolve ${number}`, options: [{ value: "approved", label: "approved (resumes a held transfer)" }, { value: "rejected", label: "rejected (rejects a held transfer)" }] },
          { kind: "text", name: "note", label: "Resolution note (at most 2,000 characters)", optional: true, max: 2000 },
          { kind: "confirm", label: (v) => `Resolve ${number} as ${v.resolution}?` },
        ];
      default:
        return [];
    }
  };

  const header = caseHeader(width);
  const hint = "v view · / search · Enter detail · n note · s assign · o resolve";
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Cases · ${view}${search ? ` · "${search}"` : ""} · ${list.meta.total ?? items.length}`}
        <Text color={tone("muted")}>{`  ${hint}`}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {flow ? (
        <Flow title={flow === "search" ? "Search" : `${flow} case`} steps={steps()} onDone={run} onCancel={() => setFlow(null)} />
      ) : openId ? (
        det.data ? (
          <Lines lines={caseLines(det.data, det.meta.piiMasked === true, openId in actions ? actions[openId] : undefined)} offset={scroll} height={height - 2} />
        ) : (
          <Text dimColor>{det.error ? `✕ ${det.error.code}: ${det.error.error}` : "loading…"}</Text>
        )
      ) : (
        <List items={items} selected={sel} height={height - 2} width={width} header={header} render={(c, w) => caseRow(c, w, now())} tone={(c) => tone(stateTone(c.priority))} empty={list.loading ? "loading…" : `no ${view === "all" ? "" : view + " "}cases`} />
      )}
    </Box>
  );
}
