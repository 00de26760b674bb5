// Keys and members: the company's API keys (last use, expiry, unused 90 days marked) and its members (role, status,
// sign-in set up, open sessions). A signed-in owner creates a key (shown once), revokes one, invites a member (the
// setup code shown once), changes a role, deactivates; each an audited action of that member and session.
import { useMemo, useState } from "react";
import { Box, Text, useInput } from "ink";
import { useConsole, useKept, useResource } from "../context.ts";
import { act, useCommand, useSelectedId, useYank } from "../hooks.ts";
import { navOf } from "../keys.ts";
import { pad } from "../format.ts";
import { useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { paths } from "../api.ts";
import type { ApiKeyCreated, ApiKeyItem, MemberInvited, MemberItem } from "../../api/index.ts";

const ROLES = ["owner", "compliance_officer", "analyst", "developer"];
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : "never");

export function Team({ height, width }: { height: number; width: number }) {
  const { client, modal, flash } = useConsole();
  const tone = useTone();
  const [view, setView] = useKept<"keys" | "members">("team.view", "keys");
  const [shownOnce, setShownOnce] = useState<string | null>(null);
  const keys = useResource<ApiKeyItem[]>(client.signedIn ? paths.keys() : null, [], { pollMs: 15_000 });
  const members = useResource<MemberItem[]>(client.signedIn ? paths.members() : null, [], { pollMs: 15_000 });
  const items = useMemo(() => (view === "keys" ? (keys.data ?? []) : (members.data ?? [])) as { id: string }[], [view, keys.data, members.data]);
  const selected = useSelectedId(`team.${view}`, items, false);
  const yank = useYank();
  const memberByEmail = (email: string) => (members.data ?? []).find((m) => m.email === email.toLowerCase());

  const changeMember = (email: string | undefined, change: { role?: string; status?: string }, what: string) => {
    const m = email ? memberByEmail(email) : undefined;
    if (!m) return flash(`✕ no member with email ${email ?? "(none given)"}`, "bad");
    void act(flash, client.send<MemberItem>("PATCH", paths.member(m.id), change), (d) => `${d.email} ${what} (${d.role}, ${d.status}); their sessions ended`).then(() => members.reload());
  };

  useCommand((c) => {
    const [a, b, ...rest] = c.args;
    switch (c.name) {
      case "key": {
        // :key test|live [member email] [scope,scope] [expires <N>d]
        if (a !== "test" && a !== "live") return (flash("✕ :key test|live [member email] [scopes a:read,b:write] [expires 90d]", "bad"), true);
        const body: Record<string, unknown> = { environment: a };
        const words = [b, ...rest].filter((w): w is string => !!w);
        for (let i = 0; i < words.length; i++) {
          const w = words[i];
          if (w.includes("@")) {
            const m = memberByEmail(w);
            if (!m) return (flash(`✕ no member with email ${w}`, "bad"), true);
            body.memberId = m.id;
          } else if (w === "expires" && /^\d{1,4}d$/.test(words[i + 1] ?? "")) body.expiresAt = new Date(Date.now() + Number(words[++i].slice(0, -1)) * 86_400_000).toISOString();
          else body.scopes = w.split(",").filter(Boolean);
        }
        void client.send<ApiKeyCreated>("POST", paths.keys(), body).then((r) => {
          if (!r.ok) return flash(`✕ ${r.code}: ${r.error}`, "bad");
          setShownOnce(`New ${r.data.environment} key for ${r.data.member.email} (shown once; y copies it): ${r.data.key}`);
          keys.reload();
        });
        return true;
      }
      case "revoke":
        if (!a) return (flash("✕ :revoke <key ID>", "bad"), true);
        void act(flash, client.send<ApiKeyItem>("DELETE", paths.key(a)), (d) => `revoked ${d.id} (${d.hint}): 401 KEY_REVOKED from its next request`).then(() => keys.reload());
        return true;
      case "invite":
        if (!a || !b || !ROLES.includes(b)) return (flash(`✕ :invite <email> <${ROLES.join("|")}>`, "bad"), true);
        void client.send<MemberInvited>("POST", paths.members(), { email: a, role: b }).then((r) => {
          if (!r.ok) return flash(`✕ ${r.code}: ${r.error}`, "bad");
          setShownOnce(`Invited ${r.data.email} (${r.data.role}). Setup code, shown once, valid until ${r.data.setupCodeExpiresAt}: ${r.data.setupCode}`);
          members.reload();
        });
        return true;
      case "role":
        if (!b || !ROLES.includes(b)) return (flash(`✕ :role <email> <${ROLES.join("|")}>`, "bad"), true);
        changeMember(a, { role: b }, `now has role ${b}`);
        return true;
      case "deactivate":
        changeMember(a, { status: "disabled" }, "deactivated");
        return true;
      case "activate":
        changeMember(a, { status: "active" }, "reactivated");
        return true;
      default:
        return false;
    }
  });

  useInput(
    (input, key) => {
      if (modal) return;
      const nav = navOf(input, key);
      if (nav && nav !== "open" && nav !== "back") return selected.move(nav, Math.max(1, height - 4));
      if (nav === "back") return setShownOnce(null);
      if (input === "m") return setView((v) => (v === "keys" ? "members" : "keys"));
      if (input === "y") {
        const once = shownOnce?.match(/(crv_(?:test|live)_[0-9a-f]{64}|[2-9A-Z]{4}(?:-[2-9A-Z]{4}){3})$/)?.[1];
        return yank(once ?? selected.id);
      }
    },
    { isActive: !modal },
  );

  if (!client.signedIn)
    return (
      <Box flexDirection="column" height={height}>
        <Text bold>Keys and members</Text>
        <Text color={tone("muted")}>Managing keys and members is an officer's: open the console without --key and sign in as an owner.</Text>
      </Box>
    );
  const error = view === "keys" ? keys.error : members.error;
  const stale = (keys.data ?? []).filter((k) => k.stale).length;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {view === "keys" ? `API keys · ${items.length}${stale ? ` · ${stale} unused for 90 days` : ""}` : `Members · ${items.length}`}
        <Text color={tone("muted")}>{view === "keys" ? "  m members · :key test|live [email] [scopes] [expires 90d] · :revoke <id> · y yank" : "  m keys · :invite <email> <role> · :role <email> <role> · :deactivate / :activate <email>"}</Text>
      </Text>
      {error ? <Text color={tone("bad")}>{`✕ ${error.code}: ${error.error}`}</Text> : null}
      {shownOnce ? <Text color={tone("warn")} wrap="wrap">{shownOnce}</Text> : null}
      {view === "keys" ? (
        <List
          items={(keys.data ?? []) as ApiKeyItem[]}
          selected={selected.index}
          height={height - 2 - (shownOnce ? 2 : 0)}
          width={width}
          header={`${pad("id", 30)} ${pad("env", 4)} ${pad("hint", 16)} ${pad("member", 28)} ${pad("status", 8)} ${pad("last use", 10)} ${pad("expires", 10)}`}
          render={(k, w) => `${pad(k.id, 30)} ${pad(k.environment, 4)} ${pad(k.hint, 16)} ${pad(k.member.email ?? k.member.id, 28)} ${pad(k.status, 8)} ${pad(day(k.lastUsedAt), 10)} ${pad(k.expiresAt ? day(k.expiresAt) : "-", 10)}${k.stale ? " unused 90 d" : ""}`.slice(0, w)}
          tone={(k) => tone(k.status !== "active" ? "muted" : k.stale ? "warn" : undefined)}
          empty={keys.loading ? "loading…" : "no keys"}
        />
      ) : (
        <List
          items={(members.data ?? []) as MemberItem[]}
          selected={selected.index}
          height={height - 2 - (shownOnce ? 2 : 0)}
          width={width}
          header={`${pad("email", 34)} ${pad("role", 19)} ${pad("status", 9)} ${pad("sign-in", 8)} sessions`}
          render={(m, w) => `${pad(m.email, 34)} ${pad(m.role, 19)} ${pad(m.status, 9)} ${pad(m.signInReady ? "ready" : "not set", 8)} ${m.openSessions}`.slice(0, w)}
          tone={(m) => tone(m.status !== "active" ? "muted" : undefined)}
          empty={members.loading ? "loading…" : "no members"}
        />
      )}
    </Box>
  );
}
