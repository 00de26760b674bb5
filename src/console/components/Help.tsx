// The `?` key map: global keys and the current screen's.
import { Box, Text } from "ink";
import { GLOBAL_KEYS, SCREEN_KEYS, SCREENS, type ScreenId } from "../keys.ts";

export function Help({ screen }: { screen: ScreenId }) {
  const title = SCREENS.find((s) => s.id === screen)!.title;
  const row = ([k, what]: [string, string]) => (
    <Text key={k}>
      <Text bold>{k.padEnd(20)}</Text>
      {what}
    </Text>
  );
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>Keys everywhere</Text>
      {GLOBAL_KEYS.map(row)}
      <Text bold>{title}</Text>
      {SCREEN_KEYS[screen].map(row)}
      <Text dimColor>Refused actions show the API's answer verbatim. Press any key to close.</Text>
    </Box>
  );
}
