// The tab bar: one tab per screen, numbered, the active one inverse.
import { memo } from "react";
import { Box, Text } from "ink";
import { SCREENS, type ScreenId } from "../keys.ts";
import { useTone } from "../theme.tsx";

const HINT = "  ? keys";
const title = (s: (typeof SCREENS)[number], compact: boolean) => (compact && "short" in s ? s.short : s.title);

/** Narrower than every full title: inactive tabs take their short title and the key hint goes. */
export const TabBar = memo(function TabBar({ active, width = Infinity }: { active: ScreenId; width?: number }) {
  const tone = useTone();
  const full = SCREENS.reduce((n, s, i) => n + ` ${i + 1} ${s.title} `.length, HINT.length);
  const compact = full > width;
  return (
    <Box>
      {SCREENS.map((s, i) => {
        const on = s.id === active;
        return (
          <Text key={s.id} inverse={on} bold={on} color={on ? undefined : tone("muted")}>
            {` ${i + 1} ${on ? s.title : title(s, compact)} `}
          </Text>
        );
      })}
      {compact ? null : <Text color={tone("muted")}>{HINT}</Text>}
    </Box>
  );
});
