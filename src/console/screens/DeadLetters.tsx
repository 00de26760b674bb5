// Dead letters: the actors' messages about this company and environment that failed their last attempt (actor,
// attempts, last error, when), Enter for one with what a replay does; `r` replays it after a confirmation that names
// it, offered only to a signed-in member whose role may (dead-letters:replay: owners). The replay is the API's
// operator route, audited as that member's and session's action.
import { useState } from "react";
import { Box, Text, useInput } from "ink";
import { useConsole, useKept, useModalState, useResource } from "../context.ts";
import { act, useSelectedId, useYank } from "../hooks.ts";
import { navOf } from "../keys.ts";
import { pad, shortTime } from "../format.ts";
import { useTone } from "../theme.tsx";
import { List } from "../components/List.tsx";
import { Lines, type Line } from "../components/Lines.tsx";
import { Flow } from "../components/Flow.tsx";
import { paths } from "../api.ts";
import type { DeadLetter, DeadLetterReplayed } from "../../api/index.ts";

export const REPLAY_PERMISSION = "dead-letters:replay";

/** One dead letter as the detail shows it. */
export function deadLetterLines(d: DeadLetter, mayReplay: boolean): Line[] {
  return [
    { text: `${d.id} · ${d.actor}`, bold: true, tone: "bad" },
    { text: `Attempts    ${d.attempts}` },
    { text: `Last error  ${d.lastError}`, tone: "bad" },
    { text: `First sent  ${d.createdAt}` },
    { text: `Parked      ${d.diedAt}` },
    {
      text: mayReplay
        ? "r puts it back in its actor's mailbox: handled as a new message, attempts from zero. Fix the cause first."
        : "Replaying is an owner's (sign in as one); on the host: caravan dead-letters replay.",
      dim: true,
    },
    { text: "The message itself is sealed and is not shown.", dim: true },
  ];
}

export function DeadLetters({ height, width }: { height: number; width: number }) {
  const { client, me, modal, flash } = useConsole();
  const tone = useTone();
  const letters = useResource<DeadLetter[]>(paths.deadLetters({ limit: 200 }), [], { pollMs: 5_000 });
  const [openId, setOpenId] = useKept<string | null>("deadLetters.open", null);
  const [confirm, setConfirm] = useModalState<DeadLetter>();
  const [busy, setBusy] = useState(false);
  const items = letters.data ?? [];
  const selected = useSelectedId("deadLetters", items, openId !== null);
  const opened = openId ? (items.find((d) => d.id === openId) ?? null) : null;
  const yank = useYank();
  // A power of a signed-in member whose role has it; an API key never replays (the API says OFFICER_SESSION_REQUIRED).
  const mayReplay = client.signedIn && !!me?.permissions.includes(REPLAY_PERMISSION);

  useInput(
    (input, key) => {
      if (modal || confirm) return;
      const nav = navOf(input, key);
      if (openId) {
        if (nav === "back") return setOpenId(null);
      } else {
        if (nav === "open" && selected.id) return setOpenId(selected.id);
        if (nav && nav !== "back") return selected.move(nav, Math.max(1, height - 4));
      }
      const d = opened ?? selected.item;
      if (input === "y") return yank(d?.id);
      if (input === "r" && d && mayReplay && !busy) return setConfirm(d);
    },
    { isActive: !modal },
  );

  const replay = () => {
    const d = confirm;
    setConfirm(null);
    if (!d) return;
    setBusy(true);
    void act(flash, client.send<DeadLetterReplayed>("POST", paths.deadLetterReplay(d.id)), (r) => `replayed ${r.id} (${r.actor}): back in its mailbox as a new message`).then((r) => {
      setBusy(false);
      if (r.ok) setOpenId(null);
      letters.reload();
    });
  };

  const total = letters.meta.total ?? items.length;
  const hint = openId ? `${mayReplay ? "  r replay ·" : ""} y yank · Esc back` : `  Enter detail${mayReplay ? " · r replay" : ""} · y yank`;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {`Dead letters · ${total}`}
        <Text color={tone("muted")}>{hint}</Text>
      </Text>
      {letters.error ? <Text color={tone("bad")}>{`✕ ${letters.error.code}: ${letters.error.error}`}</Text> : null}
      {confirm ? (
        <Flow
          title="Replay dead letter"
          steps={[{ kind: "confirm", label: () => `Replay ${confirm.id} to ${confirm.actor} (${confirm.attempts} attempts, last error: ${confirm.lastError})? It runs again as a new message.` }]}
          onDone={replay}
          onCancel={() => setConfirm(null)}
        />
      ) : openId ? (
        opened ? <Lines lines={deadLetterLines(opened, mayReplay)} offset={0} height={height - 2} width={width - 1} /> : <Text dimColor>{letters.loading ? "loading…" : `${openId} is not a dead letter any more (replayed?)`}</Text>
      ) : (
        <List
          items={items}
          selected={selected.index}
          height={height - 2}
          width={width}
          header={`${pad("actor", 40)} ${pad("tries", 5)} ${pad("parked", 11)} last error`}
          render={(d, w) => `${pad(d.actor, 40)} ${pad(String(d.attempts), 5)} ${pad(shortTime(d.diedAt), 11)} ${d.lastError}`.slice(0, w)}
          tone={() => tone("bad")}
          empty={letters.loading ? "loading…" : "no dead letters"}
        />
      )}
    </Box>
  );
}
