// Deliveries: webhook subscriptions with their health, a subscription's (failing) deliveries with the transfer or case
// each concerns, Enter on a delivery opens its attempts (count, last HTTP status, response time, error, next retry),
// `o` opens the transfer or case it concerns, retry one.
import { useMemo } from "react";
import { Box, Text, useInput } from "ink";
import { paths, type Delivery, type Webhook } from "../api.ts";
import { allows, useConsole, useKept, useModalState, useResource } from "../context.ts";
import { act, useCommand, useSelectedId, useYank } from "../hooks.ts";
import { navOf } from "../keys.ts";
import { ago, shortTime } from "../format.ts";
import type { Column } from "../table.ts";
import { useListControls } from "../list-controls.tsx";
import { stateTone, useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { Flow } from "../components/Flow.tsx";
import { rowTime, shortId } from "./Transfers.tsx";
import { whyNot } from "../access.ts";
import { EVENT_TYPES } from "../../api/webhooks.ts";

export function health(w: Pick<Webhook, "status" | "consecutiveFailures" | "lastSuccessAt">): string {
  if (w.status !== "active") return w.status;
  if (w.consecutiveFailures > 0) return `failing ×${w.consecutiveFailures}`;
  return w.lastSuccessAt ? "healthy" : "no deliveries";
}

function subColumns(now: () => number): Column<Webhook>[] {
  return [
    { key: "name", title: "name", width: 24, text: (w) => w.name },
    { key: "status", title: "status", width: 8, text: (w) => w.status },
    { key: "health", title: "health", width: 14, text: health, sort: (w) => w.consecutiveFailures },
    { key: "sent", title: "sent", width: 6, right: true, text: (w) => String(w.deliveryCount ?? 0), sort: (w) => w.deliveryCount ?? 0 },
    { key: "lastok", title: "last ok", width: 7, right: true, text: (w) => ago(w.lastSuccessAt, now()), sort: (w) => w.lastSuccessAt },
    { key: "url", title: "url", width: 20, flex: true, text: (w) => w.url },
  ];
}

/** The longest event name a delivery may carry: the event column is never narrower, so no name is cut. */
export const EVENT_WIDTH = Math.max(...EVENT_TYPES.map((e) => e.length));

/** What a delivery concerns, as the API names it: `transfer trf_…`, `case cas_…`; nothing for a ping or a checkpoint. */
export function subjectText(d: Pick<Delivery, "subject">, full = true): string {
  const s = d.subject;
  return s ? `${s.type} ${full ? s.id : shortId(s.id)}` : "-";
}

export function deliveryColumns(width: number, now: () => number): Column<Delivery>[] {
  // The event column fits every event name; the delivery ID, the subject's ID and the error give way first: from 150
  // columns both IDs are whole, from 120 the subject reads `transfer trf_…` shortened, below that its ID alone (the
  // prefix says which), and the error starts narrower below 110 (its whole text is in the attempts).
  const wide = width >= 150;
  const concerns = wide ? 39 : width >= 120 ? 22 : 13;
  return [
    { key: "time", title: "time", width: 11, text: (d) => rowTime(d.createdAt, now()), sort: (d) => d.createdAt },
    { key: "id", title: "delivery", width: wide ? 30 : 14, text: (d) => (wide ? d.id : `${d.id.slice(0, 4)}…${d.id.slice(-8)}`), sort: (d) => d.id },
    { key: "event", title: "event", width: EVENT_WIDTH, text: (d) => d.eventType },
    {
      key: "concerns",
      title: "concerns",
      width: concerns,
      text: (d) => (concerns === 13 ? (d.subject ? shortId(d.subject.id) : "-") : subjectText(d, wide)),
      sort: (d) => (d.subject ? `${d.subject.type} ${d.subject.id}` : ""),
    },
    { key: "status", title: "status", width: 7, text: (d) => d.status },
    { key: "try", title: "try", width: 5, text: (d) => `${d.attempts}/${d.maxAttempts}`, sort: (d) => d.attempts },
    { key: "http", title: "http", width: 4, text: (d) => (d.httpStatus == null ? "-" : String(d.httpStatus)), sort: (d) => d.httpStatus ?? -1 },
    { key: "error", title: "error", width: width >= 110 ? 12 : 8, flex: true, text: (d) => d.lastError ?? "" },
  ];
}

/** A delivery's attempts as the API records them: how many of how many, the last answer, what comes next. */
export function deliveryLines(d: Delivery, sub: string): Line[] {
  const next = d.status === "failed" ? "none: r sends it again, signed anew" : d.nextRetryAt ? `automatic retry at ${shortTime(d.nextRetryAt)}` : d.status === "sent" ? "none (sent)" : "-";
  return [
    { text: `${d.id} · ${d.eventType} · ${d.status} · to ${sub}`, bold: true, tone: stateTone(d.status) },
    { text: `Concerns    ${d.subject ? `${d.subject.type} ${d.subject.id}  (o or Enter opens it)` : "nothing named: a test ping, an audit checkpoint, or an event removed after the retention window"}`, dim: !d.subject },
    { text: `Created     ${d.createdAt}` },
    { text: `Attempts    ${d.attempts} of at most ${d.maxAttempts}` },
    { text: `Last answer ${d.httpStatus == null ? "no HTTP answer" : `HTTP ${d.httpStatus}`}${d.responseTimeMs != null ? ` in ${d.responseTimeMs} ms` : ""}`, tone: d.httpStatus != null && d.httpStatus < 300 ? "ok" : "bad" },
    { text: `Last error  ${d.lastError ?? "-"}`, tone: d.lastError ? "bad" : undefined },
    { text: `Sent        ${d.sentAt ?? "not delivered"}` },
    { text: `Next        ${next}` },
    { text: "The API keeps the count and the last attempt's answer, not a record per attempt.", dim: true },
  ];
}

export function Deliveries({ height, width, openCase, openTransfer }: { height: number; width: number; openCase?: (id: string) => void; openTransfer?: (id: string) => void }) {
  const { client, me, modal, flash, now } = useConsole();
  const tone = useTone();
  const subs = useResource<Webhook[]>("/api/v2/webhooks?limit=200", [], { pollMs: 3_000 });
  const [openId, setOpenId] = useKept<string | null>("deliveries.sub", null);
  const [deliveryOpen, setDeliveryOpen] = useKept<string | null>("deliveries.open", null);
  const [failedOnly, setFailedOnly] = useKept("deliveries.failedOnly", true);
  const [confirm, setConfirm] = useModalState<{ id: string; eventType: string }>();
  const scols = useMemo(() => subColumns(now), [now]);
  const sctl = useListControls("deliveries.subs", subs.data ?? [], scols, width - 1);
  const ssel = useSelectedId("deliveries.subs", sctl.rows, false);
  const dels = useResource<Delivery[]>(openId ? paths.deliveries(openId, { status: failedOnly ? "failed" : undefined, limit: 100 }) : null, [], { pollMs: 3_000 });
  const dcols = useMemo(() => deliveryColumns(width, now), [width, now]);
  const dctl = useListControls("deliveries.list", dels.data ?? [], dcols, width - 1);
  const dsel = useSelectedId("deliveries.list", dctl.rows, deliveryOpen !== null);
  const page = Math.max(1, height - 3);
  const sub = (subs.data ?? []).find((w) => w.id === openId);
  const opened = deliveryOpen ? ((dels.data ?? []).find((d) => d.id === deliveryOpen) ?? null) : null;
  const yank = useYank();
  const ctl = openId ? dctl : sctl;
  /** Opens the transfer or case the delivery concerns on its own screen, or says why it cannot. */
  const openSubject = (d: Delivery | null) => {
    const s = d?.subject;
    if (!d || !s) return flash(`✕ ${d ? `${d.id} (${d.eventType}) names no transfer or case` : "no delivery selected"}`, "bad");
    const why = s.type === "transfer" ? whyNot(me, "transfers:read", "transfers:view") : whyNot(me, "cases:read", "cases:view");
    if (why) return flash(`✕ cannot open ${s.type} ${s.id}: ${why}`, "bad");
    return s.type === "transfer" ? openTransfer?.(s.id) : openCase?.(s.id);
  };
  useCommand((c) => ctl.onCommand(c));
  useInput(
    (input, key) => {
      if (modal || confirm) return;
      const nav = navOf(input, key);
      if (openId) {
        if (deliveryOpen) {
          if (nav === "back") return setDeliveryOpen(null);
          if (nav === "open") return openSubject(opened);
        } else {
          if (nav === "back") return setOpenId(null);
          if (nav === "open" && dsel.id) return setDeliveryOpen(dsel.id);
          if (nav) return dsel.move(nav, page);
          if (dctl.onKey(input)) return;
          if (input === "f") return setFailedOnly((f) => !f);
        }
        if (input === "y") return yank(deliveryOpen ?? dsel.id);
        const d = deliveryOpen ? opened : dsel.item;
        if (input === "o") return openSubject(d ?? null);
        if (input === "r" && d) {
          if (d.status !== "failed") return flash(`✕ r retries a failed delivery; ${d.id} is ${d.status}`, "bad");
          if (!allows(me, "webhooks:write", "webhooks:update")) return flash("✕ not allowed: the key needs webhooks:write and the role webhooks:update", "bad");
          return setConfirm({ id: d.id, eventType: d.eventType });
        }
      } else if (nav === "open" && ssel.id) setOpenId(ssel.id);
      else if (nav) ssel.move(nav, page);
      else if (sctl.onKey(input)) return;
      else if (input === "y") yank(ssel.id);
    },
    { isActive: !modal },
  );
  const retry = () => {
    const d = confirm;
    setConfirm(null);
    if (!d || !openId) return;
    void act(flash, client.send<{ deliveryId: string; delivered: boolean }>("POST", `/api/v2/webhooks/${openId}/deliveries/${d.id}/retry`), (r) => `delivery ${d.id} retried: ${r.delivered ? "delivered" : "failed again"}`).then(() => {
      dels.reload();
      subs.reload();
    });
  };
  const title = openId ? `Deliveries of ${sub?.name ?? openId} · ${failedOnly ? "failed" : "all"} · ${dels.meta.total ?? (dels.data ?? []).length}` : `Webhook subscriptions · ${subs.meta.total ?? (subs.data ?? []).length}`;
  const hint = openId ? (deliveryOpen ? "  o/Enter open what it concerns · r retry · y yank · Esc back" : "  f failed/all · / filter · </> sort · Enter attempts · o open transfer/case · r retry · y yank · Esc back") : "  / filter · </> sort · Enter deliveries";
  const bodyHeight = height - 2 - (ctl.bar ? 1 : 0);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {title}
        <Text color={tone("muted")}>{hint}</Text>
      </Text>
      {subs.error ? <Text color={tone("bad")}>{`✕ ${subs.error.code}: ${subs.error.error}`}</Text> : null}
      {deliveryOpen ? null : ctl.bar}
      {confirm ? (
        <Flow title="Retry delivery" steps={[{ kind: "confirm", label: () => `Send delivery ${confirm.id} (${confirm.eventType}) again, signed anew?` }]} onDone={retry} onCancel={() => setConfirm(null)} />
      ) : openId && deliveryOpen ? (
        opened ? <Lines lines={deliveryLines(opened, sub?.name ?? openId)} offset={0} height={height - 2} width={width - 1} /> : <Text dimColor>{dels.loading ? "loading…" : `${deliveryOpen} is not in this list any more (f shows all)`}</Text>
      ) : openId ? (
        <List items={dctl.rows} selected={dsel.index} height={bodyHeight} width={width} header={dctl.header} render={(d) => dctl.render(d)} tone={(d) => tone(stateTone(d.status))} empty={dels.loading ? "loading…" : failedOnly ? "no failed deliveries" : "no deliveries"} />
      ) : (
        <List items={sctl.rows} selected={ssel.index} height={bodyHeight} width={width} header={sctl.header} render={(w) => sctl.render(w)} tone={(w) => tone(w.consecutiveFailures > 0 ? "bad" : stateTone(w.status))} empty={subs.loading ? "loading…" : "no webhook subscriptions"} />
      )}
    </Box>
  );
}
