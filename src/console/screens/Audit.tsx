// Audit log: who did what in the key's environment, newest first, reloaded as events arrive; `f` asks the server for
// one entity type, `/` filters as you type by action, actor or ID; Enter shows one entry whole (actor, entity, detail
// as JSON, which the API writes without secrets or personal data values).
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { useConsole, useKept, useKeptRef, useResource } from "../context.ts";
import { navigateMasterDetail, useCommand, useSelectedId, useYank } from "../hooks.ts";
import { navOf } from "../keys.ts";
import { useTone } from "../theme.tsx";
import { type Column } from "../table.ts";
import { useListControls } from "../list-controls.tsx";
import { rowTime, shortId } from "./Transfers.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { paths, type AuditCheckpoint, type AuditEntry } from "../api.ts";

const TYPES = ["all", "TransactionReport", "Case", "Rule", "Transfer", "Customer", "Wallet", "ApiKey", "Threshold"];

/** The log's latest signed checkpoint in one line (size, root, time), for the operator to compare with a kept one. */
export function checkpointLine(c: AuditCheckpoint | null | undefined): string {
  if (!c || typeof c.treeSize !== "number") return "Checkpoint  none signed yet";
  return `Checkpoint  ${c.treeSize} entries · root ${c.rootHash.slice(0, 16)}… · ${c.timestamp} · key ${c.keyId}`;
}

/**
 * How much of the log the screen holds: `200 loaded of 1147 · more older (m)`, or `· all loaded`; with a `/` filter
 * the shown count comes first (`3 shown of 200 loaded …`).
 */
export function loadedText(shown: number, loaded: number, total: number | undefined, hasMore: boolean, loading: boolean): string {
  const head = shown === loaded ? `${loaded} loaded` : `${shown} shown of ${loaded} loaded`;
  const of = total !== undefined ? ` of ${total}` : "";
  return `${head}${of} · ${loading ? "loading older…" : hasMore ? "more older (m)" : "all loaded"}`;
}

export function auditLines(e: AuditEntry): Line[] {
  return [
    { text: `${e.action} · ${e.entityType} ${e.entityId ?? ""}`, bold: true },
    { text: `At          ${e.createdAt}` },
    { text: `Actor       ${e.actor?.type}${e.actor?.memberId ? ` ${e.actor.memberId}` : ""}${e.actor?.apiKeyId ? ` (key ${e.actor.apiKeyId})` : ""}${e.actor?.sessionId ? ` (session ${e.actor.sessionId})` : ""}` },
    { text: `Environment ${e.environment}` },
    { text: "Detail", bold: true },
    ...JSON.stringify(e.detail ?? {}, null, 2)
      .split("\n")
      .map((t) => ({ text: `  ${t}` })),
  ];
}

/** The actor as a row shows it: the member (or the system), "(me)" when it is the key's own member. */
export function actorText(e: AuditEntry, meId: string | null, wide: boolean): string {
  const id = e.actor?.memberId ?? e.actor?.apiKeyId ?? e.actor?.type ?? "";
  const shown = wide || id.length <= 14 ? id : shortId(id);
  return e.actor?.memberId && e.actor.memberId === meId ? `${shown} (me)` : shown;
}

export function auditColumns(width: number, now: () => number, meId: string | null): Column<AuditEntry>[] {
  const wide = width >= 120;
  return [
    { key: "at", title: "at", width: 11, text: (e) => rowTime(e.createdAt, now()), sort: (e) => e.createdAt },
    { key: "action", title: "action", width: 18, flex: true, text: (e) => e.action },
    { key: "entity", title: "entity", width: 14, minTotal: 100, text: (e) => e.entityType },
    { key: "id", title: "entity ID", width: wide ? 30 : 13, text: (e) => (wide || !e.entityId ? (e.entityId ?? "-") : shortId(e.entityId)), sort: (e) => e.entityId },
    { key: "actor", title: "actor", width: wide ? 36 : 18, text: (e) => actorText(e, meId, wide) },
  ];
}

export function Audit({ height, width }: { height: number; width: number }) {
  const { modal, me, now, client } = useConsole();
  const tone = useTone();
  const [type, setType] = useKept<string>("audit.type", "all");
  // `:member <ID>|me|all`: the server's filter on the acting member (an officer's actions, each with its session).
  const [member, setMember] = useKept<string | null>("audit.member", null);
  // `f` cycles through the usual entity types and every other one the log has shown (the log spells some lower case).
  const seen = useKeptRef<string[]>("audit.types", [...TYPES]);
  const [openId, setOpenId] = useKept<string | null>("audit.open", null);
  const [scroll, setScroll] = useState(0);
  // Reloaded by every event (an action on a transfer or case writes its entry first) and polled for the rest.
  const list = useResource<AuditEntry[]>(paths.auditLog({ limit: 200, entityType: type === "all" ? undefined : type, memberId: member ?? undefined }), ["transfer", "case"], { pollMs: 5_000 });
  const checkpoint = useResource<AuditCheckpoint>(paths.auditCheckpoint(), [], { pollMs: 30_000 });
  // Older pages, read with the API's cursor (`m`, or the selection reaching the end): kept for the same server
  // filter only; the first page keeps reloading, and an entry both pages hold is shown once.
  const filterKey = `${type}|${member ?? ""}`;
  const [older, setOlder] = useKept<{ key: string; rows: AuditEntry[]; cursor: string | null; hasMore: boolean; loading: boolean }>("audit.older", { key: "", rows: [], cursor: null, hasMore: true, loading: false });
  const olderNow = older.key === filterKey ? older : { key: filterKey, rows: [], cursor: null, hasMore: true, loading: false };
  const hasMore = olderNow.rows.length ? olderNow.hasMore : list.meta.hasMore === true;
  const loadOlder = () => {
    const cursor = olderNow.rows.length ? olderNow.cursor : (list.meta.cursor ?? null);
    if (!hasMore || !cursor || olderNow.loading) return;
    setOlder({ ...olderNow, loading: true });
    const path = `${paths.auditLog({ limit: 200, entityType: type === "all" ? undefined : type, memberId: member ?? undefined })}&cursor=${encodeURIComponent(cursor)}`;
    void client.get<AuditEntry[]>(path).then((r) =>
      setOlder((o) => {
        const base = o.key === filterKey ? o : olderNow;
        if (!r.ok) return { ...base, loading: false };
        return { key: filterKey, rows: [...base.rows, ...r.data], cursor: r.meta.cursor ?? null, hasMore: r.meta.hasMore === true, loading: false };
      }),
    );
  };
  const loaded = useMemo(() => {
    const first = list.data ?? [];
    const ids = new Set(first.map((e) => e.id));
    return [...first, ...olderNow.rows.filter((e) => !ids.has(e.id))];
  }, [list.data, olderNow.rows]);
  const cols = useMemo(() => auditColumns(width, now, me?.member.id ?? null), [width, now, me]);
  // `/` matches what a row shows and the full IDs: entity, member, key.
  const ctl = useListControls("audit", loaded, cols, width - 1, { extra: (e) => `${e.entityType} ${e.entityId ?? ""} ${e.actor?.memberId ?? ""} ${e.actor?.apiKeyId ?? ""} ${e.actor?.type ?? ""}` });
  for (const e of loaded) if (e.entityType && !seen.current.includes(e.entityType)) seen.current = [...seen.current, e.entityType];
  const items = ctl.rows;
  const selected = useSelectedId("audit", items, openId !== null);
  // The entry stays on screen when a filter or a reload drops it from the list: it is read by its ID.
  const fromList = openId ? loaded.find((e) => e.id === openId) : null;
  const one = useResource<AuditEntry>(openId && !fromList ? `${paths.auditLog()}/${encodeURIComponent(openId)}` : null, [], { pollMs: 60_000 });
  const open = fromList ?? one.data;
  const yank = useYank();
  useCommand((c) => {
    if (c.name !== "member") return ctl.onCommand(c);
    const who = c.args[0];
    setMember(!who || who === "all" ? null : who === "me" ? (me?.member.id ?? null) : who);
    return true;
  });
  const page = Math.max(1, height - 3);
  useInput(
    (input, key) => {
      if (modal) return;
      const nav = navOf(input, key);
      // Moving down past the last loaded entry reads the next older page.
      if (!openId && (nav === "down" || nav === "bottom" || nav === "pageDown") && selected.index >= items.length - 1 && hasMore) loadOlder();
      if (navigateMasterDetail(nav, { openId, setOpenId, setScroll, selected, page })) return;
      if (input === "y") return yank(openId ?? selected.id);
      if (openId) return;
      if (ctl.onKey(input)) return;
      if (input === "m") return loadOlder();
      if (input === "f") setType((t) => seen.current[(seen.current.indexOf(t) + 1) % seen.current.length]);
    },
    { isActive: !modal },
  );
  const bodyHeight = height - 3 - (ctl.bar && !openId ? 1 : 0);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Audit log · ${type}${member ? ` · by ${member}` : ""} · ${loadedText(items.length, loaded.length, list.meta.total, hasMore, olderNow.loading)}`}
        <Text color={tone("muted")}>{openId ? "  Esc back · y yank" : "  m older · f entity type · :member <ID>|me|all · / filter (action, actor, ID) · </> sort · Enter entry"}</Text>
      </Text>
      <Text color={tone("muted")} wrap="truncate">
        {checkpointLine(checkpoint.data)}
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {openId ? null : ctl.bar}
      {openId ? (
        open ? <Lines lines={auditLines(open)} offset={scroll} height={height - 3} width={width - 1} /> : <Text dimColor>{one.error ? `✕ ${one.error.code}: ${one.error.error}` : "loading…"}</Text>
      ) : (
        <List
          items={items}
          selected={selected.index}
          height={bodyHeight}
          width={width}
          header={ctl.header}
          render={(e) => ctl.render(e)}
          empty={list.loading ? "loading…" : `no entries${ctl.filter ? ` matching "${ctl.filter}"` : ""}`}
        />
      )}
    </Box>
  );
}
