// Rules: promotion from test to live. In live, the test environment's rules and where each went live; `p` copies the
// selected one to live with its conditions (all or nothing, audited in both environments), for a signed-in member
// only (a key is refused OFFICER_SESSION_REQUIRED). In test, the environment's rules and a note that promotion needs live.
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { allows, useConsole, useModalState, useResource } from "../context.ts";
import { act, useSelectedId } from "../hooks.ts";
import { moveSelection, navOf } from "../keys.ts";
import { pad } from "../format.ts";
import { useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Flow } from "../components/Flow.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { actionWords, branchText, branchWords } from "../evidence.ts";
import { paths, type PromotableRule, type RuleDetail, type RuleListItem } from "../api.ts";

/** A rule's detail: what it applies to, and each branch in words with its code beside it. */
export function ruleDetailLines(r: RuleDetail): Line[] {
  const L: Line[] = [
    { text: `${r.name} · ${r.isActive ? "active" : "inactive"} · ${r.id}`, bold: true },
    { text: `Does        ${actionWords(r.action)} (${r.action}) · ${r.category} · severity ${r.severity}` },
    { text: `Checks at   ${r.stage === "both" ? "precheck and postcheck" : r.stage}${r.jurisdictions.length ? ` · jurisdictions ${r.jurisdictions.join(", ")}` : " · every jurisdiction"}` },
    { text: `Applies to  ${r.threshold !== null ? `amounts ${r.thresholdOperator === "lt" ? "under" : r.thresholdOperator === "eq" ? "of" : "over"} ${r.threshold} ${r.thresholdCurrency ?? "USD"}` : "any amount"}${r.asset ? ` · asset ${r.asset}` : ""}${r.network ? ` · network ${r.network}` : ""}` },
  ];
  if (r.description) L.push({ text: `About       ${r.description}` });
  L.push({ text: `Conditions (${(r.conditions ?? []).length})`, bold: true });
  if (!(r.conditions ?? []).length) L.push({ text: "  none: the rule acts on every transfer it applies to", dim: true });
  for (const b of r.conditions ?? []) {
    L.push({ text: `  ${branchWords(b)}` });
    L.push({ text: `    ${branchText(b)}`, dim: true });
  }
  return L;
}

export function Rules({ height, width }: { height: number; width: number }) {
  const { client, modal, flash, me } = useConsole();
  const tone = useTone();
  const live = me?.environment === "live";
  const [asking, setAsking] = useModalState<true>();
  const list = useResource<(RuleListItem & Partial<PromotableRule>)[]>(live ? paths.promotableRules({ limit: 200 }) : paths.rules({ limit: 100 }), [], { pollMs: 15_000 });
  const items = useMemo(() => list.data ?? [], [list.data]);
  const [openId, setOpenId] = useState<string | null>(null);
  const selected = useSelectedId("rules", items, openId !== null);
  const det = useResource<RuleDetail>(openId ? paths.rule(openId) : null, [], { pollMs: 15_000 });
  const sel = selected.index;
  const current = items[sel];
  useInput(
    (input, key) => {
      if (modal || asking) return;
      const nav = navOf(input, key);
      if (openId) {
        if (nav === "back") return setOpenId(null);
      } else if (nav === "open" && current) return setOpenId(current.id);
      else if (nav && nav !== "back") {
        return selected.move(nav, Math.max(1, height - 3));
      }
      if (input !== "p" || !current) return;
      if (!live) return flash("✕ promotion changes live: sign in to the live environment", "bad");
      if (!client.signedIn) return flash("✕ promoting a rule is an officer's: open the console without --key and sign in", "bad");
      if (!allows(me, "rules:write", "rules:create")) return flash("✕ not allowed: the key needs rules:write and the role rules:create", "bad");
      if (current.promotedTo) return flash(`✕ ${current.id} is live already as ${current.promotedTo}; change that rule instead`, "bad");
      setAsking(true);
    },
    { isActive: !modal },
  );
  const promote = () => {
    setAsking(null);
    if (!current) return;
    void act(flash, client.send<RuleDetail>("POST", paths.rulePromote(current.id)), (d, m) => `promoted ${m.promotedFrom} "${d.name}" to live as ${d.id} (${d.conditionCount} conditions)`).then(() => list.reload());
  };
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {live ? `Rules proven in test · ${items.length}` : `Rules (${me?.environment ?? "?"}) · ${items.length}`}
        <Text color={tone("muted")}>{`  Enter opens a rule${openId ? " · Esc back" : ""}${live ? (client.signedIn ? " · p promote to live" : " · promoting needs a member's sign-in") : " · promotion to live needs a live sign-in"}`}</Text>
      </Text>
      {list.error ? <Text color={tone("bad")}>{`✕ ${list.error.code}: ${list.error.error}`}</Text> : null}
      {asking && current ? (
        <Flow
          title="Promote to live"
          steps={[{ kind: "confirm", label: () => `Copy test rule ${current.id} "${current.name}" (${current.action}, ${current.conditionCount} conditions, ${current.isActive ? "active" : "inactive"}) to live? It judges live transfers at once if active. (y/n)` }]}
          onDone={promote}
          onCancel={() => setAsking(null)}
        />
      ) : openId ? (
        det.data ? <Lines lines={ruleDetailLines(det.data)} offset={0} height={height - 2} width={width - 1} /> : <Text dimColor>{det.error ? `✕ ${det.error.code}: ${det.error.error}` : "loading…"}</Text>
      ) : (
        <List
          items={items}
          selected={sel}
          height={height - 2}
          width={width}
          header={`${pad("name", 30)} ${pad("action", 14)} ${pad("stage", 9)} ${pad("severity", 8)} ${pad("category", 9)} ${pad("active", 6)} ${pad("conds", 5)} ${live ? "live" : "id"}`}
          render={(r, w) => `${pad(r.name, 30)} ${pad(r.action, 14)} ${pad(r.stage ?? "-", 9)} ${pad(r.severity ?? "-", 8)} ${pad(r.category ?? "-", 9)} ${pad(r.isActive ? "yes" : "no", 6)} ${pad(String(r.conditionCount), 5)} ${live ? (r.promotedTo ?? "-") : r.id}`.slice(0, w)}
          tone={(r) => tone(r.promotedTo ? "ok" : undefined)}
          empty={list.loading ? "loading…" : "no rules"}
        />
      )}
    </Box>
  );
}
