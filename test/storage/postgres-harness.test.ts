// The tests' PostgreSQL harness (test/support/postgres.ts) against the real server it starts: a throwaway cluster on
// 127.0.0.1 only, scram with a password of its own, a fresh database per suite, contrib's pg_trgm, nothing left
// running once stopped or once the test process has gone. Runs in the normal suite, whatever CARAVAN_TEST_ENGINES
// says: it is what proves a clean machine can install and start PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { findPostgresBinaries, maskUrl, owned, startPostgres, MIN_POSTGRES_MAJOR, type PostgresServer } from "../support/postgres.ts";
import { testEngines } from "../support/engines.ts";
import { tempDir } from "../support/tmp.ts";

/** A process that exists and is not a zombie (a stopped postmaster reparented to an init that does not reap stays one). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

function postmasterPid(server: PostgresServer): number {
  return Number(readFileSync(join(server.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
}

async function refused(host: string, port: number): Promise<boolean> {
  try {
    const s = await Bun.connect({ hostname: host, port, socket: { data() {} } });
    s.end();
    return false;
  } catch {
    return true;
  }
}

/** Waits, bounded, for `ok` (the hang guard for a process to go away). */
async function until(ok: () => boolean, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (ok()) return true;
    await Bun.sleep(100);
  }
  return ok();
}

describe("a throwaway PostgreSQL cluster", () => {
  let server: PostgresServer;
  const clients: ReturnType<typeof postgres>[] = [];
  const connect = (url: string) => {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    clients.push(sql);
    return sql;
  };

  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.end({ timeout: 5 });
    await server?.stop();
  });

  test(`starts PostgreSQL ${MIN_POSTGRES_MAJOR} or later on 127.0.0.1, the same cluster for the whole process`, async () => {
    expect(server.major).toBeGreaterThanOrEqual(MIN_POSTGRES_MAJOR);
    expect(server.host).toBe("127.0.0.1");
    expect(await startPostgres()).toBe(server);
    const [row] = await connect(server.url)`SELECT current_setting('server_version_num')::int AS v, current_setting('fsync') AS fsync`;
    expect(Math.floor(row!.v / 10_000)).toBe(server.major);
    expect(row!.fsync).toBe("off");
  });

  test("two fresh databases, each its own: a table made in one is not in the other", async () => {
    const a = connect(await server.createDatabase());
    const b = connect(await server.createDatabase("harness_b"));
    await a`CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)`;
    await a`INSERT INTO notes ${a([{ id: 1, body: "one" }, { id: 2, body: "two" }])}`;
    expect(await a`SELECT id, body FROM notes ORDER BY id`).toEqual([
      { id: 1, body: "one" },
      { id: 2, body: "two" },
    ] as never);
    expect(await b`SELECT to_regclass('notes') AS t`).toEqual([{ t: null }] as never);
    await b`CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)`;
    await b`INSERT INTO notes VALUES (7, 'seven')`;
    expect(await b`SELECT id, body FROM notes`).toEqual([{ id: 7, body: "seven" }] as never);
    expect((await a`SELECT count(*)::int AS n FROM notes`)[0]!.n).toBe(2);
    await expect(server.createDatabase("harness_b")).rejects.toThrow(/already exists/);
    await expect(server.createDatabase("Bad; DROP")).rejects.toThrow(/not a database name/);
  });

  test("CREATE EXTENSION pg_trgm works (postgresql-contrib is installed)", async () => {
    const sql = connect(await server.createDatabase());
    await sql`CREATE EXTENSION pg_trgm`;
    await sql`CREATE TABLE names (n text)`;
    await sql`CREATE INDEX names_trgm ON names USING gin (n gin_trgm_ops)`;
    await sql`INSERT INTO names VALUES ('Caravan'), ('Travel Rule')`;
    expect(await sql`SELECT n FROM names WHERE n % 'Caravn' ORDER BY n`).toEqual([{ n: "Caravan" }] as never);
  });

  test("listens on 127.0.0.1 only: SHOW listen_addresses, and the machine's other addresses refuse", async () => {
    const [row] = await connect(server.url)`SHOW listen_addresses`;
    expect(row!.listen_addresses).toBe("127.0.0.1");
    expect(await refused("127.0.0.1", server.port)).toBe(false);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal && i.family === "IPv4")
      .map((i) => i!.address);
    for (const address of others) expect({ address, refused: await refused(address, server.port) }).toEqual({ address, refused: true });
  });

  test("a password of its own, scram: the wrong one is refused; the printed URL masks it", async () => {
    expect(server.password.length).toBeGreaterThanOrEqual(24);
    expect(server.url).toContain(`:${encodeURIComponent(server.password)}@`);
    expect(server.displayUrl).not.toContain(server.password);
    expect(server.displayUrl).toBe(`postgres://caravan:***@127.0.0.1:${server.port}/postgres`);
    expect(maskUrl(await server.createDatabase("harness_mask"))).not.toContain(server.password);
    const title = `connects to ${server.displayUrl}`;
    expect(title).not.toContain(server.password);
    const wrong = connect(`postgres://caravan:not-the-password@127.0.0.1:${server.port}/postgres`);
    await expect(wrong`SELECT 1`).rejects.toThrow(/password authentication failed/);
    const hba = await connect(server.url)`SELECT DISTINCT auth_method FROM pg_hba_file_rules`;
    expect(hba).toEqual([{ auth_method: "scram-sha-256" }] as never);
  });

  test("stop() leaves no postgres: pg_ctl status, the pid file, the process, the directory, the port", async () => {
    const pid = postmasterPid(server);
    const { bin, dir, port } = server;
    const status = () => Bun.spawnSync(owned([join(bin, "pg_ctl"), "status", "-D", join(dir, "data")]), { stdout: "pipe", stderr: "pipe" });
    expect(alive(pid)).toBe(true);
    expect(status().stdout.toString()).toContain(`server is running (PID: ${pid})`);
    for (const c of clients.splice(0)) await c.end({ timeout: 5 });
    await server.stop();
    expect(status().exitCode).not.toBe(0);
    expect(existsSync(join(dir, "data", "postmaster.pid"))).toBe(false);
    expect(alive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    expect(await refused("127.0.0.1", port)).toBe(true);
    // The next call starts a new cluster.
    const next = await startPostgres();
    expect(next).not.toBe(server);
    server = next;
  }, 60_000);
});

describe("no postgres outlives the test process", () => {
  const child = (then: string) =>
    Bun.spawn(
      [
        "bun",
        "-e",
        `import { startPostgres } from ${JSON.stringify(join(import.meta.dir, "../support/postgres.ts"))};
         import { readFileSync } from "node:fs";
         const s = await startPostgres();
         const pid = Number(readFileSync(s.dir + "/data/postmaster.pid", "utf8").split("\\n")[0]);
         console.log(JSON.stringify({ pid, dir: s.dir }));
         ${then}`,
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
  const firstLine = async (p: ReturnType<typeof child>) => {
    const reader = (p.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    if (!out.includes("\n")) throw new Error(`the child printed no pid: ${out} ${await new Response(p.stderr as ReadableStream).text()}`);
    return JSON.parse(out.split("\n")[0]!) as { pid: number; dir: string };
  };

  test("a process that exits without stop(): its exit stops the cluster", async () => {
    const p = child("process.exit(0);");
    const { pid, dir } = await firstLine(p);
    expect(await p.exited).toBe(0);
    // Gone by the time the process has exited (the exit handler, not the watchdog a second later).
    expect(existsSync(dir)).toBe(false);
    expect(await until(() => !alive(pid))).toBe(true);
  }, 60_000);

  test("a `bun test` run whose file never calls stop() (bun test emits no exit event): the watchdog stops the cluster", async () => {
    const dir = tempDir("caravan-pg-leak-");
    const file = join(dir, "leak.test.ts");
    writeFileSync(
      file,
      `import { test } from "bun:test";
       import { readFileSync } from "node:fs";
       import { startPostgres } from ${JSON.stringify(join(import.meta.dir, "../support/postgres.ts"))};
       test("starts and never stops", async () => {
         const s = await startPostgres();
         const pid = Number(readFileSync(s.dir + "/data/postmaster.pid", "utf8").split("\\n")[0]);
         console.log("CLUSTER " + JSON.stringify({ pid, dir: s.dir }));
       }, 60_000);`,
    );
    const p = Bun.spawn(["bun", "test", file], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    expect(await p.exited).toBe(0);
    const line = `${out}\n${err}`.split("\n").find((l) => l.startsWith("CLUSTER "));
    if (!line) throw new Error(`the run printed no cluster:\n${out}\n${err}`);
    const cluster = JSON.parse(line.slice("CLUSTER ".length)) as { pid: number; dir: string };
    expect(cluster.pid).toBeGreaterThan(0);
    expect(await until(() => !existsSync(cluster.dir))).toBe(true);
    expect(alive(cluster.pid)).toBe(false);
  }, 60_000);

  test("a process killed with SIGKILL: the watchdog stops the cluster", async () => {
    const p = child("setInterval(() => {}, 1000);");
    const { pid, dir } = await firstLine(p);
    expect(alive(pid)).toBe(true);
    p.kill("SIGKILL");
    await p.exited;
    // The watchdog removes the directory once `pg_ctl stop -w` has returned: the server is gone by then (a postmaster
    // left running would notice its directory gone by itself, but only at its next minute check).
    expect(await until(() => !existsSync(dir))).toBe(true);
    expect(alive(pid)).toBe(false);
  }, 60_000);
});

describe("finding the server binaries", () => {
  /** A fake `<root>/<dir>/bin` whose initdb reports `version`. */
  const fake = (root: string, dir: string, version: string) => {
    const bin = join(root, dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "initdb"), `#!/bin/sh\necho "initdb (PostgreSQL) ${version}"\n`);
    writeFileSync(join(bin, "pg_ctl"), "#!/bin/sh\n");
    chmodSync(join(bin, "initdb"), 0o755);
    chmodSync(join(bin, "pg_ctl"), 0o755);
    return bin;
  };

  test("none of 15 or later: the error names the packages and the apt-get line", () => {
    const root = tempDir("caravan-pg-bins-");
    expect(() => findPostgresBinaries({ root: join(root, "nothing"), onPath: null })).toThrow(
      /PostgreSQL 15 or later is not installed.*sudo apt-get install -y postgresql postgresql-contrib/,
    );
    fake(root, "13", "13.16");
    expect(() => findPostgresBinaries({ root, onPath: null })).toThrow(/PostgreSQL 15 or later is not installed/);
  });

  test("the newest major of 15 or later, from /usr/lib/postgresql/<n>/bin or PATH", () => {
    const root = tempDir("caravan-pg-bins-");
    fake(root, "13", "13.16");
    fake(root, "15", "15.18");
    const b17 = fake(root, "17", "17.2 (Debian 17.2-1)");
    expect(findPostgresBinaries({ root, onPath: null })).toEqual({ bin: b17, major: 17 });
    const other = tempDir("caravan-pg-path-");
    const b16 = fake(other, "x", "16.4");
    expect(findPostgresBinaries({ root: join(other, "none"), onPath: join(b16, "initdb") })).toEqual({ bin: b16, major: 16 });
    expect(findPostgresBinaries({ root, onPath: join(b16, "initdb") }).major).toBe(17);
  });
});

describe("CARAVAN_TEST_ENGINES", () => {
  test("unset or empty → sqlite; a list → each once, in order", () => {
    expect(testEngines(undefined)).toEqual(["sqlite"]);
    expect(testEngines("")).toEqual(["sqlite"]);
    expect(testEngines("sqlite,postgres")).toEqual(["sqlite", "postgres"]);
    expect(testEngines(" postgres , sqlite,postgres")).toEqual(["postgres", "sqlite"]);
  });
  test("an unknown engine is refused, naming the known ones", () => {
    expect(() => testEngines("sqlite,mysql")).toThrow(/"mysql" is not an engine \(known: sqlite, postgres/);
    expect(() => testEngines("sqlite,")).toThrow(/"" is not an engine/);
  });
});
