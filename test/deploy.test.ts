// What an operations team installs Caravan with (docs/operations.md, Running as a service): the systemd unit
// deploy/caravan.service, checked by systemd's own tools (`systemd-analyze verify` and the offline `security`
// assessment; the test entry installs Debian's systemd package when they are missing), and the sample environment file
// deploy/caravan.env, which must name every variable the code reads, with defaults the server accepts.
import { test, expect, setDefaultTimeout } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { tempDir } from "./support/tmp.ts";
import { repoRoot, startServer } from "./support/server.ts";
import { STREAM_DEFAULTS, streamSettings } from "../src/domain/events.ts";

// systemd-analyze and a server child on a shared machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

const dir = tempDir("caravan-deploy-");
const unitPath = join(repoRoot, "deploy/caravan.service");
const samplePath = join(repoRoot, "deploy/caravan.env");
const unit = readFileSync(unitPath, "utf8");
const sample = readFileSync(samplePath, "utf8");

/** The unit's `Key=value` settings of one section, in order (a key may repeat). */
function section(name: string): [string, string][] {
  const out: [string, string][] = [];
  let current = "";
  for (const line of unit.split("\n")) {
    const t = line.trim();
    if (t.startsWith("[")) current = t.slice(1, -1);
    else if (current === name && t && !t.startsWith("#")) {
      const eq = t.indexOf("=");
      out.push([t.slice(0, eq), t.slice(eq + 1)]);
    }
  }
  return out;
}
const service = Object.fromEntries(section("Service"));

/**
 * A root directory for systemd-analyze: this machine's own system units (the targets the unit names) and, at the
 * path ExecStart names, an executable stand-in for the binary (verify checks that the program is there).
 */
function analyzeRoot(): string {
  const root = join(dir, `root-${Math.random().toString(36).slice(2)}`);
  const units = ["/usr/lib/systemd/system", "/lib/systemd/system"].find((d) => existsSync(join(d, "multi-user.target")));
  if (!units) throw new Error("no systemd unit directory on this machine (Debian's systemd package installs it)");
  cpSync(units, join(root, "usr/lib/systemd/system"), { recursive: true, verbatimSymlinks: true });
  const exe = service.ExecStart.split(" ")[0];
  mkdirSync(join(root, exe, ".."), { recursive: true });
  writeFileSync(join(root, exe), "#!/bin/sh\n");
  chmodSync(join(root, exe), 0o755);
  mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
  cpSync(unitPath, join(root, "etc/systemd/system/caravan.service"));
  return root;
}

function analyze(args: string[]) {
  const r = Bun.spawnSync(["systemd-analyze", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, SYSTEMD_COLORS: "0", SYSTEMD_PAGER: "" } });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

test("systemd-analyze verify accepts the unit as shipped, without a warning (an unknown or misspelt setting is a warning)", () => {
  const root = analyzeRoot();
  const r = analyze(["verify", `--root=${root}`, "/etc/systemd/system/caravan.service"]);
  expect(r.out).toBe("");
  expect(r.code).toBe(0);
  // The check can fail: a misspelt setting and a missing program are reported.
  writeFileSync(join(root, "etc/systemd/system/caravan-broken.service"), unit.replace("NoNewPrivileges=yes", "NoNewPrivilege=yes").replace(service.ExecStart, "/usr/local/bin/caravan-missing serve"));
  const broken = analyze(["verify", `--root=${root}`, "/etc/systemd/system/caravan-broken.service"]);
  expect(broken.out).toContain("Unknown key 'NoNewPrivilege'");
  expect(broken.out).toContain("caravan-missing");
  expect(broken.code).not.toBe(0);
});

test("the unit's hardening: its own user, read-only system, no new privileges, private /tmp, a 0700 state directory holding the database, restart on failure, the environment file", () => {
  expect(service.ExecStart).toBe("/usr/local/bin/caravan serve");
  expect(service.DynamicUser).toBe("yes");
  expect(service.User).toBe("caravan");
  expect(service.ProtectSystem).toBe("strict");
  expect(service.ProtectHome).toBe("yes");
  expect(service.NoNewPrivileges).toBe("yes");
  expect(service.PrivateTmp).toBe("yes");
  expect(service.CapabilityBoundingSet).toBe("");
  expect(service.StateDirectory).toBe("caravan");
  expect(service.StateDirectoryMode).toBe("0700");
  expect(service.UMask).toBe("0077");
  expect(service.Restart).toBe("on-failure");
  expect(service.EnvironmentFile).toBe("/etc/caravan/caravan.env");
  // The database the sample names lives in that state directory, the working directory of the service.
  expect(service.WorkingDirectory).toBe("/var/lib/caravan");
  expect(sample).toMatch(/^CARAVAN_DB=\/var\/lib\/caravan\/caravan\.db$/m);
  // Bun's JIT needs writable executable memory: this one must stay off.
  expect(service.MemoryDenyWriteExecute).toBeUndefined();
});

test("systemd's offline security assessment rates the unit's exposure 3.0 or lower (OK)", () => {
  const root = analyzeRoot();
  const r = analyze(["security", "--offline=yes", `--root=${root}`, "--threshold=30", "/etc/systemd/system/caravan.service"]);
  expect(r.out).toMatch(/Overall exposure level for caravan\.service: [0-3]\.\d/);
  expect(r.code).toBe(0);
});

/** Every environment variable the code under src/ reads: `env.NAME`, `env?.NAME`, `env["NAME"]` and quoted `"CARAVAN_…"` names (tables of settings). */
function variablesReadInSrc(): Set<string> {
  const names = new Set<string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|tsx)$/.test(e.name)) {
        const text = readFileSync(p, "utf8");
        for (const m of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]);
        for (const m of text.matchAll(/\benv\[\s*["'`]([A-Z][A-Z0-9_]*)["'`]\s*\]/g)) names.add(m[1]);
        for (const m of text.matchAll(/["'`](CARAVAN_[A-Z0-9_]*[A-Z0-9])["'`]/g)) names.add(m[1]);
      }
    }
  };
  walk(join(repoRoot, "src"));
  return names;
}

/** The sample's assignments, set (`NAME=value`) or shown as the default (`#NAME=value`). */
function sampleEntries(): { name: string; value: string; set: boolean }[] {
  return sample
    .split("\n")
    .map((l) => /^(#?)([A-Z][A-Z0-9_]*)=(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[2], value: m[3], set: m[1] === "" }));
}

test("the sample environment file names every variable read under src/, each once, and none that nothing reads", () => {
  const read = variablesReadInSrc();
  // The extraction finds what it must (so a miss below is the sample's, not the scan's).
  for (const n of ["PORT", "HOST", "CARAVAN_DB", "CARAVAN_MASTER_KEY", "CARAVAN_STREAM_SLOW_MS", "PROVIDER_B_ALLOWED_IPS", "CARAVAN_TRUSTED_PROXIES", "NO_COLOR"]) expect(read).toContain(n);
  const named = sampleEntries().map((e) => e.name);
  expect(named.length).toBe(new Set(named).size);
  expect([...read].filter((n) => !named.includes(n)).sort()).toEqual([]);
  expect(named.filter((n) => !read.has(n)).sort()).toEqual([]);
});

test("the sample's values mean the same to systemd as to a shell (no quotes, spaces or expansions), and its stream defaults are the code's", () => {
  for (const e of sampleEntries()) expect(`${e.name}=${e.value}`).toMatch(/^[A-Z][A-Z0-9_]*=[^\s"'$`\\%]*$/);
  const shown = Object.fromEntries(sampleEntries().filter((e) => e.name.startsWith("CARAVAN_STREAM_")).map((e) => [e.name, e.value]));
  expect(Object.keys(shown).length).toBe(Object.keys(STREAM_DEFAULTS).length);
  expect(streamSettings(shown)).toEqual(STREAM_DEFAULTS);
});

test("the server starts with every value of the sample written out (the shown defaults are values it accepts), and answers /healthz", async () => {
  const env = Object.fromEntries(sampleEntries().filter((e) => e.value !== "").map((e) => [e.name, e.value]));
  // Where this test may write and listen: the rest is the sample as shipped.
  const S = await startServer({ ...env, CARAVAN_DB: join(dir, "sample", "caravan.db"), PORT: "0", HOST: "127.0.0.1" });
  try {
    const r = await fetch(`${S.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: "ok" });
    // Logged at the sample's level (info), nothing refused.
    expect(S.output()).not.toContain('"level":"error"');
  } finally {
    await S.stop();
  }
  expect(relative(repoRoot, samplePath)).toBe("deploy/caravan.env");
});
