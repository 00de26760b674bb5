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
      return { text: `offline: ${stream.message}; retrying in ${Math.ceil(stream.retryInMs / 1000)}s`, tone: "bad" };
  }
}

export const StatusLine = memo(function StatusLine({ url, me, health, stream, width }: { url: string; me: Me | null; health: Health; stream: StreamState; width: number }) {
  const tone = useTone();
  const conn = connectionText(health, stream);
  const room = Math.max(10, width - conn.text.length - 3);
  const server = url.replace(/^https?:\/\//, "");
  // Where the line is short, the member's address is cut, not the role (what the key may do) after it.
  let left = `${server} · member unknown`;
  if (me) {
    const member = me.member.email ?? me.member.id;
    const fixed = `${server} · ${me.environment} ·  · ${me.member.role}`.length;
    left = `${server} · ${me.environment} · ${cut(member, Math.max(8, room - 1 - fixed))} · ${me.member.role}`;
  }
  return (
    <Box>
      <Text inverse>{` ${cut(left, room - 1).padEnd(room - 1)}`}</Text>
      <Text inverse color={tone(conn.tone)}>{` ${cut(conn.text, Math.max(10, width - room - 1))} `}</Text>
    </Box>
  );
});
