// The single binary renders report PDFs on its own (issue 15): `bun run build`'s command, built once into a
// temporary directory, copied alone into an empty directory (no checkout, no node_modules beside it), serves a
// temporary database; its own CLI creates the key; the report rows are seeded with the repository; a Latin and a
// CJK report are downloaded from the binary and read back. The fonts come from the binary (an executable never
// falls back to node_modules, src/adapters/pdf/fonts.ts) and the render worker is an entry point of it. It also reads no
// .env or bunfig.toml from the directory it is started in.
import { test, expect, beforeAll, afterAll, setDefaultTimeout } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { extractText, getDocumentProxy } from "unpdf";
import { tempDir } from "./support/tmp.ts";
import { repoRoot } from "./support/server.ts";
import { openStorage, type Storage } from "../src/adapters/storage/index.ts";
import { loadMasterKey } from "../src/adapters/crypto/master-key.ts";
import { Sealer } from "../src/adapters/crypto/envelope.ts";
import { Reports, newReportId } from "../src/adapters/storage/repos/reports.ts";
import { resolveReportType } from "../src/domain/reports/report.ts";
import { newId, iso } from "../src/domain/ids.ts";

// A hang guard, not a speed limit: the binary draws at its default nice 19 (proved below), so while other test files
// keep both cores busy (bun run test's worker processes) a CJK render waits behind all of them; 60 s was hit once.
setDefaultTimeout(180_000);

const dir = tempDir("caravan-binary-reports-");
const runDir = join(dir, "run");
const exe = join(runDir, "caravan");
const db = join(dir, "data", "caravan.db");
const env = { ...process.env, CARAVAN_DB: db, PORT: "0", HOST: "127.0.0.1", CARAVAN_LOG: "warn" };
let server: ReturnType<typeof Bun.spawn> | undefined;
let url = "";
let key = "";
let serverOut = "";
let storage: Storage;
let latin: { id: string; reportNumber: string };
let cjk: { id: string; reportNumber: string };

const NARRATIVE = "The customer moved 1,250.50 USDC to a wallet that blockchain analytics attributes to a sanctioned mixing service. ".repeat(3);
const PREFILLED = new Set(["filingInstitutionName", "subjectName", "subjectWalletAddress", "transactionDate", "amount", "asset", "network", "direction"]);
const complete = (j: string) => Object.fromEntries(resolveReportType(j).fields.filter((f) => f.required && !PREFILLED.has(f.key)).map((f) => [f.key, `value of ${f.key}`]));

beforeAll(async () => {
  // The build of package.json (scripts/build.ts), with only the output moved into this test's directory.
  const script = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
  const outfile = join(dir, "build", "caravan");
  expect(script).toBe("bun scripts/build.ts");
  const build = Bun.spawnSync(["bun", "scripts/build.ts", outfile], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  mkdirSync(runDir);
  copyFileSync(outfile, exe);
  Bun.spawnSync(["chmod", "+x", exe]);

  server = Bun.spawn([exe, "serve"], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
  const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
  void (async () => {
    for await (const c of server!.stderr as ReadableStream<Uint8Array>) serverOut += new TextDecoder().decode(c);
  })();
  while (!url) {
    const next = await Promise.race([reader.read(), Bun.sleep(30_000).then(() => null)]);
    if (!next || next.done) throw new Error(`binary did not start: ${serverOut}`);
    serverOut += new TextDecoder().decode(next.value);
    url = /listening on (http:\/\/\S+)/.exec(serverOut)?.[1] ?? "";
  }
  void (async () => {
    for (;;) if ((await reader.read()).done) break;
  })();

  // The key through the binary's own CLI.
  const member = Bun.spawnSync([exe, "members", "create", "--email", "owner@binary.test", "--role", "owner"], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
  if (member.exitCode !== 0) throw new Error(`members create failed: ${member.stderr.toString()}`);
  const keys = Bun.spawnSync([exe, "keys", "create", "--env", "test", "--member", "owner@binary.test", "--json"], { cwd: runDir, env, stdout: "pipe", stderr: "pipe" });
  if (keys.exitCode !== 0) throw new Error(`keys create failed: ${keys.stderr.toString()}`);
  key = JSON.parse(keys.stdout.toString().trim().split("\n").at(-1)!).key;

  // A rejected transfer and two reports, written as the repository writes them (sealed with the binary's key).
  storage = await openStorage(db, { migrate: false });
  const pii = new Sealer(loadMasterKey(db, {}).derive("pii"));
  const companyId = (storage.stmt("SELECT id FROM companies WHERE slug = 'default'").get() as { id: string }).id;
  const transferId = newId("trf", Date.now());
  const at = iso(Date.now());
  storage
    .stmt("INSERT INTO transfers (id, company_id, environment, direction, state, status, asset, amount, network, beneficiary_address, created_at, updated_at) VALUES (?, ?, 'test', 'outgoing', 'rejected', 'rejected', 'USDC', '1250.50', 'ethereum', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', ?, ?)")
    .run(transferId, companyId, at, at);
  const seed = (jurisdiction: string, narrative: string, fields: Record<string, string>) =>
    storage.transaction(() =>
      new Reports(storage, pii).createDraft(
        { id: newReportId(), companyId, environment: "test", transferId, caseId: null, jurisdiction, narrative, riskIndicators: ["Funds sent to a sanctioned mixer"], generatedBy: "system", detectionMethod: "screening", regulatoryData: fields },
        Date.now(),
      ),
    );
  latin = await seed("US", NARRATIVE, { ...complete("US"), subjectName: "Żółć, Łukasz" });
  cjk = await seed("JP", `顧客は制裁対象のミキサーに送金した。${NARRATIVE}`, { ...complete("JP"), subjectName: "山田, 太郎", counterpartyName: "김, 민준" });
});

afterAll(async () => {
  storage?.close();
  server?.kill("SIGTERM");
  await server?.exited;
});

async function download(id: string) {
  const res = await fetch(`${url}/api/v2/reports/${id}/download?format=pdf`, { headers: { "x-api-key": key } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const hex = Buffer.from(await crypto.subtle.digest("SHA-256", bytes)).toString("hex");
  return { res, bytes, hex };
}

test("the binary, alone in an empty directory, downloads a Latin report's PDF that reads back", async () => {
  const { res, bytes, hex } = await download(latin.id);
  expect(res.status, serverOut).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/pdf");
  expect(res.headers.get("x-content-sha256")).toBe(hex);
  expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("%PDF-");
  const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
  expect(text).toContain(latin.reportNumber);
  expect(text).toContain("Żółć, Łukasz");
  expect(text).toContain("sanctioned mixing service");
});

test("the binary renders a CJK report with its embedded Noto Sans JP/SC/KR: the names read back as text", async () => {
  const { res, bytes, hex } = await download(cjk.id);
  expect(res.status, serverOut).toBe(200);
  expect(res.headers.get("x-content-sha256")).toBe(hex);
  const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: true });
  expect(text).toContain(cjk.reportNumber);
  expect(text).toContain("山田, 太郎");
  expect(text).toContain("김, 민준");
  expect(text).toContain("顧客は制裁対象のミキサーに送金した");
  // The CJK fonts are embedded as font files in the PDF (a CJK report carries their subsets).
  const raw = new TextDecoder("latin1").decode(bytes);
  expect(raw).toContain("NotoSansJP");
  expect(raw).toContain("NotoSansKR");
});

test("the binary's render worker thread runs at nice 19 while its event loop thread keeps nice 0 (Linux)", async () => {
  expect(process.platform).toBe("linux");
  expect((await download(latin.id)).res.status).toBe(200); // the Latin lane's worker exists now
  const pid = server!.pid;
  const nice = (tid: string) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  };
  const tids = readdirSync(`/proc/${pid}/task`);
  expect(nice(String(pid))).toBe(0);
  expect(tids.filter((t) => nice(t) === 19).length).toBeGreaterThanOrEqual(1);
});

test("the binary started in a directory holding a .env and a bunfig.toml reads neither: serve and the CLI take the environment's settings, and the bunfig's preload never runs", async () => {
  const { dotenvDir, expectServeIgnoredDotenv, expectMigrateIgnoredDotenv, serveOutput, cleanEnv } = await import("./support/dotenv.ts");
  const { existsSync, writeFileSync } = await import("node:fs");
  // A bunfig.toml Bun would honour by default: its preload writes a marker file before the program starts.
  const withBunfig = (cwd: string) => {
    writeFileSync(join(cwd, "bunfig.toml"), 'preload = ["./preload.js"]\n');
    writeFileSync(join(cwd, "preload.js"), `require("node:fs").writeFileSync(${JSON.stringify(join(cwd, "preloaded"))}, "yes");\n`);
  };
  const served = await dotenvDir(dir, "dotenv-serve");
  withBunfig(served.cwd);
  expectServeIgnoredDotenv(await serveOutput([exe, "serve"], served), served);
  expect(existsSync(join(served.cwd, "preloaded"))).toBe(false);
  const cli = await dotenvDir(dir, "dotenv-cli");
  withBunfig(cli.cwd);
  const proc = Bun.spawn([exe, "migrate"], { cwd: cli.cwd, env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), new Response(proc.stderr as ReadableStream).text(), proc.exited]);
  expectMigrateIgnoredDotenv({ code, stdout, stderr }, cli);
  expect(existsSync(join(cli.cwd, "preloaded"))).toBe(false);
});
