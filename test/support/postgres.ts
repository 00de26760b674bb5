// A real, throwaway PostgreSQL server for the tests: `initdb` in a temporary directory, `pg_ctl` on a free 127.0.0.1
// port with its socket inside that directory, one cluster per test process (started on first use, stopped at exit),
// one fresh database per suite. Never a system service, never a password committed.
//
// - Who: as root (everything here runs as root) initdb and postgres refuse to run, so both run as the `postgres` user
//   the Debian package creates (`runuser -u postgres --`); otherwise as the current user.
// - Authentication: scram-sha-256 for every connection, TCP and socket, with a password drawn at random when the
//   cluster starts (kept in memory, handed to initdb in a 0600 file that is removed at once). Not `trust`: other
//   engineers' processes share this machine and its loopback, and a trust line on 127.0.0.1 would let any of them in;
//   a password also makes the URLs look like the ones Caravan must keep out of its logs.
// - Settings for speed: fsync, synchronous_commit and full_page_writes off. A crash loses or corrupts this cluster,
//   which is thrown away anyway; nothing here says anything about durability on a real server.
// - Stopping: `stop()`, else a process `exit` handler (`pg_ctl stop -m immediate`; plain scripts emit it, `bun test`
//   does not), else a watchdog process that stops the cluster once the test process has gone, however it went (the end
//   of `bun test`, a worker killed, SIGKILL): no postgres is left behind.
import { chownSync, closeSync, existsSync, openSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";

/** The oldest PostgreSQL major Caravan supports. */
export const MIN_POSTGRES_MAJOR = 15;

export interface PostgresServer {
  /** A URL of the cluster's `postgres` database, as the superuser, password included: connect with it, never print it. */
  readonly url: string;
  /** The same URL with the password masked (`***`): the one to put in test names and messages. */
  readonly displayUrl: string;
  readonly host: string;
  readonly port: number;
  /** The superuser's password (random, this cluster only). */
  readonly password: string;
  /** The temporary directory: data directory `data/`, socket, server log `log`. */
  readonly dir: string;
  /** The server binaries used (`…/bin`) and their major version. */
  readonly bin: string;
  readonly major: number;
  /** How long initdb and the start took, ms. */
  readonly timings: { readonly initMs: number; readonly startMs: number };
  /** A fresh, empty database (`name`, else a random one); answers its URL (password included). */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown), removes its directory; a later `startPostgres()` starts a new cluster. */
  stop(): Promise<void>;
}

/** `url` with its password masked, for anything printed. */
export function maskUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+:)[^@]*@/, "$1***@");
}

interface Binaries {
  readonly bin: string;
  readonly major: number;
}

function majorOf(initdb: string): number | undefined {
  const r = Bun.spawnSync([initdb, "--version"], { stdout: "pipe", stderr: "pipe" });
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(r.stdout.toString());
  return r.exitCode === 0 && m ? Number(m[1]) : undefined;
}

/**
 * The newest PostgreSQL server binaries of major 15 or later: Debian's `/usr/lib/postgresql/<n>/bin`, or the directory
 * of an `initdb` on PATH (other systems). Throws, naming what is missing and how to install it. `where` is for the
 * harness's own test (another root, another PATH answer).
 */
export function findPostgresBinaries(
  where: { root?: string; onPath?: string | null } = {},
): Binaries {
  const dirs: string[] = [];
  const root = where.root ?? "/usr/lib/postgresql";
  if (existsSync(root)) for (const n of readdirSync(root)) dirs.push(join(root, n, "bin"));
  const onPath = where.onPath === undefined ? Bun.which("initdb") : where.onPath;
  if (onPath) dirs.push(join(onPath, ".."));
  const found: Binaries[] = [];
  for (const bin of dirs) {
    if (!existsSync(join(bin, "initdb")) || !existsSync(join(bin, "pg_ctl"))) continue;
    const major = majorOf(join(bin, "initdb"));
    if (major !== undefined && major >= MIN_POSTGRES_MAJOR) found.push({ bin, major });
  }
  found.sort((a, b) => b.major - a.major);
  const best = found[0];
  if (!best) {
    throw new Error(
      `PostgreSQL ${MIN_POSTGRES_MAJOR} or later is not installed (no initdb and pg_ctl in /usr/lib/postgresql/*/bin or on PATH): ` +
        "`bun run test` installs it when it may; by hand: sudo apt-get install -y postgresql postgresql-contrib",
    );
  }
  return best;
}

function freeLoopbackPort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

const asRoot = process.getuid?.() === 0;

/** The command run as the cluster's owner: `runuser -u postgres --` when root, as is otherwise. */
export function owned(cmd: string[]): string[] {
  return asRoot ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
}

function run(cmd: string[], what: string, log?: string): void {
  const r = Bun.spawnSync(owned(cmd), { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) {
    const tail = log && existsSync(log) ? `\nserver log:\n${readFileSync(log, "utf8").split("\n").slice(-20).join("\n")}` : "";
    throw new Error(`${what} failed (exit ${r.exitCode}): ${r.stderr.toString().trim() || r.stdout.toString().trim()}${tail}`);
  }
}

const SUPERUSER = "caravan";

async function startCluster(): Promise<PostgresServer> {
  const { bin, major } = findPostgresBinaries();
  if (asRoot && Bun.spawnSync(["id", "-u", "postgres"], { stdout: "ignore", stderr: "ignore" }).exitCode !== 0) {
    throw new Error("running as root, and initdb refuses root: the cluster runs as the `postgres` user, which does not exist (the Debian package `postgresql` creates it)");
  }
  const dir = mkdtempSync(join(tmpdir(), "caravan-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "log");
  const password = randomBytes(24).toString("base64url");
  const pwfile = join(dir, "pw");
  writeFileSync(pwfile, password + "\n", { mode: 0o600 });
  if (asRoot) {
    const uid = Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim());
    const gid = Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim());
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  let lifeline: number | undefined;
  const release = () => {
    if (lifeline !== undefined) closeSync(lifeline);
    lifeline = undefined;
  };
  const pgCtlStop = (mode: "fast" | "immediate") =>
    Bun.spawnSync(owned([join(bin, "pg_ctl"), "-D", data, "-m", mode, "-w", "stop"]), { stdout: "ignore", stderr: "ignore" });
  const exitHandler = () => {
    pgCtlStop("immediate");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const t0 = performance.now();
    try {
      run([join(bin, "initdb"), "-D", data, "-U", SUPERUSER, "--pwfile", pwfile, "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"], "initdb");
    } finally {
      rmSync(pwfile, { force: true });
    }
    const initMs = performance.now() - t0;
    // A free port can be taken between the check and the bind: a few attempts, each on a new port.
    let port = 0;
    let startMs = 0;
    for (let attempt = 1; ; attempt++) {
      port = freeLoopbackPort();
      appendFileSync(
        join(data, "postgresql.conf"),
        [
          "",
          "# caravan test harness: a throwaway cluster",
          "listen_addresses = '127.0.0.1'",
          `port = ${port}`,
          `unix_socket_directories = '${dir}'`,
          "fsync = off",
          "synchronous_commit = off",
          "full_page_writes = off",
          "max_connections = 200",
          "shared_buffers = 32MB",
          "",
        ].join("\n"),
      );
      const t1 = performance.now();
      try {
        run([join(bin, "pg_ctl"), "-D", data, "-l", log, "-w", "-t", "60", "start"], "pg_ctl start", log);
        startMs = performance.now() - t1;
        break;
      } catch (e) {
        if (attempt >= 3) throw e;
      }
    }
    process.on("exit", exitHandler);
    // The watchdog: a process that reads a FIFO which only this process holds open for writing, and stops the cluster
    // when it reads the end: at this process's end, however it ends (`bun test` emits no `exit` event; a worker may be
    // killed), or when `stop()` closes it. `setsid -f` forks it off into a session of its own: a direct child of a
    // `bun test --parallel` worker was seen to die with the worker, and a kill of our process group does not reach it. It says `ready` once it
    // holds the FIFO, and only then does the start count as done.
    const fifo = join(dir, "watchdog");
    if (Bun.spawnSync(["mkfifo", "-m", "600", fifo]).exitCode !== 0) throw new Error(`mkfifo ${fifo} failed`);
    lifeline = openSync(fifo, "r+");
    const pgCtl = owned([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]).map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    const dog = Bun.spawn(["setsid", "-f", "sh", "-c", `exec 3<'${fifo}'; echo ready; exec >/dev/null; cat <&3; ${pgCtl} 2>&1; rm -rf '${dir}'`], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
    });
    dog.unref();
    const ready = await new Response(dog.stdout).text();
    if (!ready.startsWith("ready")) throw new Error("the PostgreSQL watchdog did not start (setsid, from util-linux, is needed)");

    const host = "127.0.0.1";
    const urlOf = (db: string) => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@${host}:${port}/${db}`;
    const admin = postgres(urlOf("postgres"), { max: 1, onnotice: () => {} });
    let stopped = false;
    const server: PostgresServer = {
      url: urlOf("postgres"),
      displayUrl: maskUrl(urlOf("postgres")),
      host,
      port,
      password,
      dir,
      bin,
      major,
      timings: { initMs, startMs },
      async createDatabase(name) {
        const db = name ?? `t_${randomBytes(6).toString("hex")}`;
        if (!/^[a-z_][a-z0-9_]{0,62}$/.test(db)) throw new Error(`not a database name for the test cluster: ${JSON.stringify(db)} (lower case letters, digits, _)`);
        await admin.unsafe(`CREATE DATABASE ${db}`);
        return urlOf(db);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        if (shared === started) shared = undefined;
        await admin.end({ timeout: 5 });
        const r = pgCtlStop("fast");
        const running = existsSync(join(data, "postmaster.pid"));
        if (running) pgCtlStop("immediate");
        process.off("exit", exitHandler);
        rmSync(dir, { recursive: true, force: true });
        // Last, once the directory is gone: the watchdog then finds nothing left to do.
        release();
        if (r.exitCode !== 0 && running) throw new Error(`pg_ctl stop -m fast failed (exit ${r.exitCode}); stopped with -m immediate`);
      },
    };
    return server;
  } catch (e) {
    exitHandler();
    process.off("exit", exitHandler);
    release();
    throw e;
  }
}

let shared: Promise<PostgresServer> | undefined;
let started: Promise<PostgresServer> | undefined;

/**
 * The test process's PostgreSQL cluster: started on the first call (initdb and start, about a second or two), the same
 * one afterwards; stopped when the process exits, or by `stop()`. Give each suite its own database
 * (`createDatabase()`). Throws with the reason when the server cannot be started: a test that asked for PostgreSQL
 * fails, it is never skipped.
 */
export function startPostgres(): Promise<PostgresServer> {
  if (!shared) {
    started = startCluster();
    shared = started;
    // A failed start is not cached: the next caller tries again (and fails with its own reason).
    started.catch(() => {
      if (shared === started) shared = undefined;
    });
  }
  return shared;
}
