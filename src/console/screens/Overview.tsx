// Overview: held transfers, open cases by priority, cases assigned to me, failing deliveries, reports near or past
// their deadline, and transfers per minute by state (sparklines over the latest 100 transfers).
import { useEffect, useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { allows, useConsole, useKept, useResource, type Resource } from "../context.ts";
import { moveSelection, navOf, type ScreenId } from "../keys.ts";
import { pad, perMinute, sparkline, stateGroup } from "../format.ts";
import { useTone, type Tone } from "../theme.tsx";
import { paths, type Delivery, type ReportListItem, type TransferListItem, type Webhook } from "../api.ts";

const total = (r: Resource<unknown>) => (r.error ? null : (r.meta.total ?? (Array.isArray(r.data) ? r.data.length : null)));

interface Row {
  label: string;
  value: string;
  tone?: Tone;
  go: ScreenId;
  /** Before going: what the row asks of the screen it opens (e.g. the Cases screen's view). */
  beforeGo?: () => void;
}

export function Overview({ height, width, go }: { height: number; width: number; go: (s: ScreenId) => void }) {
  const { client, me, modal, now } = useConsole();
  const tone = useTone();
  const tr = allows(me, "transfers:read", "transfers:view");
  const cs = allows(me, "cases:read", "cases:view");
  const wh = allows(me, "webhooks:read", "webhooks:view");
  const rp = allows(me, "reports:read", "reports:view") && allows(me, "strs:read", "strs:view");
  const held = useResource(tr ? "/api/v2/transfers?state=held&limit=1" : null, ["transfer"]);
  const recent = useResource<TransferListItem[]>(tr ? paths.transfers({ limit: 100 }) : null, ["transfer"]);
  const high = useResource(cs ? "/api/v2/cases?status=open&priority=high&limit=1" : null, ["case"]);
  const medium = useResource(cs ? "/api/v2/cases?status=open&priority=medium&limit=1" : null, ["case"]);
  const low = useResource(cs ? "/api/v2/cases?status=open&priority=low&limit=1" : null, ["case"]);
  const mine = useResource(cs ? "/api/v2/cases?status=open&assigneeId=me&limit=1" : null, ["case"]);
  const hooks = useResource<Webhook[]>(wh ? paths.webhooks({ limit: 200 }) : null, [], { pollMs: 5_000 });
  const reports = useResource<ReportListItem[]>(rp ? paths.reports({ limit: 200 }) : null, [], { pollMs: 10_000 });
  const failing = (hooks.data ?? []).filter((w) => w.consecutiveFailures > 0);
  const [failedDeliveries, setFailedDeliveries] = useState<number | null>(null);
  const failingKey = failing.map((w) => `${w.id}:${w.consecutiveFailures}`).join(",");
  useEffect(() => {
    let live = true;
    void Promise.all(failing.map((w) => client.get<Delivery[]>(paths.deliveries(w.id, { status: "failed", limit: 1 })))).then((rs) => {
      if (live) setFailedDeliveries(rs.reduce((n, r) => n + (r.ok ? (r.meta.total ?? 0) : 0), 0));
    });
    return () => {
      live = false;
    };
  }, [failingKey]); // eslint-disable-line react-hooks/exhaustive-deps
  const open = (reports.data ?? []).filter((r) => r.status !== "filed");
  const overdue = open.filter((r) => r.filingDeadline?.isOverdue).length;
  const approaching = open.filter((r) => r.filingDeadline?.isApproaching && !r.filingDeadline?.isOverdue).length;

  // "Assigned to me" opens the Cases screen's mine view on its list, whatever view or case was kept from before.
  const [, setCasesView] = useKept<string>("cases.view", "open");
  const [, setCasesOpen] = useKept<string | null>("cases.open", null);
  // useKept writes its store when React runs the state updater, which it skips once this screen unmounts: set the
  // Cases screen's kept state here, let this screen render it, and switch screens after that render (the effect).
  const [leaving, setLeaving] = useState<{ to: ScreenId } | null>(null);
  useEffect(() => {
    if (leaving) go(leaving.to);
  }, [leaving]); // eslint-disable-line react-hooks/exhaustive-deps
  const showMine = () => {
    setCasesView("mine");
    setCasesOpen(null);
  };
  const na = "no access";
  const n = (v: number | null, ok: boolean) => (!ok ? na : v === null ? "…" : String(v));
  const rows: Row[] = [
    { label: "Held transfers", value: n(total(held), tr), tone: (total(held) ?? 0) > 0 ? "warn" : undefined, go: "transfers" },
    { label: "Open cases  high / medium / low", value: cs ? `${n(total(high), cs)} / ${n(total(medium), cs)} / ${n(total(low), cs)}` : na, tone: (total(high) ?? 0) > 0 ? "bad" : undefined, go: "cases" },
    { label: "Open cases assigned to me", value: n(total(mine), cs), go: "cases", beforeGo: showMine },
    { label: "Failing subscriptions / failed deliveries", value: wh ? `${hooks.data ? failing.length : "…"} / ${failedDeliveries ?? "…"}` : na, tone: failing.length ? "bad" : undefined, go: "deliveries" },
    { label: "Reports overdue / approaching deadline", value: rp ? (reports.data ? `${overdue} / ${approaching}` : reports.error ? na : "…") : na, tone: overdue ? "bad" : approaching ? "warn" : undefined, go: "reports" },
  ];
  const [sel, setSel] = useState(0);
  useInput(
    (input, key) => {
      const nav = navOf(input, key);
      if (nav === "open") {
        const r = rows[sel];
        if (!r.beforeGo) return go(r.go);
        r.beforeGo();
        return setLeaving({ to: r.go });
      }
      if (nav) setSel((s) => moveSelection(s, nav, rows.length, rows.length));
    },
    { isActive: !modal },
  );

  const minutes = Math.max(10, Math.min(60, width - 24));
  const series = useMemo(() => perMinute(recent.data ?? [], now(), minutes, stateGroup), [recent.data, minutes]); // eslint-disable-line react-hooks/exhaustive-deps
  const groups: [string, Tone | undefined][] = [["in flight", "info"], ["held", "warn"], ["done", "ok"], ["refused", "bad"]];
  return (
    <Box flexDirection="column" height={height}>
      <Text bold>{`Overview · ${me ? `${me.company.slug} / ${me.environment}` : ""}`}</Text>
      {rows.map((r, i) => (
        <Text key={r.label} inverse={i === sel} wrap="truncate">
          {pad(r.label, 44)}
          <Text color={r.value === na ? tone("muted") : tone(r.tone)} bold>
            {r.value}
          </Text>
        </Text>
      ))}
      <Text> </Text>
      <Text bold>{`Transfers created per minute, by their state now, last ${minutes} minutes (latest 100 transfers)`}</Text>
      {tr ? (
        groups.map(([g, t]) => {
          const v = series.get(g) ?? new Array(minutes).fill(0);
          return (
            <Text key={g} wrap="truncate">
              {pad(g, 10)}
              <Text color={tone(t)}>{sparkline(v)}</Text>
              {/* The count is of transfers created in the window; transfers held longer are counted above. */}
              {` ${v.reduce((a, b) => a + b, 0)} new${g === "held" && total(held) !== undefined && total(held) !== null ? ` · ${total(held)} held in all` : ""}`}
            </Text>
          );
        })
      ) : (
        <Text dimColor>{na}</Text>
      )}
    </Box>
  );
}
