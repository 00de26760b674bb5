// The tab bar: one tab per screen, numbered, the active one inverse.
import { memo } from "react";
import { Box, Text } from "ink";
import { SCREENS, type ScreenId } from "../keys.ts";
import { useTone } from "../theme.tsx";

const HINT = "  ? keys";
const title = (s: (typeof SCREENS)[number], compact: boolean) => (compact && "short" in s ? s.short : s.title);

/**
 * Narrower than every full title: inactive tabs take their short title and the key hint goes; the active tab keeps its
 * full title when that still fits, else it is short too (every short title together fits in 80 columns).
 */
export const TabBar = memo(function TabBar({ active, width = Infinity }: { active: ScreenId; width?: number }) {
  const tone = useTone();
  const full = SCREENS.reduce((n, s, i) => n + ` ${i + 1} ${s.title} `.length, HINT.length);
  const compact = full > width;
  const shortWidth = SCREENS.reduce((n, s, i) => n + ` ${i + 1} ${title(s, true)} `.length, 0);
  const activeScreen = SCREENS.find((s) => s.id === active);
  const activeFull = !compact || (activeScreen !== undefined && shortWidth - title(activeScreen, true).length + activeScreen.title.length <= width);
  return (
    <Box>
      {SCREENS.map((s, i) => {
        const on = s.id === active;
        return (
          <Text key={s.id} inverse={on} bold={on} color={on ? undefined : tone("muted")}>
            {` ${i + 1} ${on && activeFull ? s.title : title(s, compact)} `}
          </Text>
        );
      })}
      {compact ? null : <Text color={tone("muted")}>{HINT}</Text>}
    </Box>
  );
});
