// Preloaded by scripts/suite-profile.ts into each test file it times: records every process the file starts (one JSON
// line per start in CARAVAN_PROFILE_SPAWN_LOG) so the profile can say how many servers, CLI runs and Deno runs a file
// pays for. It only observes: the spawn itself is Bun's own, unchanged.
import { appendFileSync } from "node:fs";

const log = process.env.CARAVAN_PROFILE_SPAWN_LOG;
if (log) {
  const kind = (cmd: unknown): string => {
    const argv = Array.isArray(cmd) ? cmd.map(String) : typeof cmd === "object" && cmd && "cmd" in cmd ? (cmd as { cmd: string[] }).cmd.map(String) : [String(cmd)];
    const exe = argv[0]?.split("/").pop() ?? "";
    if (exe === "deno") return "deno";
    const main = argv.findIndex((a) => a.endsWith("src/main.ts"));
    if (main >= 0) return argv[main + 1] === "serve" ? "server" : argv[main + 1] === "demo" ? "demo" : "cli";
    if (exe === "bun" && argv[1] === "build") return "build";
    if (exe.startsWith("caravan")) return "binary";
    return exe || "other";
  };
  const wrap = <F extends (...a: never[]) => unknown>(name: "spawn" | "spawnSync", f: F): F =>
    ((...a: Parameters<F>) => {
      appendFileSync(log, JSON.stringify({ via: name, kind: kind(a[0]) }) + "\n");
      return f(...a);
    }) as F;
  const b = Bun as unknown as Record<string, unknown>;
  b.spawn = wrap("spawn", Bun.spawn);
  b.spawnSync = wrap("spawnSync", Bun.spawnSync);
}
