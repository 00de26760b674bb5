// The status line: server, environment, member and role, and the connection's state in words.
import { memo } from "react";
import { Box, Text } from "ink";
import type { Health, StreamState } from "../client.ts";
import type { Me } from "../context.ts";
import { useTone, type Tone } from "../theme.tsx";
import { cut } from "../format.ts";

export function connectionText(health: Health, stream: StreamState): { text: string; tone: Tone } {
  if (health.kind === "refused") return { text: `key refused: ${health.code} (${health.message})`, tone: "bad" };
  if (health.kind === "unreachable") return { text: `offline: ${health.message}; retrying`, tone: "bad" };
  switch (stream.kind) {
    case "live":
      return { text: "● live", tone: "ok" };
    case "connecting":
      return { text: stream.attempt ? `◌ reconnecting (attempt ${stream.attempt + 1})` : "◌ connecting", tone: "warn" };
    case "polling":
      return { text: `◌ polling (stream refused: ${stream.reason})`, tone: "warn" };
    case "offline":
      // The countdown first: a long message is what gets cut, never when the next try comes.
      return { text: `offline, retrying in ${Math.ceil(stream.retryInMs / 1000)}s: ${stream.message}`, tone: "bad" };
  }
}

export const StatusLine = memo(function StatusLine({ url, me, health, stream, width }: { url: string; me: Me | null; health: Health; stream: StreamState; width: number }) {
  const tone = useTone();
  const conn = connectionText(health, stream);
  // The connection's words take at most half the line (their start, the state and any countdown, always shows), so
  // the member and role keep room.
  const connShown = cut(conn.text, Math.min(conn.text.length, Math.max(24, Math.floor(width / 2))));
  const room = Math.max(10, width - connShown.length - 3);
  const server = url.replace(/^https?:\/\//, "");
  // Where the line is short, the member's address is cut, not the role (what the key may do) after it.
  let left = `${server} · member unknown`;
  if (me) {
    const member = me.member.email ?? me.member.id;
    // The role (what the key may do) always shows whole, at the end: the server and member are cut before it.
    const role = ` · ${me.member.role}`;
    const fixed = `${server} · ${me.environment} · ${role}`.length;
    const head = `${server} · ${me.environment} · ${cut(member, Math.max(8, room - 1 - fixed))}`;
    left = `${cut(head, Math.max(1, room - 1 - role.length))}${role}`;
  }
  return (
    <Box>
      <Text inverse>{` ${cut(left, room - 1).padEnd(room - 1)}`}</Text>
      <Text inverse color={tone(conn.tone)}>{` ${cut(connShown, Math.max(10, width - room - 1))} `}</Text>
    </Box>
  );
});
