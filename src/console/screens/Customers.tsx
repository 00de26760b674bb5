// Customers: the list, and one customer at a glance (identity status, wallets, latest transfers, their cases) from
// Caravan's operator overview route. Names are masked without pii:view; a part the key may not read says so.
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { useConsole, useModalState, useResource } from "../context.ts";
import { navigateMasterDetail, useSelectedId } from "../hooks.ts";
import { navOf } from "../keys.ts";
import { pad, shortTime } from "../format.ts";
import { useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { Flow } from "../components/Flow.tsx";
import { paths, type CustomerListItem, type CustomerOverview } from "../api.ts";

export function customerLines(o: CustomerOverview): Line[] {
  const c = o.customer;
  const L: Line[] = [
    { text: `${c.name ?? "(no name)"} · ${c.id}${c.externalId ? ` · external ${c.externalId}` : ""}`, bold: true },
    { text: `Identity    ${c.identityStatus ?? "none attested"}${c.identityCountry ? ` (${c.identityCountry})` : ""}`, tone: c.identityStatus === "verified" ? "ok" : c.identityStatus === "blocked" ? "bad" : "warn" },
    { text: `Status      ${c.erasedAt ? `erased ${shortTime(c.erasedAt)}` : c.deactivatedAt ? `deactivated ${shortTime(c.deactivatedAt)}` : "active"} · since ${shortTime(c.createdAt)}` },
    { text: `Wallets (${o.wallets?.length ?? "no access"})`, bold: true },
  ];
  for (const w of o.wallets ?? []) L.push({ text: `  ${pad(w.network, 10)} ${w.address} ${w.verified ? "verified" : "unverified"}${w.label ? ` · ${w.label}` : ""}` });
  L.push({ text: `Transfers (${o.transfers?.length ?? "no access"}, newest first)`, bold: true });
  for (const t of o.transfers ?? []) L.push({ text: `  ${shortTime(t.createdAt)} ${t.id} ${pad(t.direction, 8)} ${pad(t.state, 22)} ${t.amount} ${t.asset}${t.protocol ? ` via ${t.protocol}` : ""}`, tone: t.state === "held" ? "warn" : t.state === "rejected" || t.state === "failed" ? "bad" : undefined });
  L.push({ text: `Cases (${o.cases?.length ?? "no access"})`, bold: true });
  for (const k of o.cases ?? []) L.push({ text: `  ${k.caseNumber} ${pad(k.type, 18)} ${pad(k.status, 6)} ${k.resolution ?? ""} ${k.priority} · ${k.transferIds.join(", ")}` });
  return L;
}

export function Customers({ height, width }: { height: number; width: number }) {
  const { modal } = useConsole();
  const tone = useTone();
  const [search, setSearch] = useState("");
  const [asking, setAsking] = useModalState<true>();
  const [openId, setOpenId] = useState<string | null>(null);
  const [scroll, setScroll] = useState(0);
  const list = useResource<CustomerListItem[]>(paths.customers({ limit: 100, search }), ["customer"], { pollMs: 15_000 });
  const items = useMemo(() => list.data ?? [], [list.data]);
  const selected = useSelectedId("customers", items, false);
  const sel = selected.index;
  const overview = useResource<CustomerOverview>(openId ? paths.customerOverview(openId) : null, ["transfer", "case"]);
  const page = Math.max(1, height - 3);
  useInput(
    (input, key) => {
      if (modal || asking) return;
      const nav = navOf(input, key);
      if (navigateMasterDetail(nav, { openId, setOpenId, setScroll, selected, page })) return;
      if (openId) return;
      if (input === "/") setAsking(true);
    },
    { isActive: !modal },
  );
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Customers${search ? ` · "${search}"` : ""} · ${items.length}`}
        <Text color={tone("muted")}>{"  Enter overview · / search (name, external ID)"}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {asking ? (
        <Flow
          title="Search customers"
          steps={[{ kind: "text", name: "q", label: "Name or external ID (empty: all)", optional: true, initial: search, max: 200 }]}
          onDone={(v) => {
            setAsking(null);
            setSearch(v.q);
          }}
          onCancel={() => setAsking(null)}
        />
      ) : openId ? (
        overview.data ? <Lines lines={customerLines(overview.data)} offset={scroll} height={height - 2} /> : <Text dimColor>{overview.error ? `✕ ${overview.error.code}: ${overview.error.error}` : "loading…"}</Text>
      ) : (
        <List
          items={items}
          selected={sel}
          height={height - 2}
          width={width}
          header={`${pad("name", 30)} ${pad("external ID", 18)} ${pad("wallets", 7)} ${pad("created", 11)} id`}
          render={(c, w) => `${pad(c.name ?? "-", 30)} ${pad(c.externalId ?? "-", 18)} ${pad(String(c.walletCount ?? 0), 7)} ${pad(shortTime(c.createdAt), 11)} ${c.id}`.slice(0, w)}
          tone={(c) => tone(c.deactivatedAt || c.erasedAt ? "muted" : undefined)}
          empty={list.loading ? "loading…" : "no customers"}
        />
      )}
    </Box>
  );
}
