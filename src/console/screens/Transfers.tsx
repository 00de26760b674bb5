// Held transfers: newest first, filter by state, filter as you type, sort by column; a detail with the evidence
// (parties, each check's finding, the rule and branch that fired, the raw answers on J), the linked case and history;
// and the actions the transfer's state allows, each confirmed with the full ID, amount, counterparty and outcome.
// The selection is the transfer's ID: rows arriving or leaving never move it to another transfer.
import { useEffect, useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { paths, patchTransfer, resolutionOutcome, resolveCase, type CaseDetail, type CaseListItem, type RuleDetail, type TransferDetail, type TransferListItem, type TransferValuation, type AuditEntry } from "../api.ts";
import { allows, useConsole, useKept, useKeptRef, useModalState, useResource, type Me } from "../context.ts";
import { act, useCommand, useSelectedId, useYank } from "../hooks.ts";
import { moveSelection, navOf } from "../keys.ts";
import { ago, shortTime } from "../format.ts";
import { partyNames, unscreenedChecks, unscreenedText } from "../evidence.ts";
import { decimalKey, type Column } from "../table.ts";
import { useListControls } from "../list-controls.tsx";
import { stateTone, useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { Flow, type Step } from "../components/Flow.tsx";
import { checkLines, partyLines, rawLines, ruleLines, valuationLines } from "../components/evidence-lines.ts";
import { REJECT_REASONS as CONTRACT_REJECT_REASONS } from "../../api/transfers.ts";
import { whyNot } from "../access.ts";
import { auditActorText, rejectionWords, transferAuditText, verdictText } from "../words.ts";

const FILTERS = ["held", "failed", "all"] as const;
type Filter = (typeof FILTERS)[number];
/** The reasons a rejection may give (picked from this list, so the contract's type holds). */
export const REJECT_REASONS = CONTRACT_REJECT_REASONS;
const rejectReason = (v: string) => REJECT_REASONS.find((r) => r === v) ?? "OTHER";

export const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 4)}…${id.slice(-8)}` : id);
const assetCode = (asset: string) => String(asset ?? "").split(/[:/]/).pop() ?? "";

/** `HH:MM:SS` today, `MM-DD HH:MM` before (UTC, as the API gives times). */
export function rowTime(iso: string | null | undefined, now: number): string {
  if (!iso) return "-";
  return iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10) ? iso.slice(11, 19) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

/** The other party: the person screened (with pii:view) and their VASP, else the VASP, else the address. */
export function counterparty(t: Pick<TransferListItem, "direction" | "originator" | "beneficiary" | "compliance">): string {
  const side = t.direction === "incoming" ? "originator" : "beneficiary";
  const person = partyNames(t.compliance?.checks ?? [])[side];
  const p = t[side];
  const vasp = p?.vaspName ?? p?.name ?? p?.vaspId ?? null;
  if (person) return vasp ? `${person} at ${vasp}` : person;
  return vasp ?? p?.address ?? "-";
}

export function transferColumns(width: number, now: () => number): Column<TransferListItem>[] {
  const wide = width >= 120;
  return [
    { key: "time", title: "time", width: 11, text: (t) => rowTime(t.createdAt, now()), sort: (t) => t.createdAt },
    { key: "id", title: "ID", width: wide ? 30 : 13, text: (t) => (wide ? t.id : shortId(t.id)), sort: (t) => t.id },
    { key: "dir", title: "dir", width: 3, text: (t) => (t.direction === "incoming" ? "in" : "out") },
    { key: "amount", title: "amount", width: 16, right: true, text: (t) => `${t.amount} ${assetCode(t.asset)}`, sort: (t) => decimalKey(t.amount) },
    { key: "state", title: "state", width: wide ? 21 : 9, text: (t) => t.state },
    { key: "verdict", title: "verdict", width: 8, minTotal: 90, text: verdictWord },
    { key: "age", title: "age", width: 4, right: true, minTotal: 140, text: (t) => ago(t.createdAt, now()), sort: (t) => t.createdAt },
    { key: "counterparty", title: "counterparty", width: 16, flex: true, text: counterparty },
    { key: "address", title: "counterparty address", width: 10, flex: true, minTotal: 140, text: (t) => (t.direction === "incoming" ? t.originator : t.beneficiary)?.address ?? "" },
  ];
}

/** The list's verdict: a held transfer whose latest check failed reads "not run", never "pending" like a finding. */
export function verdictWord(t: Pick<TransferListItem, "state" | "status" | "compliance">): string {
  const last = (t.compliance?.checks ?? []).at(-1);
  return t.state === "held" && last?.status === "failed" ? "not run" : t.status;
}

/** One action a transfer's state allows, with what it will do in words. */
export interface TransferAction {
  key: "a" | "x" | "r" | "t";
  label: "approve" | "reject" | "retry" | "report tx hash";
  via: "case" | "transfer";
  /** What happens, for the hint line and the confirmation. */
  what: string;
}

/**
 * The actions offered for a transfer: one path per decision. A held transfer with an open case is approved or
 * rejected through the case's resolution (which resumes it, or rejects it and drafts the suspicion report); without
 * one, an incoming held transfer is accepted or rejected directly. Retry is offered to held and failed transfers;
 * reporting the blockchain hash to an outgoing transfer the counterparty accepted.
 */
export function transferActions(t: Pick<TransferListItem, "state" | "status" | "direction">, openCase: Pick<CaseListItem, "caseNumber"> | null | undefined, me: Me | null, unscreened = false): TransferAction[] {
  const out: TransferAction[] = [];
  const drafts = allows(me, "strs:write");
  if (t.state === "held") {
    if (openCase) {
      out.push({
        key: "a",
        label: "approve",
        via: "case",
        what: unscreened
          ? `resolves ${openCase.caseNumber} as approved; its screening did not run, so it is screened again first (or, confirmed by its ID, goes on unscreened)`
          : `resolves ${openCase.caseNumber} as approved, which resumes the transfer`,
      });
      out.push({
        key: "x",
        label: "reject",
        via: "case",
        what: `resolves ${openCase.caseNumber} as rejected, which rejects the transfer and ${drafts ? "drafts a suspicion report" : "drafts no suspicion report (the key lacks strs:write)"}`,
      });
    } else {
      const unknown = openCase === undefined ? " (open cases unknown: the key needs cases:read; a case left open stays open and no suspicion report is drafted)" : "; no case is open, so no suspicion report is drafted";
      if (t.direction === "incoming" && t.status === "pending") out.push({ key: "a", label: "approve", via: "transfer", what: `accepts the transfer; its verdict becomes approved${openCase === undefined ? unknown : ""}` });
      out.push({ key: "x", label: "reject", via: "transfer", what: `rejects the transfer with the reason you pick${unknown}` });
    }
  }
  if (t.state === "held" || t.state === "failed") out.push({ key: "r", label: "retry", via: "transfer", what: "queues the transfer again with the reason you give" });
  if (t.direction === "outgoing" && (t.state === "awaiting_counterparty" || t.state === "accepted") && t.status === "approved")
    out.push({ key: "t", label: "report tx hash", via: "transfer", what: "reports the blockchain transaction hash, which completes the transfer" });
  return out;
}

/** Why the key and role may not take the action (null: they may): a case's resolution or a transfer's PATCH. */
export function actionRefusal(me: Me | null, a: Pick<TransferAction, "via">): string | null {
  return a.via === "case" ? whyNot(me, "cases:write", "cases:resolve") : whyNot(me, "transfers:write", "transfers:update");
}

/** What the transfer's history reads from the audit log: its entries (and its case's), the members that name who. */
export type HistoryAudit = { entries: AuditEntry[]; members: { id: string; email?: string | null }[]; refused?: string | null };

/**
 * The transfer's history in time order: its messages, and with the audit log what was done to it and by whom
 * (`officer@example.com: rejected for …`), each case or report it names beside it.
 */
export function historyLines(t: TransferDetail, audit?: HistoryAudit | null): Line[] {
  const rows: { at: string; text: string }[] = [];
  const said = new Set((audit?.entries ?? []).map((e) => e.action));
  if (!said.has("transfer.created")) rows.push({ at: t.createdAt, text: "created" });
  for (const m of t.messages ?? []) rows.push({ at: m.timestamp, text: `${m.direction} ${m.type}` });
  if (t.acceptedAt && !said.has("transfer.accepted")) rows.push({ at: t.acceptedAt, text: "accepted" });
  if (t.completedAt && !said.has("transfer.completed")) rows.push({ at: t.completedAt, text: "completed" });
  for (const e of audit?.entries ?? []) {
    const w = transferAuditText(e);
    rows.push({ at: e.createdAt, text: `${auditActorText(e, audit?.members)}: ${w.text}${w.caseId ? ` · case ${w.caseId} (H opens it)` : ""}` });
  }
  rows.sort((a, b) => a.at.localeCompare(b.at));
  const L: Line[] = rows.map((r) => ({ text: `  ${shortTime(r.at)} ${r.text}` }));
  if (audit?.refused) L.push({ text: `  (who did what: ${audit.refused})`, dim: true });
  return L;
}

/** The case the history names last (the one `H` opens). */
export function historyCase(audit?: HistoryAudit | null): string | null {
  const named = [...(audit?.entries ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((e) => transferAuditText(e).caseId).filter((x): x is string => !!x);
  return named.at(-1) ?? null;
}

export function transferLines(t: TransferDetail, linked: CaseDetail | CaseListItem | null | undefined, rule: RuleDetail | null, piiMasked: boolean, actions: TransferAction[], valuation?: TransferValuation | null, withheld: { action: TransferAction; why: string }[] = [], audit?: HistoryAudit | null): Line[] {
  const L: Line[] = [];
  L.push({ text: `${t.id} · ${t.direction} · ${t.state} · verdict ${verdictText(t.state, t.compliance?.status)}`, bold: true, tone: stateTone(t.state) });
  const notRun = t.state === "held" ? unscreenedText(t.compliance?.checks ?? []) : "";
  if (notRun) L.push({ text: `SCREENING DID NOT RUN: ${notRun}. Not a match and not cleared: the transfer is unscreened.`, tone: "bad", bold: true });
  L.push({ text: `Amount      ${t.amount} ${t.asset} on ${t.network} · created ${shortTime(t.createdAt)}:${t.createdAt.slice(17, 19)} UTC` });
  // One line at 80 columns: the threshold the value was judged against is on the case.
  L.push(...valuationLines(valuation, { threshold: false }));
  L.push(...partyLines(t));
  L.push({ text: `Travel Rule our answer ${t.status?.ours ?? "none yet"} · the counterparty's ${t.status?.theirs ?? "none yet (not exchanged)"}${t.txHash ? ` · tx ${t.txHash}` : ""}` });
  if (t.rejection) L.push({ text: `Rejected    for ${rejectionWords(t.rejection.reason)}${t.rejection.details ? `: ${t.rejection.details}` : ""}`, tone: "bad" });
  L.push(...checkLines(t.compliance?.checks ?? [], t.compliance?.total ?? 0));
  const ruleRef = linked && "rule" in linked ? linked.rule : null;
  L.push(...ruleLines(ruleRef, rule, t).map((l) => (l.text.startsWith("Rule ") ? { ...l, text: `  rule matched: ${l.text.slice(12)}` } : l)));
  L.push({ text: "Linked case", bold: true });
  if (linked === null) L.push({ text: "  none", dim: true });
  else if (linked === undefined) L.push({ text: "  (needs cases:read)", dim: true });
  else L.push({ text: `  ${linked.caseNumber} ${linked.status} ${linked.priority}${linked.assignee ? ` → ${linked.assignee.email}` : ""}: ${linked.title}  (c opens it)`, tone: stateTone(linked.priority) });
  L.push({ text: "Actions", bold: true });
  if (actions.length === 0 && withheld.length === 0) L.push({ text: `  none in state ${t.state}`, dim: true });
  for (const a of actions) L.push({ text: `  ${a.key} ${a.label}: ${a.what}` });
  for (const w of withheld) L.push({ text: `  ${w.action.label} not offered: ${w.why}`, dim: true });
  L.push({ text: "History", bold: true });
  L.push(...historyLines(t, audit));
  if (piiMasked) L.push({ text: "personal data masked (role without pii:view)", dim: true });
  return L;
}

/** What a confirmation names: the full ID, the amount, the counterparty. */
interface Target {
  id: string;
  amount: string;
  asset: string;
  direction: string;
  party: string;
  action: TransferAction;
  caseId: string | null;
  caseNumber: string | null;
  /** Its latest screening did not run: approval screens again, or goes on unscreened when confirmed by ID. */
  unscreened?: boolean;
}

export function confirmText(t: Target, v: Record<string, string>): string {
  const toFrom = t.direction === "incoming" ? "from" : "to";
  const head = `${t.action.label[0].toUpperCase()}${t.action.label.slice(1)} transfer ${t.id} (${t.amount} ${assetCode(t.asset)} ${toFrom} ${t.party})`;
  const reason = t.action.via === "transfer" && t.action.key === "x" ? ` with ${v.reason}` : t.action.key === "t" ? ` ${v.txHash}` : "";
  if (t.unscreened && t.action.key === "a" && t.action.via === "case")
    return v.how === "unscreened"
      ? `${head} UNSCREENED: resolves ${t.caseNumber} as approved; the transfer goes on WITHOUT being screened, recorded in the audit log under your name.`
      : `${head}: resolves ${t.caseNumber} as approved; its screening did not run, so it is screened again first (a hit or a second failure holds it again).`;
  return `${head}${reason}: ${t.action.what}.`;
}

type FlowKind = "act";

export function Transfers({ height, width, openCase, focus }: { height: number; width: number; openCase?: (caseId: string) => void; focus?: { id: string; n: number } | null }) {
  const { client, me, modal, flash, now } = useConsole();
  const tone = useTone();
  const [filter, setFilter] = useKept<Filter>("transfers.state", "held");
  const [search, setSearch] = useKept("transfers.search", "");
  const [detail, setDetail] = useKept("transfers.detail", false);
  const [raw, setRaw] = useKept("transfers.raw", false);
  const [scroll, setScroll] = useKept("transfers.scroll", 0);
  const [flow, setFlow] = useModalState<FlowKind>();
  const [target, setTarget] = useState<Target | null>(null);
  const list = useResource<TransferListItem[]>(paths.transfers({ state: filter === "all" ? undefined : filter, search: search || undefined, limit: 100 }), ["transfer"]);
  const cols = useMemo(() => transferColumns(width >= 150 && detail ? Math.floor(width * 0.45) : width, now), [width, detail, now]);
  const ctl = useListControls("transfers", list.data ?? [], cols, (width >= 150 && detail ? Math.floor(width * 0.45) : width) - 1, { extra: (t) => `${t.id} ${t.externalId ?? ""} ${t.originator?.address ?? ""} ${t.beneficiary?.address ?? ""}` });
  const items = ctl.rows;
  const sel = useSelectedId("transfers", items, detail);
  const current = sel.item ?? (list.data ?? []).find((t) => t.id === sel.id) ?? null;
  const det = useResource<TransferDetail>(detail && sel.id ? paths.transfer(sel.id) : null, ["transfer"]);
  const value = useResource<TransferValuation>(detail && sel.id ? paths.transferValuation(sel.id) : null, [], { pollMs: 60_000 });
  const canCases = allows(me, "cases:read", "cases:view");
  // Open cases decide how a held transfer is approved or rejected; any case (closed too) is shown in the detail.
  const cases = useResource<CaseListItem[]>(canCases ? paths.cases({ status: "open", hasTransfer: true, limit: 200 }) : null, ["case"]);
  const caseOf = (id: string | null) => (cases.data ?? []).filter((c) => id && c.transferIds?.includes(id));
  const anyCases = useResource<CaseListItem[]>(canCases && detail && sel.id && cases.data && caseOf(sel.id).length === 0 ? paths.cases({ hasTransfer: true, limit: 200 }) : null, ["case"]);
  const linkedRef = caseOf(sel.id)[0] ?? (anyCases.data ?? []).find((c) => sel.id && c.transferIds?.includes(sel.id)) ?? null;
  const linked = useResource<CaseDetail>(detail && linkedRef ? paths.case(linkedRef.id) : null, ["case"]);
  const rule = useResource<RuleDetail>(detail && linked.data?.ruleId && allows(me, "rules:read") ? paths.rule(linked.data.ruleId) : null, [], { pollMs: 60_000 });
  const openCaseOf = (id: string | null): CaseListItem | null | undefined => (!canCases ? undefined : cases.data ? (caseOf(id).find((c) => c.status === "open") ?? null) : undefined);
  const subject = current ?? (det.data ? { ...det.data, status: det.data.compliance?.status ?? "pending", originator: { ...det.data.originator, name: null }, beneficiary: { ...det.data.beneficiary, name: null } } as unknown as TransferListItem : null);
  const unscreened = subject?.state === "held" && (det.data && det.data.id === subject.id ? unscreenedChecks(det.data.compliance?.checks ?? []).length > 0 : verdictWord(subject) === "not run");
  // Offered: only what the key's scopes and the member's role allow; the rest is named with the true reason.
  const possible = subject ? transferActions(subject, openCaseOf(subject.id), me, unscreened) : [];
  const actions = possible.filter((a) => actionRefusal(me, a) === null);
  const withheld = possible.flatMap((a) => {
    const why = actionRefusal(me, a);
    return why ? [{ action: a, why }] : [];
  });
  // The history's who-did-what: the transfer's audit entries and its linked case's (a report drafted, the
  // resolution), members named when the session may list them (else their IDs).
  const canAudit = allows(me, "audit:read", "audit:view");
  const auditT = useResource<AuditEntry[]>(detail && sel.id && canAudit ? paths.auditLog({ entityType: "Transfer", entityId: sel.id, limit: 200 }) : null, ["transfer"], { pollMs: 15_000 });
  const auditC = useResource<AuditEntry[]>(detail && linkedRef && canAudit ? paths.auditLog({ entityType: "Case", entityId: linkedRef.id, limit: 200 }) : null, ["case"], { pollMs: 15_000 });
  const members = useResource<{ id: string; email: string }[]>(detail && canAudit && client.signedIn && (me?.permissions ?? []).includes("members:manage") ? paths.members() : null, [], { pollMs: 60_000 });
  const caseStory = (auditC.data ?? []).filter((e) => ["case.str_drafted", "case.resolved"].includes(e.action) && (!(e.detail as { transferId?: string } | null)?.transferId || (e.detail as { transferId?: string }).transferId === sel.id));
  const historyAudit: HistoryAudit | null = canAudit
    ? { entries: [...(auditT.data ?? []), ...caseStory], members: members.data ?? [], refused: auditT.error ? `${auditT.error.code}: ${auditT.error.error}` : null }
    : { entries: [], members: [], refused: whyNot(me, "audit:read", "audit:view") ?? "the audit log is not readable" };
  useEffect(() => setScroll(0), [sel.id, detail, raw]); // eslint-disable-line react-hooks/exhaustive-deps
  // `:trf_…` opens that transfer once; coming back to the screen later keeps what the officer did since.
  const focusSeen = useKeptRef("transfers.focusSeen", 0);
  useEffect(() => {
    if (!focus || focus.n === focusSeen.current) return;
    focusSeen.current = focus.n;
    sel.select(focus.id);
    setDetail(true);
  }, [focus?.n]); // eslint-disable-line react-hooks/exhaustive-deps
  const yank = useYank();
  useCommand((c) => {
    if (ctl.onCommand(c)) return true;
    if (c.name === "search") {
      setSearch(c.args.join(" "));
      return true;
    }
    if (c.name === "state" && FILTERS.includes(c.args[0] as Filter)) {
      setFilter(c.args[0] as Filter);
      return true;
    }
    return false;
  });

  const split = width >= 150 && detail;
  const page = Math.max(1, height - 3);
  const mayWrite = allows(me, "transfers:write", "transfers:update");
  useInput(
    (input, key) => {
      if (modal || flow) return;
      const nav = navOf(input, key);
      if (raw && (nav === "back" || input === "J")) return setRaw(false);
      if (detail && !split) {
        if (nav === "back") return setDetail(false);
        if (nav && nav !== "open") return setScroll((s) => Math.max(0, moveSelection(s, nav, 1000, page)));
      } else if (detail && split) {
        if (nav === "back") return setDetail(false);
        if (nav === "pageDown" || nav === "pageUp") return setScroll((s) => Math.max(0, moveSelection(s, nav, 1000, page)));
        if (nav && nav !== "open") return sel.move(nav, page);
      } else if (nav === "open" && sel.id) return setDetail(true);
      else if (nav) return sel.move(nav, page);
      if (!raw && ctl.onKey(input)) return;
      if (input === "f") return setFilter((f) => FILTERS[(FILTERS.indexOf(f) + 1) % FILTERS.length]);
      if (input === "y") return yank(sel.id);
      if (input === "J" && sel.id) {
        setDetail(true);
        return setRaw(true);
      }
      if (input === "H" && detail) {
        const id = historyCase(historyAudit);
        if (id && openCase) return openCase(id);
        return flash("the history names no case");
      }
      if (input === "c") {
        const c = linkedRef;
        if (c && openCase) return openCase(c.id);
        return flash(canCases ? "no case is linked to this transfer" : "✕ not allowed: the key needs cases:read", canCases ? undefined : "bad");
      }
      const a = actions.find((x) => x.key === input);
      const w = withheld.find((x) => x.action.key === input);
      if (!a && w && subject) return flash(`✕ ${w.action.label} is not offered: ${w.why}`, "bad");
      if ((input === "a" || input === "x") && subject?.state === "held" && canCases && !cases.data)
        return flash(cases.error ? `✕ cannot read the open cases (${cases.error.code}): nothing sent` : "reading the open cases first (one path per decision); press again in a moment", "bad");
      if ((input === "a" || input === "x" || input === "r" || input === "t") && subject) {
        if (!a) return flash(`✕ ${input} does nothing on a ${subject.state} transfer: ${actions.length ? actions.map((x) => `${x.key} ${x.label}`).join(" · ") : "no action applies"}`, "bad");
        if (a.via === "case" && !allows(me, "cases:write", "cases:resolve")) return flash("✕ not allowed: the key needs cases:write and the role cases:resolve", "bad");
        if (a.via === "transfer" && !mayWrite) return flash("✕ not allowed: the key needs transfers:write and the role transfers:update", "bad");
        const oc = openCaseOf(subject.id);
        setTarget({ id: subject.id, amount: subject.amount, asset: subject.asset, direction: subject.direction, party: current ? counterparty(current) : counterparty(subject), action: a, caseId: oc?.id ?? null, caseNumber: oc?.caseNumber ?? null, unscreened });
        setFlow("act");
      }
    },
    { isActive: !modal },
  );

  const run = (v: Record<string, string>) => {
    const t = target;
    setFlow(null);
    if (!t) return;
    const done = () => {
      list.reload();
      det.reload();
      cases.reload();
    };
    if (t.action.via === "case" && t.caseId) {
      const resolution = t.action.key === "a" ? "approved" : "rejected";
      const caseId = t.caseId;
      const approveUnscreened = t.unscreened === true && resolution === "approved" && v.how === "unscreened";
      if (approveUnscreened && v.typed !== t.id) return flash(`✕ the ID typed is not ${t.id}: nothing sent, the transfer stays held`, "bad");
      void act(flash, resolveCase(client, caseId, resolution, v.note || undefined, { approveUnscreened }), (_d, m) => {
        const ta = m.transferAction as { result: string; reason?: string } | null | undefined;
        return `${t.caseNumber} resolved ${resolution}; transfer ${t.id} ${ta ? (ta.result === "queued" ? "queued" : `${ta.result} (${ta.reason})`) : "not held any more"}`;
      }).then(async (r) => {
        done();
        const ta = r.ok ? (r.meta.transferAction as { result: string } | null | undefined) : null;
        if (!r.ok || ta?.result !== "queued") return;
        // The transfer moves after the answer: say how it ended, and whether the rejection drafted the report.
        const o = await resolutionOutcome(client, caseId, { report: resolution === "rejected" && allows(me, "strs:write") && allows(me, "reports:read") && allows(me, "strs:read") });
        if (!o) return;
        const report = resolution !== "rejected" ? "" : o.reportId ? `; suspicion report ${o.reportId} drafted` : allows(me, "reports:read") && allows(me, "strs:read") ? "; no suspicion report drafted (no filing jurisdiction, or the key lacks strs:write)" : "";
        flash(o.moved ? `✓ ${t.id} ${o.state}${report}` : `✕ ${t.id} was not moved by ${t.caseNumber} (${o.state ?? "see the case history"})`, o.moved ? "ok" : "bad");
        done();
      });
      return;
    }
    const body = t.action.key === "a" ? { action: "accept" as const } : t.action.key === "t" ? { action: "accept" as const, txHash: v.txHash } : t.action.key === "x" ? { action: "reject" as const, status: "rejected" as const, reason: rejectReason(v.reason), ...(v.details ? { details: v.details } : {}) } : { action: "retry" as const, reason: v.reason };
    void act(flash, patchTransfer(client, t.id, body), (d, m) => `${t.action.label} ${t.id}: ${m.previousState ?? "?"} → ${d.state}`).then(done);
  };

  const steps = (): Step[] => {
    const t = target;
    if (!t) return [];
    const confirm: Step = { kind: "confirm", label: (v) => confirmText(t, v) };
    const note: Step = { kind: "text", name: "note", label: `Resolution note for ${t.caseNumber} (at most 2,000 characters)`, optional: true, max: 2000 };
    if (t.action.via === "case" && t.unscreened && t.action.key === "a")
      return [
        {
          kind: "pick",
          name: "how",
          label: `Approve ${t.id} through ${t.caseNumber}: its screening did not run, so nothing was matched or cleared`,
          options: [
            { value: "again", label: "screen it again first (a hit or a second failure holds it again)" },
            { value: "unscreened", label: "approve it UNSCREENED (you confirm by typing its ID; audited)" },
          ],
        },
        { kind: "text", name: "typed", label: `Type the transfer ID ${t.id} to approve it unscreened`, max: 64, when: (v) => v.how === "unscreened" },
        note,
        confirm,
      ];
    if (t.action.via === "case") return [note, confirm];
    switch (t.action.key) {
      case "x":
        return [
          { kind: "pick", name: "reason", label: `Reason for rejecting ${t.id}`, options: REJECT_REASONS.map((r) => ({ value: r, label: r })) },
          { kind: "text", name: "details", label: "Details (at most 500 characters)", optional: true, max: 500 },
          confirm,
        ];
      case "r":
        return [{ kind: "text", name: "reason", label: `Reason for retrying ${t.id} (kept for the record)`, max: 500 }, confirm];
      case "t":
        return [{ kind: "text", name: "txHash", label: "Blockchain transaction hash (32-byte hex)", max: 80 }, confirm];
      default:
        return [confirm];
    }
  };

  const hints = subject?.state === "held" && canCases && !cases.data ? "reading open cases…" : actions.length === 0 && withheld.length > 0 ? `read only: ${withheld[0].why}` : actions.map((a) => `${a.key} ${a.label}`).join(" · ");
  const title = `Transfers · ${filter}${search ? ` · search "${search}"` : ""} · ${list.meta.total ?? (list.data ?? []).length}`;
  const listWidth = split ? Math.floor(width * 0.45) : width;
  const bodyHeight = height - 2 - (ctl.bar ? 1 : 0);
  const detailLines = det.data ? (raw ? rawLines(det.data) : transferLines(det.data, canCases ? (linkedRef ? (linked.data ?? linkedRef) : null) : undefined, rule.data ?? null, det.meta.piiMasked === true, actions, value.data && value.data.transferId === det.data.id ? value.data : undefined, withheld, historyAudit)) : null;
  const gone = detail && sel.index < 0 && sel.id !== null;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {title}
        <Text color={tone("muted")}>{hints.startsWith("read only") ? `  ${hints} · f state · / filter · Enter detail` : `  f state · / filter · </> sort · y yank · Enter detail${hints ? ` · ${hints}` : ""}`}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {ctl.bar}
      {flow ? (
        <Flow title={`${target?.action.label} transfer ${target?.id}`} steps={steps()} onDone={run} onCancel={() => setFlow(null)} />
      ) : (
        <Box>
          {!detail || split ? (
            <Box width={listWidth} flexDirection="column">
              <List
                items={items}
                selected={sel.index}
                height={bodyHeight}
                width={listWidth}
                header={ctl.header}
                render={(t) => ctl.render(t)}
                tone={(t) => tone(stateTone(t.state))}
                empty={list.loading ? "loading…" : `no ${filter === "all" ? "" : `${filter} `}transfers${ctl.filter ? ` matching "${ctl.filter}"` : ""}`}
              />
            </Box>
          ) : null}
          {detail ? (
            <Box flexDirection="column" paddingLeft={split ? 1 : 0} width={split ? width - listWidth : width}>
              {gone ? <Text color={tone("warn")} wrap="truncate">{`${sel.id} is not in this list (now ${det.data?.state ?? "…"}); still selected`}</Text> : null}
              {detailLines ? <Lines lines={detailLines} offset={scroll} height={bodyHeight - (gone ? 1 : 0)} width={(split ? width - listWidth - 1 : width) - 1} /> : <Text dimColor>{det.error ? `✕ ${det.error.code}: ${det.error.error}` : "loading…"}</Text>}
            </Box>
          ) : null}
        </Box>
      )}
    </Box>
  );
}
