// Deliveries: webhook subscriptions with their health, a subscription's (failing) deliveries, retry one.
import { useState } from "react";
import { Box, Text, useInput } from "ink";
import { withQuery } from "../client.ts";
import { allows, useConsole, useModalState, useResource } from "../context.ts";
import { act, useSelection } from "../hooks.ts";
import { moveSelection, navOf } from "../keys.ts";
import { ago, cut, pad } from "../format.ts";
import { stateTone, useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Flow } from "../components/Flow.tsx";

export function health(w: any): string {
  if (w.status !== "active") return w.status;
  if (w.consecutiveFailures > 0) return `failing ×${w.consecutiveFailures}`;
  return w.lastSuccessAt ? "healthy" : "no deliveries";
}

export function Deliveries({ height, width }: { height: number; width: number }) {
  const { client, me, modal, flash, now } = useConsole();
  const tone = useTone();
  const subs = useResource<any[]>("/api/v2/webhooks?limit=200", [], { pollMs: 3_000 });
  const items = subs.data ?? [];
  const [sel, setSel] = useSelection(items.length);
  const [openId, setOpenId] = useState<string | null>(null);
  const [failedOnly, setFailedOnly] = useState(true);
  const [confirm, setConfirm] = useModalState<true>();
  const dels = useResource<any[]>(openId ? withQuery(`/api/v2/webhooks/${openId}/deliveries`, { status: failedOnly ? "failed" : undefined, limit: 100 }) : null, [], { pollMs: 3_000 });
  const ditems = dels.data ?? [];
  const [dsel, setDsel] = useSelection(ditems.length);
  const page = Math.max(1, height - 3);
  const sub = items.find((w) => w.id === openId);
  useInput(
    (input, key) => {
      if (modal || confirm) return;
      const nav = navOf(input, key);
      if (openId) {
        if (nav === "back") return setOpenId(null);
        if (nav && nav !== "open") return setDsel((s) => moveSelection(s, nav, ditems.length, page));
        if (input === "f") return setFailedOnly((f) => !f);
        if (input === "r" && ditems[dsel]) {
          if (!allows(me, "webhooks:write", "webhooks:update")) return flash("✕ not allowed: the key needs webhooks:write and the role webhooks:update", "bad");
          return setConfirm(true);
        }
      } else if (nav === "open" && items[sel]) setOpenId(items[sel].id);
      else if (nav) setSel((s) => moveSelection(s, nav, items.length, page));
    },
    { isActive: !modal },
  );
  const retry = () => {
    setConfirm(null);
    const d = ditems[dsel];
    if (!d || !openId) return;
    void act(flash, client.send<any>("POST", `/api/v2/webhooks/${openId}/deliveries/${d.id}/retry`), (r) => `delivery ${d.id} retried: ${r.delivered ? "delivered" : "failed again"}`).then(() => {
      dels.reload();
      subs.reload();
    });
  };
  const subHeader = `${pad("name", 24)} ${pad("status", 8)} ${pad("health", 14)} ${pad("sent", 6, true)} ${pad("last ok", 7, true)} url`;
  const delHeader = `${pad("delivery", 30)} ${pad("event", 18)} ${pad("status", 7)} ${pad("try", 5)} ${pad("http", 4)} error`;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {openId ? `Deliveries of ${sub?.name ?? openId} · ${failedOnly ? "failed" : "all"} · ${dels.meta.total ?? ditems.length}` : `Webhook subscriptions · ${subs.meta.total ?? items.length}`}
        <Text color={tone("muted")}>{openId ? "  f failed/all · r retry · Esc back" : "  Enter deliveries"}</Text>
      </Text>
      {subs.error ? <Text color={tone("bad")}>{`✕ ${subs.error.code}: ${subs.error.error}`}</Text> : null}
      {confirm ? (
        <Flow title="Retry delivery" steps={[{ kind: "confirm", label: () => `Send delivery ${ditems[dsel]?.id} (${ditems[dsel]?.eventType}) again, signed anew?` }]} onDone={retry} onCancel={() => setConfirm(null)} />
      ) : openId ? (
        <List
          items={ditems}
          selected={dsel}
          height={height - 2}
          width={width}
          header={delHeader}
          render={(d, w) => {
            const fixed = `${pad(d.id, 30)} ${pad(d.eventType, 18)} ${pad(d.status, 7)} ${pad(`${d.attempts}/${d.maxAttempts}`, 5)} ${pad(d.httpStatus == null ? "-" : String(d.httpStatus), 4)} `;
            return fixed + cut(d.lastError ?? "", Math.max(0, w - fixed.length));
          }}
          tone={(d) => tone(stateTone(d.status))}
          empty={dels.loading ? "loading…" : failedOnly ? "no failed deliveries" : "no deliveries"}
        />
      ) : (
        <List
          items={items}
          selected={sel}
          height={height - 2}
          width={width}
          header={subHeader}
          render={(w, width) => {
            const fixed = `${pad(w.name, 24)} ${pad(w.status, 8)} ${pad(health(w), 14)} ${pad(String(w.deliveryCount ?? 0), 6, true)} ${pad(ago(w.lastSuccessAt, now()), 7, true)} `;
            return fixed + cut(w.url, Math.max(0, width - fixed.length));
          }}
          tone={(w) => tone(w.consecutiveFailures > 0 ? "bad" : stateTone(w.status))}
          empty={subs.loading ? "loading…" : "no webhook subscriptions"}
        />
      )}
    </Box>
  );
}
