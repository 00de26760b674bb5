// The SSRF guard and pinned client (src/adapters/net): every refused address class, resolved host names, the allow list,
// connection to the checked address (no second lookup), TLS name checks on a pinned address, redirects, timeouts; both transports.
import { test, expect, describe, afterAll, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { tempDir } from "../support/tmp.ts";
import {
  AllowList,
  checkTarget,
  fetchTransport,
  nodeTransport,
  refusedBecause,
  safeFetch,
  SafeFetchError,
  TargetRefused,
  type NetPolicy,
  type Resolver,
  type Transport,
} from "../../src/adapters/net/index.ts";

// Servers and child processes on a shared 2-core machine: a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

/** Every class the issue names, with examples in IPv4 and IPv6. */
const REFUSED: Record<string, string[]> = {
  loopback: ["127.0.0.1", "127.255.255.254", "::1"],
  private: ["10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1"],
  "link-local": ["169.254.169.254", "fe80::1"],
  CGNAT: ["100.64.0.1", "100.127.255.254"],
  multicast: ["224.0.0.1", "239.255.255.250", "ff02::1"],
  reserved: ["240.0.0.1", "192.0.2.10", "198.51.100.1", "203.0.113.1", "198.18.0.1", "2001:db8::1"],
  broadcast: ["255.255.255.255"],
  unspecified: ["0.0.0.0", "::"],
  "IPv4-mapped": ["::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:8.8.8.8"],
  "unique local (ULA)": ["fc00::1", "fd12:3456::1"],
  "IPv4-embedded (NAT64, 6to4, Teredo)": ["64:ff9b::a00:1", "2002:7f00:1::1", "2001::1"],
  "unallocated IPv6": ["4000::1"],
};
const PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e"];

const none: NetPolicy = { allow: AllowList.none, timeoutMs: 5_000 };
const resolver = (map: Record<string, string[]>): Resolver => async (host) => {
  const a = map[host];
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof TargetRefused || e instanceof SafeFetchError) return e.message;
    throw e;
  }
  throw new Error("expected a refusal");
}

describe("address classes (ipaddr.js ranges)", () => {
  for (const [cls, addrs] of Object.entries(REFUSED))
    test(`${cls} refused: ${addrs.join(", ")}`, async () => {
      for (const a of addrs) {
        expect(refusedBecause(a)).not.toBeNull();
        const url = `https://${a.includes(":") ? `[${a}]` : a}/hook`;
        // The message names the address as the URL parser spells it (`::ffff:127.0.0.1` becomes `::ffff:7f00:1`).
        expect(await refusal(checkTarget(url, none))).toStartWith(`${new URL(url).hostname.replace(/^\[|\]$/g, "")} is `);
      }
    });

  test("public unicast addresses pass, as literals", async () => {
    for (const a of PUBLIC) {
      expect(refusedBecause(a)).toBeNull();
      const t = await checkTarget(`https://${a.includes(":") ? `[${a}]` : a}/hook`, none);
      expect(t.address).toBe(a);
    }
  });

  test("other spellings of loopback are normalized by the URL parser first (decimal, hex, short forms)", async () => {
    for (const u of ["https://2130706433/", "https://0x7f.1/", "https://127.1/", "https://0177.0.0.1/", "https://[0:0:0:0:0:ffff:7f00:1]/"])
      expect(await refusal(checkTarget(u, none))).toMatch(/127\.0\.0\.1|::ffff:7f00:1/);
  });
});

describe("host names: every resolved address is checked", () => {
  test("`localhost` (system resolver, /etc/hosts) resolves to loopback and is refused", async () => {
    expect(await refusal(checkTarget("https://localhost/hook", none))).toMatch(/the host localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  });

  test("a name resolving to a private address is refused; one private address among public ones is enough", async () => {
    const resolve = resolver({ "internal.example": ["10.1.2.3"], "mixed.example": ["93.184.216.34", "192.168.0.10"], "ok.example": ["93.184.216.34", "2606:4700::1"] });
    expect(await refusal(checkTarget("https://internal.example/x", { ...none, resolve }))).toBe("the host internal.example resolves to 10.1.2.3, a private network address");
    expect(await refusal(checkTarget("https://mixed.example/x", { ...none, resolve }))).toContain("192.168.0.10");
    const t = await checkTarget("https://ok.example:8443/x?y=1", { ...none, resolve });
    expect(t).toMatchObject({ hostname: "ok.example", address: "93.184.216.34", family: 4, port: 8443 });
  });

  test("a name that does not resolve is refused (it cannot be checked)", async () => {
    expect(await refusal(checkTarget("https://nowhere.invalid/x", { ...none, resolve: resolver({}) }))).toContain("does not resolve");
  });

  test("only https; no credentials; no other scheme", async () => {
    expect(await refusal(checkTarget("http://93.184.216.34/x", none))).toBe("the scheme must be https");
    expect(await refusal(checkTarget("https://u:p@93.184.216.34/x", none))).toContain("credentials");
    expect(await refusal(checkTarget("file:///etc/passwd", none))).toContain("scheme");
  });
});

describe("CARAVAN_ALLOW_PRIVATE_TARGETS", () => {
  test("entries: host names, addresses and CIDR ranges; anything else is a configuration error", () => {
    const a = AllowList.parse(" localhost , 127.0.0.2, 10.0.0.0/8 ,::1, fd00::/8");
    expect(a.hasHost("LOCALHOST")).toBe(true);
    expect(a.hasAddress("127.0.0.2")).toBe(true);
    expect(a.hasAddress("::ffff:127.0.0.2")).toBe(true);
    expect(a.hasAddress("127.0.0.1")).toBe(false);
    expect(a.hasAddress("10.200.0.1")).toBe(true);
    expect(a.hasAddress("fd00::5")).toBe(true);
    expect(AllowList.parse("").empty).toBe(true);
    for (const bad of ["10.0.0.0/99", "bad host!", "http://x"]) expect(() => AllowList.parse(bad)).toThrow(RangeError);
  });

  test("an exception may be private and use http; everything else stays refused", async () => {
    const policy: NetPolicy = { ...none, allow: AllowList.parse("127.0.0.2,hook.test"), resolve: resolver({ "hook.test": ["10.9.9.9"], "other.test": ["10.9.9.9"] }) };
    expect((await checkTarget("http://127.0.0.2:9/x", policy)).address).toBe("127.0.0.2");
    expect((await checkTarget("http://hook.test/x", policy)).address).toBe("10.9.9.9");
    expect(await refusal(checkTarget("https://127.0.0.1/x", policy))).toContain("loopback");
    expect(await refusal(checkTarget("https://other.test/x", policy))).toContain("10.9.9.9");
  });
});

const TRANSPORTS: [string, Transport][] = [
  ["fetch (Bun)", fetchTransport],
  ["node:http(s) (Deno)", nodeTransport],
];

describe.each(TRANSPORTS)("safeFetch over %s", (_name, transport) => {
  const seen: { host: string | null; url: string; body: string }[] = [];
  const receiver = Bun.serve({
    hostname: "127.0.0.2",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      seen.push({ host: req.headers.get("host"), url: req.url, body: await req.text() });
      if (path === "/redirect") return new Response(null, { status: 302, headers: { location: "http://127.0.0.1/admin" } });
      if (path === "/slow") await Bun.sleep(3_000);
      return new Response("fine", { status: path === "/fail" ? 503 : 200 });
    },
  });
  afterAll(() => receiver.stop(true));
  // hook.test exists only in this resolver: if the client looked the name up again it would fail.
  let lookups = 0;
  const resolve: Resolver = async (h) => {
    lookups++;
    return resolver({ "hook.test": ["127.0.0.2"] })(h);
  };
  const policy: NetPolicy = { allow: AllowList.parse("127.0.0.2"), timeoutMs: 5_000, resolve, transport };

  test("connects to the checked address with the original Host header, once resolved", async () => {
    seen.length = 0;
    lookups = 0;
    const res = await safeFetch(`http://hook.test:${receiver.port}/in?q=1`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' }, policy);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("fine");
    expect(lookups).toBe(1);
    expect(seen).toEqual([{ host: `hook.test:${receiver.port}`, url: `http://hook.test:${receiver.port}/in?q=1`, body: '{"a":1}' }]);
  });

  test("an error status is answered as is; a redirect is a failure and is not followed", async () => {
    expect((await safeFetch(`http://127.0.0.2:${receiver.port}/fail`, {}, policy)).status).toBe(503);
    seen.length = 0;
    const e = await safeFetch(`http://127.0.0.2:${receiver.port}/redirect`, {}, policy).catch((x) => x);
    expect(e).toBeInstanceOf(SafeFetchError);
    expect(e.kind).toBe("redirect");
    expect(e.status).toBe(302);
    expect(seen.length).toBe(1);
  });

  test("the timeout covers the whole exchange", async () => {
    const e = await safeFetch(`http://127.0.0.2:${receiver.port}/slow`, {}, { ...policy, timeoutMs: 300 }).catch((x) => x);
    expect(e).toBeInstanceOf(SafeFetchError);
    expect(e.kind).toBe("timeout");
  });

  test("refusals never connect: loopback, private, a name resolving privately", async () => {
    seen.length = 0;
    for (const u of [`http://127.0.0.1:${receiver.port}/`, "https://10.0.0.1/", "https://localhost/"]) {
      const e = await safeFetch(u, {}, { ...policy, resolve: undefined }).catch((x) => x);
      expect(e.kind).toBe("refused");
    }
    expect(seen.length).toBe(0);
  });

  test("a connection failure names no URL (paths may hold a receiver's token)", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.2", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    void closed.stop(true);
    const e = await safeFetch(`http://127.0.0.2:${port}/hook?token=s3cr3t`, {}, policy).catch((x) => x);
    expect(e.kind).toBe("network");
    expect(e.message).not.toContain("s3cr3t");
  });
});

// TLS on a pinned address: the certificate must name the URL's host, not the address connected to.
// Not skipped when missing: the certificate is made with openssl (Debian package openssl; .ci/run installs it).
const openssl = Bun.which("openssl");
describe.each(TRANSPORTS)("https to a pinned address over %s", (_name, transport) => {
  test("the TLS server name and certificate check are the URL's host name; a certificate for another name fails", async () => {
    if (!openssl) throw new Error("openssl is required to make the test certificate (Debian package openssl; .ci/run installs it)");
    const dir = tempDir("caravan-tls-");
    const proc = Bun.spawnSync([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2", "-subj", "/CN=hook.test", "-addext", "subjectAltName=DNS:hook.test"]);
    expect(proc.exitCode).toBe(0);
    const cert = readFileSync(join(dir, "cert.pem"), "utf8");
    const server = Bun.serve({ hostname: "127.0.0.2", port: 0, tls: { cert, key: readFileSync(join(dir, "key.pem"), "utf8") }, fetch: (req) => new Response(req.headers.get("host")) });
    try {
      const policy: NetPolicy = { allow: AllowList.parse("127.0.0.2"), timeoutMs: 5_000, transport, ca: cert, resolve: resolver({ "hook.test": ["127.0.0.2"], "other.test": ["127.0.0.2"] }) };
      const res = await safeFetch(`https://hook.test:${server.port}/x`, {}, policy);
      expect(await res.text()).toBe(`hook.test:${server.port}`);
      const e = await safeFetch(`https://other.test:${server.port}/x`, {}, policy).catch((x) => x);
      expect(e.kind).toBe("network");
    } finally {
      void server.stop(true);
    }
  });
});
