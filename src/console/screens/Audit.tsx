// Audit log: who did what in the key's environment, newest first, filtered by entity type; Enter shows one entry
// whole (actor, entity, detail as JSON).
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { useConsole, useResource } from "../context.ts";
import { navigateMasterDetail, useSelectedId } from "../hooks.ts";
import { navOf } from "../keys.ts";
import { pad, shortTime } from "../format.ts";
import { useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { paths, type AuditEntry } from "../api.ts";

const TYPES = ["all", "TransactionReport", "Case", "Rule", "Transfer", "Customer", "Wallet", "ApiKey", "Threshold"] as const;

export function auditLines(e: AuditEntry): Line[] {
  return [
    { text: `${e.action} · ${e.entityType} ${e.entityId ?? ""}`, bold: true },
    { text: `At          ${e.createdAt}` },
    { text: `Actor       ${e.actor?.type}${e.actor?.memberId ? ` ${e.actor.memberId}` : ""}${e.actor?.apiKeyId ? ` (key ${e.actor.apiKeyId})` : ""}` },
    { text: `Environment ${e.environment}` },
    { text: "Detail", bold: true },
    ...JSON.stringify(e.detail ?? {}, null, 2)
      .split("\n")
      .map((t) => ({ text: `  ${t}` })),
  ];
}

export function Audit({ height, width }: { height: number; width: number }) {
  const { modal } = useConsole();
  const tone = useTone();
  const [type, setType] = useState<(typeof TYPES)[number]>("all");
  const [openId, setOpenId] = useState<string | null>(null);
  const [scroll, setScroll] = useState(0);
  const list = useResource<AuditEntry[]>(paths.auditLog({ limit: 200, entityType: type === "all" ? undefined : type }), ["transfer", "case"], { pollMs: 10_000 });
  const items = useMemo(() => list.data ?? [], [list.data]);
  const selected = useSelectedId("audit", items, false);
  const sel = selected.index;
  const open = openId ? items.find((e) => e.id === openId) : null;
  const page = Math.max(1, height - 3);
  useInput(
    (input, key) => {
      if (modal) return;
      const nav = navOf(input, key);
      if (navigateMasterDetail(nav, { openId, setOpenId, setScroll, selected, page })) return;
      if (openId) return;
      if (input === "f") setType((t) => TYPES[(TYPES.indexOf(t) + 1) % TYPES.length]);
    },
    { isActive: !modal },
  );
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Audit log · ${type} · ${items.length}${list.meta.total !== undefined ? ` of ${list.meta.total}` : ""}`}
        <Text color={tone("muted")}>{"  f entity type · Enter entry"}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {open ? (
        <Lines lines={auditLines(open)} offset={scroll} height={height - 2} />
      ) : (
        <List
          items={items}
          selected={sel}
          height={height - 2}
          width={width}
          header={`${pad("at", 11)} ${pad("action", 26)} ${pad("entity", 18)} ${pad("entity ID", 30)} actor`}
          render={(e, w) => `${pad(shortTime(e.createdAt), 11)} ${pad(e.action, 26)} ${pad(e.entityType, 18)} ${pad(e.entityId ?? "-", 30)} ${e.actor?.memberId ?? e.actor?.type ?? ""}`.slice(0, w)}
          empty={list.loading ? "loading…" : "no entries"}
        />
      )}
    </Box>
  );
}
