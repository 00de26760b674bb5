// The tab bar: one tab per screen, numbered, the active one inverse.
import { memo } from "react";
import { Box, Text } from "ink";
import { SCREENS, type ScreenId } from "../keys.ts";
import { useTone } from "../theme.tsx";

export const TabBar = memo(function TabBar({ active }: { active: ScreenId }) {
  const tone = useTone();
  return (
    <Box>
      {SCREENS.map((s, i) => {
        const on = s.id === active;
        return (
          <Text key={s.id} inverse={on} bold={on} color={on ? undefined : tone("muted")}>
            {` ${i + 1} ${s.title} `}
          </Text>
        );
      })}
      <Text color={tone("muted")}>{"  ? keys"}</Text>
    </Box>
  );
});
