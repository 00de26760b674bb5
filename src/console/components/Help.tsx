// The `?` key map: global keys and the current screen's, side by side.
import { Box, Text } from "ink";
import { GLOBAL_KEYS, SCREEN_KEYS, screenTitle, type ScreenId } from "../keys.ts";

export function Help({ screen }: { screen: ScreenId }) {
  const title = screenTitle(screen);
  // The screen's own keys wrap rather than being cut: at 80 columns their column is narrow.
  const row =
    (w: number, wrap: "truncate" | "wrap" = "truncate") =>
    ([k, what]: [string, string]) => (
      <Text key={k} wrap={wrap}>
        <Text bold>{k.padEnd(w)}</Text>
        {what}
      </Text>
    );
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Box>
        <Box flexDirection="column" width={46} flexShrink={0} marginRight={1}>
          <Text bold>Keys everywhere</Text>
          {GLOBAL_KEYS.map(row(18))}
        </Box>
        <Box flexDirection="column" flexGrow={1}>
          <Text bold>{title}</Text>
          {SCREEN_KEYS[screen].map(row(9, "wrap"))}
        </Box>
      </Box>
      <Text dimColor>Refused actions show the API's answer verbatim. Press any key to close.</Text>
    </Box>
  );
}
