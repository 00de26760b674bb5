// The report fonts as embedded files (Bun `with { type: "file" }`): from source each import is the TTF's path in
// node_modules; in a `bun build --compile` executable it is the copy embedded in the binary (`/$bunfs/root/…`),
// readable with node:fs. Deno does not know the `file` import type, so this module is only ever loaded with a
// dynamic import (fonts.ts) that falls back to node_modules when it fails.
import latin from "@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf" with { type: "file" };
import latinBold from "@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf" with { type: "file" };
import sc from "@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf" with { type: "file" };
import jp from "@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf" with { type: "file" };
import kr from "@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf" with { type: "file" };

export const FONT_FILES = { latin, latinBold, sc, jp, kr } as const;
