// Cases: mine / open / all by priority, sortable and filtered as you type; a detail with the evidence (the held
// transfer's parties, each check's finding, the rule and the branch that fired, raw answers on J), notes and history
// that follows the case live; add a note, assign, resolve (approved or rejected, with a note) with a confirmation
// naming the transfer, amount, counterparty and outcome, then meta.transferAction and the transfer_updated entry.
import { useEffect, useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { Value } from "@sinclair/typebox/value";
import { TransferAction as TransferActionSchema } from "../../api/cases.ts";
import { paths, resolveCase, type CaseDetail, type CaseListItem, type CaseNote, type RuleDetail, type TransferAction, type TransferDetail, type TransferListItem, type TransferValuation } from "../api.ts";
import { allows, useConsole, useKept, useKeptRef, useModalState, useResource } from "../context.ts";
import { act, useCommand, useSelectedId, useYank } from "../hooks.ts";
import { moveSelection, navOf } from "../keys.ts";
import { ago, shortTime } from "../format.ts";
import { partyNames, unscreenedChecks, unscreenedText } from "../evidence.ts";
import type { Column } from "../table.ts";
import { useListControls } from "../list-controls.tsx";
import { checkLines, partyLines, rawLines, ruleLines, valuationLines } from "../components/evidence-lines.ts";
import { counterparty, rowTime, shortId } from "./Transfers.tsx";
import { whyNot } from "../access.ts";
import { caseHistoryText, caseTitleText } from "../words.ts";
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

const RANKED: Record<string, number> = { high: 0, medium: 1, low: 2 };

export function caseColumns(width: number, now: () => number, transferOf: (id: string) => TransferListItem | undefined = () => undefined): Column<CaseListItem>[] {
  const wide = width >= 100;
  // The case's first transfer, as the transfers list knows it (the latest 100): what the case is about at a glance.
  const first = (c: CaseListItem) => (c.transferIds?.[0] ? transferOf(c.transferIds[0]) : undefined);
  const asset = (a: string) => String(a ?? "").split(/[:/]/).pop() ?? "";
  return [
    { key: "case", title: "case", width: 22, text: (c) => c.caseNumber },
    { key: "prio", title: "prio", width: 6, text: (c) => c.priority, sort: (c) => RANKED[c.priority] ?? 3 },
    ...(wide ? [{ key: "status", title: "status", width: 6, text: (c: CaseListItem) => c.status }, { key: "type", title: "type", width: 17, text: (c: CaseListItem) => c.type }] : []),
    { key: "assignee", title: "assignee", width: 14, text: (c) => (c.assignee ? (c.assignee.email ?? c.assignee.name ?? "") : "-") },
    { key: "time", title: "opened", width: 11, text: (c) => rowTime(c.createdAt, now()), sort: (c) => c.createdAt },
    { key: "age", title: "age", width: 4, right: true, minTotal: 140, text: (c) => ago(c.createdAt, now()), sort: (c) => c.createdAt },
    { key: "transfer", title: "transfer", width: 13, minTotal: 120, text: (c) => (c.transferIds?.[0] ? shortId(c.transferIds[0]) : "-") },
    { key: "amount", title: "amount", width: 14, right: true, minTotal: 120, text: (c) => (first(c) ? `${first(c)!.amount} ${asset(first(c)!.asset)}` : c.transferIds?.length ? "?" : "-") },
    { key: "counterparty", title: "counterparty", width: 16, minTotal: 140, text: (c) => (first(c) ? counterparty(first(c)!) : "-") },
    { key: "title", title: "title", width: 20, flex: true, text: caseTitleText },
  ];
}

/** `meta.transferAction` of a resolution as the contract states it (anything else reads as no action). */
const transferActionOf = (v: unknown): TransferAction => (Value.Check(TransferActionSchema, v) ? v : null);

export function transferActionText(a: TransferAction | undefined): string {
  if (a == null) return "no held transfer to move";
  if (a.result === "queued") return `transfer ${a.transferId} queued`;
  return `transfer ${a.transferId} ${a.result} (${a.reason})`;
}

export function caseLines(c: CaseDetail, piiMasked: boolean, action: TransferAction | undefined, evidence?: { transfer: TransferDetail | null; rule: RuleDetail | null; valuation?: TransferValuation | null }): Line[] {
  const L: Line[] = [];
  L.push({ text: `${c.caseNumber} · ${c.status}${c.resolution ? ` ${c.resolution}` : ""} · ${c.priority} · ${c.type} / ${c.category} · ${c.source}`, bold: true, tone: stateTone(c.resolution ?? c.priority) });
  L.push({ text: `Title       ${c.title}` });
  if (c.description) L.push({ text: `Description ${c.description}` });
  L.push({ text: `Assignee    ${c.assignee ? c.assignee.email : "nobody"} · opened ${shortTime(c.createdAt)} by ${c.createdBy?.email ?? "system"}` });
  for (const t of c.transfers ?? []) L.push({ text: `Transfer    ${t.id} ${t.direction} ${t.amount} ${t.asset} · ${t.state} · verdict ${t.complianceStatus}`, tone: stateTone(t.state) });
  // An open case whose transfers have all ended holds nothing any more: it says so, and why it stays open.
  const ended = ["completed", "rejected", "cancelled", "failed"];
  if (c.status === "open" && (c.transfers ?? []).length > 0 && (c.transfers ?? []).every((t) => ended.includes(t.state)))
    L.push({ text: `Why open    its transfer${(c.transfers ?? []).length > 1 ? "s have" : " has"} ended (${(c.transfers ?? []).map((t) => t.state).join(", ")}): nothing is held any more. Cases close only by an officer's resolution; resolve it (o) to record the outcome.`, tone: "warn" });
  if (!c.transfers && c.transferIds?.length) L.push({ text: `Transfers   ${c.transferIds.join(", ")}` });
  // A closed case leads with its outcome (resolution, what became of the transfer, history); an open one with the evidence.
  const outcome: Line[] = [];
  if (c.status === "closed") outcome.push({ text: `Resolved    ${c.resolution} ${shortTime(c.resolvedAt)} by ${c.resolvedBy?.email ?? "-"}${c.resolutionNote ? `: ${c.resolutionNote}` : ""}` });
  if (action !== undefined) outcome.push({ text: `Transfer action: ${transferActionText(action)}`, tone: action?.result === "queued" ? "ok" : "warn" });
  const history: Line[] = [{ text: `History (${c.historyCount ?? (c.history ?? []).length})`, bold: true }];
  // Who did what, in words; the members the case names (assignee, creator, resolver, authors) name the IDs.
  const people = knownMembers([], c, null);
  for (const h of c.history ?? []) {
    history.push({ text: `  ${shortTime(h.createdAt)} ${h.user?.email ?? h.user?.name ?? "Caravan"}: ${caseHistoryText(h, people)}`, tone: h.action === "transfer_updated" ? "ok" : h.action === "transfer_not_updated" ? "bad" : undefined });
  }
  const et = evidence?.transfer ?? null;
  const proof: Line[] = [];
  const notRun = et && et.state === "held" ? unscreenedText(et.compliance?.checks ?? []) : "";
  if (notRun) proof.push({ text: `SCREENING DID NOT RUN: ${notRun}. Not a match and not cleared: the transfer is unscreened.`, tone: "bad", bold: true });
  if (et) proof.push(...valuationLines(evidence?.valuation && evidence.valuation.transferId === et.id ? evidence.valuation : undefined));
  if (et) proof.push(...partyLines(et));
  if (c.rule) proof.push(...ruleLines(c.rule, evidence?.rule ?? null, et));
  if (et) proof.push(...checkLines(et.compliance?.checks ?? [], et.compliance?.total ?? 0));
  const notes: Line[] = [{ text: `Notes (${c.noteCount ?? (c.notes ?? []).length})`, bold: true }];
  for (const n of c.notes ?? []) notes.push({ text: `  ${shortTime(n.createdAt)} ${n.author?.email ?? n.authorId}: ${n.content}` });
  if (c.status === "closed" || action !== undefined) L.push(...outcome, ...history, ...proof, ...notes);
  else L.push(...proof, ...notes, ...history);
  if (piiMasked) L.push({ text: "personal data masked (role without pii:view)", dim: true });
  return L;
}

/** The other party of a case's first transfer, as its evidence names it (person with pii:view, else VASP, else address). */
function partyOf(t: TransferDetail | null): string {
  if (!t) return "";
  const side = t.direction === "incoming" ? "originator" : "beneficiary";
  const person = partyNames(t.compliance?.checks ?? [])[side];
  const vasp = t[side]?.vaspName ?? t[side]?.vaspId ?? null;
  return person ? (vasp ? `${person} at ${vasp}` : person) : (vasp ?? t[side]?.address ?? "-");
}

/** What resolving does to the case's held transfer, in words (Part 2: a rejection by a key with strs:write drafts the report). */
export function resolutionEffect(resolution: string, t: { id: string; state: string } | null, draftsReports: boolean): string {
  if (!t) return "no transfer is linked";
  if (t.state !== "held") return `transfer ${t.id} is ${t.state}, not held: it is not moved`;
  return resolution === "approved" ? `resumes transfer ${t.id}` : `rejects transfer ${t.id} and ${draftsReports ? "drafts a suspicion report" : "drafts no suspicion report (the key lacks strs:write)"}`;
}

type CaseFlow = "note" | "assign" | "resolve";

type KnownMember = { id: string; email?: string | null; name?: string | null };

/**
 * The members the console has seen (assignees on the list, the case's creator, resolver, note authors and history
 * entries), for the assign picker: no member list is needed to pick a colleague already at work on cases.
 */
export function knownMembers(list: readonly CaseListItem[], c: CaseDetail | null, meId: string | null): KnownMember[] {
  const out = new Map<string, KnownMember>();
  const add = (m: KnownMember | null | undefined) => {
    if (m?.id && m.id !== meId && !out.has(m.id)) out.set(m.id, m);
  };
  for (const x of list) add(x.assignee as KnownMember | null);
  if (c) {
    add(c.assignee as KnownMember | null);
    add(c.createdBy as KnownMember | null);
    add(c.resolvedBy as KnownMember | null);
    for (const n of c.notes ?? []) add(n.author as KnownMember | null);
    for (const h of c.history ?? []) add(h.user as KnownMember | null);
  }
  return [...out.values()].sort((a, b) => String(a.email ?? a.id).localeCompare(String(b.email ?? b.id)));
}

/** Resolving a case assigned to someone else: the confirmation says whose it is. */
export function assignedElsewhere(c: Pick<CaseDetail, "assignee"> | null | undefined, meId: string | null | undefined): string {
  const a = c?.assignee;
  return a && meId && a.id !== meId ? `⚠ assigned to ${a.email ?? a.name ?? a.id}, not to you. ` : "";
}

export function Cases({ height, width, focus }: { height: number; width: number; focus?: { id: string; n: number } | null }) {
  const { client, me, modal, flash, now } = useConsole();
  const tone = useTone();
  const [view, setView] = useKept<View>("cases.view", "open");
  const [search, setSearch] = useKept("cases.search", "");
  const [openId, setOpenId] = useKept<string | null>("cases.open", null);
  const [raw, setRaw] = useKept("cases.raw", false);
  const [scroll, setScroll] = useState(0);
  const [flow, setFlow] = useModalState<CaseFlow>();
  const [actions, setActions] = useKept<Record<string, TransferAction>>("cases.actions", {});
  // A case opened from elsewhere (`c` on a transfer, `:cas_…`) opens once, not again on every return to the screen.
  const focusSeen = useKeptRef("cases.focusSeen", 0);
  useEffect(() => {
    if (!focus || focus.n === focusSeen.current) return;
    focusSeen.current = focus.n;
    setOpenId(focus.id);
  }, [focus?.n]); // eslint-disable-line react-hooks/exhaustive-deps
  const query = { status: view === "all" ? undefined : "open", assigneeId: view === "mine" ? "me" : undefined, search: search || undefined, limit: 200 };
  const list = useResource<CaseListItem[]>(paths.cases(query), ["case"]);
  const byPrio = useMemo(() => byPriority(list.data ?? []), [list.data]);
  // Amount and counterparty of each case's transfer, from the latest transfers (one read, reloaded with them).
  const tx = useResource<TransferListItem[]>(allows(me, "transfers:read", "transfers:view") ? paths.transfers({ limit: 100 }) : null, ["transfer"]);
  const txById = useMemo(() => new Map((tx.data ?? []).map((t) => [t.id, t])), [tx.data]);
  const cols = useMemo(() => caseColumns(width, now, (id) => txById.get(id)), [width, now, txById]);
  const ctl = useListControls("cases", byPrio, cols, width - 1, { extra: (c) => `${c.id} ${c.transferIds.join(" ")}` });
  const items = ctl.rows;
  const sel = useSelectedId("cases", items, openId !== null);
  const current = sel.item;
  // A resolution's transfer outcome arrives later as a history entry: follow the case closely until it does.
  const waiting = openId !== null && actions[openId]?.result === "queued";
  const det = useResource<CaseDetail>(openId ? paths.case(openId) : null, ["case", "transfer"]);
  const settled = (det.data?.history ?? []).some((h) => h.action === "transfer_updated" || h.action === "transfer_not_updated");
  useEffect(() => {
    if (!waiting || settled) return;
    const id = setInterval(det.reload, 500);
    return () => clearInterval(id);
  }, [waiting, settled, det.reload]);
  useEffect(() => setScroll(0), [openId, raw]);
  // The evidence: the first linked transfer's checks, and the rule's branches.
  const transferId = det.data?.transferIds?.[0] ?? null;
  const canTransfers = allows(me, "transfers:read", "transfers:view");
  const tr = useResource<TransferDetail>(openId && transferId && canTransfers ? paths.transfer(transferId) : null, ["transfer"]);
  const val = useResource<TransferValuation>(openId && transferId && canTransfers ? paths.transferValuation(transferId) : null, [], { pollMs: 60_000 });
  const rule = useResource<RuleDetail>(openId && det.data?.ruleId && allows(me, "rules:read") ? paths.rule(det.data.ruleId) : null, [], { pollMs: 60_000 });
  const yank = useYank();
  useCommand((c) => {
    if (ctl.onCommand(c)) return true;
    if (c.name === "search") {
      setSearch(c.args.join(" "));
      return true;
    }
    if (c.name === "view" && VIEWS.includes(c.args[0] as View)) {
      setView(c.args[0] as View);
      return true;
    }
    return false;
  });

  const page = Math.max(1, height - 3);
  const target = openId ?? sel.id ?? null;
  useInput(
    (input, key) => {
      if (modal || flow) return;
      const nav = navOf(input, key);
      if (openId) {
        if (raw && (nav === "back" || input === "J")) return setRaw(false);
        if (nav === "back") return setOpenId(null);
        if (nav && nav !== "open") return setScroll((s) => Math.max(0, moveSelection(s, nav, 1000, page)));
        if (input === "J") return tr.data ? setRaw(true) : flash(canTransfers ? "no linked transfer to show" : "✕ not allowed: the key needs transfers:read", canTransfers ? undefined : "bad");
      } else if (nav === "open" && sel.id) return setOpenId(sel.id);
      else if (nav) return sel.move(nav, page);
      else if (ctl.onKey(input)) return;
      if (input === "v") return setView((v) => VIEWS[(VIEWS.indexOf(v) + 1) % VIEWS.length]);
      if (input === "y") return yank(target);
      if (!target) return;
      if (input === "n") return allows(me, "cases:write", "cases:update") ? setFlow("note") : flash(`✕ not allowed: ${whyNot(me, "cases:write", "cases:update")}`, "bad");
      if (input === "s") return allows(me, "cases:write", "cases:assign") ? setFlow("assign") : flash(`✕ not allowed: ${whyNot(me, "cases:write", "cases:assign")}`, "bad");
      if (input === "o") {
        const status = openId ? det.data?.status : current?.status;
        if (status === "closed") return flash(`✕ ${number} is closed: nothing to resolve`, "bad");
        if (!allows(me, "cases:write", "cases:resolve")) return flash(`✕ not allowed: ${whyNot(me, "cases:write", "cases:resolve")}`, "bad");
        // The confirmation names the case's transfer: resolve from the case's detail, which reads it.
        setOpenId(target);
        return setFlow("resolve");
      }
    },
    { isActive: !modal },
  );

  const number = (openId ? det.data?.caseNumber : current?.caseNumber) ?? target ?? "";
  const firstTransfer = openId ? (det.data?.transfers?.[0] ?? null) : null;
  const run = (v: Record<string, string>) => {
    const kind = flow;
    setFlow(null);
    if (!target || !kind) return;
    const done = () => {
      list.reload();
      det.reload();
    };
    if (kind === "note") void act(flash, client.send<CaseNote>("POST", `${paths.case(target)}/notes`, { content: v.content }), () => `note added to ${number}`).then(done);
    else if (kind === "assign") {
      const assigneeId = v.who === "me" ? (me?.member.id ?? "me") : v.who === "nobody" ? null : v.who === "member" ? v.member : v.who;
      void act(flash, client.send<CaseDetail>("PATCH", paths.case(target), { assigneeId }), (d) => `${number} assigned to ${d.assignee?.email ?? "nobody"}`).then(done);
    } else if (kind === "resolve") {
      const resolution = v.resolution === "rejected" ? "rejected" : "approved";
      const approveUnscreened = v.resolution === "approved_unscreened";
      const tid = firstTransfer?.id ?? "";
      if (approveUnscreened && v.typed !== tid) return flash(`✕ the ID typed is not ${tid}: nothing sent, the case stays open`, "bad");
      void act(flash, resolveCase(client, target, resolution, v.note || undefined, { approveUnscreened }), (_d, m) => `${number} resolved ${resolution}${approveUnscreened ? " (unscreened, audited)" : ""}; ${transferActionText(transferActionOf(m.transferAction))}`).then((r) => {
        if (r.ok) setActions((a) => ({ ...a, [target]: transferActionOf(r.meta.transferAction) }));
        setOpenId(target);
        done();
      });
    }
  };

  const steps = (): Step[] => {
    switch (flow) {
      case "note":
        return [{ kind: "text", name: "content", label: `Note on ${number}`, max: 5000 }];
      case "assign": {
        const s: Step[] = [
          {
            kind: "pick",
            name: "who",
            label: `Assign ${number} to${det.data?.assignee ? ` (now ${det.data.assignee.email ?? det.data.assignee.id})` : ""}`,
            options: [
              { value: "me", label: `me (${me?.member.email ?? "the key's member"})` },
              ...knownMembers(list.data ?? [], det.data ?? null, me?.member.id ?? null).map((m) => ({ value: m.id, label: `${m.email ?? m.name ?? m.id}` })),
              { value: "member", label: "another member, by ID…" },
              { value: "nobody", label: "nobody (unassign)" },
            ],
          },
        ];
        return [...s, { kind: "text", name: "member", label: "Member ID", max: 64, when: (v) => v.who === "member" }];
      }
      case "resolve": {
        const drafts = allows(me, "strs:write");
        const t = firstTransfer ?? null;
        if (!det.data || det.data.id !== target) return [{ kind: "pick", name: "resolution", label: `Resolve ${number}: reading the case…`, options: [] }];
        const what = t ? `${t.id} (${t.amount} ${t.asset}${tr.data?.id === t.id ? ` ${t.direction === "incoming" ? "from" : "to"} ${partyOf(tr.data)}` : ""})` : "";
        // Its screening did not run: approving screens it again, or goes on unscreened when confirmed by its ID.
        const unscreened = !!t && t.state === "held" && tr.data?.id === t.id && unscreenedChecks(tr.data.compliance?.checks ?? []).length > 0;
        if (unscreened && t)
          return [
            {
              kind: "pick",
              name: "resolution",
              label: `Resolve ${number} (transfer ${what}): its screening did not run, so nothing was matched or cleared`,
              options: [
                { value: "approved", label: `approve: screens transfer ${t.id} again first (a hit or a second failure holds it again)` },
                { value: "approved_unscreened", label: `approve UNSCREENED: transfer ${t.id} goes on without screening (type its ID; audited)` },
                { value: "rejected", label: `reject: ${resolutionEffect("rejected", t, drafts)}` },
              ],
            },
            { kind: "text", name: "typed", label: `Type the transfer ID ${t.id} to approve it unscreened`, max: 64, when: (v) => v.resolution === "approved_unscreened" },
            { kind: "text", name: "note", label: "Resolution note (at most 2,000 characters)", optional: true, max: 2000 },
            {
              kind: "confirm",
              label: (v) =>
                assignedElsewhere(det.data, me?.member.id) +
                (v.resolution === "approved_unscreened"
                  ? `Resolve ${number} as approved for transfer ${what} UNSCREENED: it goes on WITHOUT being screened, recorded in the audit log under your name.`
                  : v.resolution === "approved"
                    ? `Resolve ${number} as approved for transfer ${what}: its screening did not run, so it is screened again first.`
                    : `Resolve ${number} as rejected for transfer ${what}: ${resolutionEffect("rejected", t, drafts)}.`),
            },
          ];
        return [
          {
            kind: "pick",
            name: "resolution",
            label: `Resolve ${number}${what ? ` (transfer ${what})` : ""}`,
            options: [
              { value: "approved", label: `approve: ${resolutionEffect("approved", t, drafts)}` },
              { value: "rejected", label: `reject: ${resolutionEffect("rejected", t, drafts)}` },
            ],
          },
          { kind: "text", name: "note", label: "Resolution note (at most 2,000 characters)", optional: true, max: 2000 },
          { kind: "confirm", label: (v) => `${assignedElsewhere(det.data, me?.member.id)}Resolve ${number} as ${v.resolution}${what ? ` for transfer ${what}` : ""}: ${resolutionEffect(v.resolution, t, drafts)}.` },
        ];
      }
      default:
        return [];
    }
  };

  // Only what the key and the role allow is offered.
  const mayNote = allows(me, "cases:write", "cases:update");
  const mayAssign = allows(me, "cases:write", "cases:assign");
  const mayResolve = allows(me, "cases:write", "cases:resolve") && (openId ? det.data?.status : current?.status) !== "closed";
  const offered = [mayNote ? "n note" : "", mayAssign ? "s assign" : "", mayResolve ? "o resolve" : ""].filter(Boolean).join(" · ");
  const hint = `v view · / filter · </> sort · y yank · Enter detail${offered ? ` · ${offered}` : mayNote || mayAssign ? "" : ` · read only: ${whyNot(me, "cases:write", "cases:update") ?? "case is closed"}`}${openId ? " · J raw" : ""}`;
  const bodyHeight = height - 2 - (ctl.bar && !openId ? 1 : 0);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Cases · ${view}${search ? ` · search "${search}"` : ""} · ${list.meta.total ?? (list.data ?? []).length}`}
        <Text color={tone("muted")}>{`  ${hint}`}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {openId ? null : ctl.bar}
      {flow ? (
        <Flow title={`${flow} case ${number}`} steps={steps()} onDone={run} onCancel={() => setFlow(null)} />
      ) : openId ? (
        det.data ? (
          <Lines
            lines={raw && tr.data ? rawLines(tr.data) : caseLines(det.data, det.meta.piiMasked === true, openId in actions ? actions[openId] : undefined, { transfer: tr.data ?? null, rule: rule.data ?? null, valuation: val.data ?? undefined })}
            offset={scroll}
            height={height - 2}
            width={width - 1}
          />
        ) : (
          <Text dimColor>{det.error ? `✕ ${det.error.code}: ${det.error.error}` : "loading…"}</Text>
        )
      ) : (
        <List items={items} selected={sel.index} height={bodyHeight} width={width} header={ctl.header} render={(c) => ctl.render(c)} tone={(c) => tone(stateTone(c.priority))} empty={list.loading ? "loading…" : `no ${view === "all" ? "" : view + " "}cases${ctl.filter ? ` matching "${ctl.filter}"` : ""}`} />
      )}
    </Box>
  );
}
