// Customers: the list, and one customer at a glance (identity status, wallets, latest transfers, their cases) from
// Caravan's operator overview route. Names are masked without pii:view; a part the key may not read says so.
import { useEffect, useMemo, useState } from "react";
import Decimal from "decimal.js";
import { Box, Text, useInput } from "ink";
import { useConsole, useKept, useResource } from "../context.ts";
import { navigateMasterDetail, useCommand, useSelectedId, useYank } from "../hooks.ts";
import { navOf } from "../keys.ts";
import { pad, shortTime } from "../format.ts";
import { useTone } from "../theme.tsx";
import { type Column } from "../table.ts";
import { useListControls } from "../list-controls.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { rowTime, shortId } from "./Transfers.tsx";
import { paths, type CustomerListItem, type CustomerOverview } from "../api.ts";

/** Totals over the transfers the overview gives (its latest 50): how many, the amount per direction and asset, held, open cases. */
export function customerTotals(o: CustomerOverview): string {
  if (!o.transfers) return "no access to transfers";
  const sums = new Map<string, Decimal>();
  for (const t of o.transfers) {
    const k = `${t.direction === "incoming" ? "in" : "out"} ${t.asset}`;
    sums.set(k, (sums.get(k) ?? new Decimal(0)).plus(new Decimal(t.amount)));
  }
  const held = o.transfers.filter((t) => t.state === "held").length;
  const open = (o.cases ?? []).filter((k) => k.status === "open").length;
  const parts = [`${o.transfers.length} transfer${o.transfers.length === 1 ? "" : "s"}${o.transfers.length >= 50 ? " (the latest 50)" : ""}`, ...[...sums].map(([k, v]) => `${k.split(" ")[0]} ${v.toFixed()} ${k.split(" ")[1]}`), `${held} held`];
  if (o.cases) parts.push(`${open} open case${open === 1 ? "" : "s"} of ${o.cases.length}`);
  return parts.join(" · ");
}

export function customerLines(o: CustomerOverview, piiMasked = false, selectedTransfer = -1): Line[] {
  const c = o.customer;
  const L: Line[] = [
    { text: `${c.name ?? "(no name)"} · ${c.id}${c.externalId ? ` · external ${c.externalId}` : ""}`, bold: true },
    { text: `Identity    ${c.identityStatus ?? "none attested"}${c.identityCountry ? ` (${c.identityCountry})` : ""}`, tone: c.identityStatus === "verified" ? "ok" : c.identityStatus === "blocked" ? "bad" : "warn" },
    { text: `Status      ${c.erasedAt ? `erased ${shortTime(c.erasedAt)}` : c.deactivatedAt ? `deactivated ${shortTime(c.deactivatedAt)}` : "active"} · since ${shortTime(c.createdAt)}` },
    { text: `Totals      ${customerTotals(o)}` },
    { text: `Wallets (${o.wallets?.length ?? "no access"})`, bold: true },
  ];
  for (const w of o.wallets ?? []) L.push({ text: `  ${pad(w.network, 10)} ${w.address} ${w.verified ? "verified" : "unverified"}${w.label ? ` · ${w.label}` : ""}` });
  L.push({ text: `Transfers (${o.transfers?.length ?? "no access"}, newest first${o.transfers?.length ? "; t/T select, Enter opens it on Transfers" : ""})`, bold: true });
  for (const [i, t] of (o.transfers ?? []).entries()) L.push({ text: `${i === selectedTransfer ? "›" : " "} ${shortTime(t.createdAt)} ${t.id} ${t.direction} ${t.amount} ${t.asset} ${t.state}${t.protocol ? ` via ${t.protocol}` : ""}`, tone: t.state === "held" ? "warn" : t.state === "rejected" || t.state === "failed" ? "bad" : undefined });
  L.push({ text: `Cases (${o.cases?.length ?? "no access"})`, bold: true });
  for (const k of o.cases ?? []) L.push({ text: `  ${k.caseNumber} ${pad(k.type, 18)} ${pad(k.status, 6)} ${k.resolution ?? ""} ${k.priority} · ${k.transferIds.join(", ")}` });
  if (piiMasked) L.push({ text: "personal data masked (role without pii:view)", dim: true });
  return L;
}

export function customerColumns(width: number, now: () => number): Column<CustomerListItem>[] {
  const wide = width >= 120;
  return [
    { key: "name", title: "name", width: 16, flex: true, text: (c) => c.name ?? "-" },
    { key: "external", title: "external ID", width: 14, flex: true, text: (c) => c.externalId ?? "-" },
    { key: "wallets", title: "wallets", width: 7, right: true, text: (c) => String(c.walletCount ?? 0), sort: (c) => c.walletCount ?? 0 },
    { key: "created", title: "created", width: 11, text: (c) => rowTime(c.createdAt, now()), sort: (c) => c.createdAt },
    { key: "id", title: "ID", width: wide ? 30 : 13, text: (c) => (wide ? c.id : shortId(c.id)), sort: (c) => c.id },
  ];
}

export function Customers({ height, width, openTransfer }: { height: number; width: number; openTransfer?: (id: string) => void }) {
  const { modal, now } = useConsole();
  const tone = useTone();
  // `:search` asks the server (names by their blind index, external IDs); `/` filters the rows shown as you type.
  const [search, setSearch] = useKept("customers.search", "");
  const [openId, setOpenId] = useKept<string | null>("customers.open", null);
  const [scroll, setScroll] = useState(0);
  const list = useResource<CustomerListItem[]>(paths.customers({ limit: 100, search: search || undefined }), ["customer"], { pollMs: 15_000 });
  const cols = useMemo(() => customerColumns(width, now), [width, now]);
  const ctl = useListControls("customers", list.data ?? [], cols, width - 1, { extra: (c) => c.id });
  const items = ctl.rows;
  const selected = useSelectedId("customers", items, openId !== null);
  const overview = useResource<CustomerOverview>(openId ? paths.customerOverview(openId) : null, ["transfer", "case"]);
  // The transfer picked in the open customer's list (t next, T previous); Enter opens it on the Transfers screen.
  const [pick, setPick] = useState(0);
  useEffect(() => setPick(0), [openId]);
  const txs = openId && overview.data ? (overview.data.transfers ?? []) : [];
  const yank = useYank();
  useCommand((c) => {
    if (ctl.onCommand(c)) return true;
    if (c.name === "search") {
      setSearch(c.args.join(" "));
      return true;
    }
    return false;
  });
  const page = Math.max(1, height - 3);
  useInput(
    (input, key) => {
      if (modal) return;
      const nav = navOf(input, key);
      if (openId && txs.length) {
        if (input === "t") return setPick((p) => (p + 1) % txs.length);
        if (input === "T") return setPick((p) => (p + txs.length - 1) % txs.length);
        if (nav === "open" && openTransfer) return openTransfer(txs[Math.min(pick, txs.length - 1)].id);
      }
      if (navigateMasterDetail(nav, { openId, setOpenId, setScroll, selected, page })) return;
      if (input === "y") return yank(openId ?? selected.id);
      if (openId) return;
      ctl.onKey(input);
    },
    { isActive: !modal },
  );
  const bodyHeight = height - 2 - (ctl.bar && !openId ? 1 : 0);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Customers${search ? ` · search "${search}"` : ""} · ${list.meta.total ?? items.length}`}
        <Text color={tone("muted")}>{openId ? `  ${txs.length ? "t/T transfer · Enter open it · " : ""}Esc back · y yank` : "  Enter overview · / filter · </> sort · y yank · :search name"}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {openId ? null : ctl.bar}
      {openId ? (
        overview.data ? <Lines lines={customerLines(overview.data, overview.meta.piiMasked === true, txs.length ? Math.min(pick, txs.length - 1) : -1)} offset={scroll} height={height - 2} width={width - 1} /> : <Text dimColor>{overview.error ? `✕ ${overview.error.code}: ${overview.error.error}` : "loading…"}</Text>
      ) : (
        <List
          items={items}
          selected={selected.index}
          height={bodyHeight}
          width={width}
          header={ctl.header}
          render={(c) => ctl.render(c)}
          tone={(c) => tone(c.deactivatedAt || c.erasedAt ? "muted" : undefined)}
          empty={list.loading ? "loading…" : `no customers${ctl.filter ? ` matching "${ctl.filter}"` : ""}`}
        />
      )}
    </Box>
  );
}
