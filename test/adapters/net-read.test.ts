// The one capped body reader (src/adapters/net/read.ts) of the API, the provider callbacks, every outbound client and
// the webhook deliverer. What must hold: a declared length within the cap is read in one piece, one over it is refused
// before a byte is read, a body without a declared length is counted while it streams, and a compressed answer is
// counted after decompression (its declared length is the compressed size: a small gzip can expand far past the cap).
import { test, expect, setDefaultTimeout, afterAll } from "bun:test";
import { gzipSync } from "node:zlib";
import { readBodyCapped, readTextCapped } from "../../src/adapters/net/read.ts";

setDefaultTimeout(60_000);

const CAP = 64 * 1024;
const zeros = new Uint8Array(4 * 1024 * 1024); // 4 MiB: gzips to a few KiB
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === "/bomb") return new Response(gzipSync(zeros), { headers: { "content-encoding": "gzip", "content-type": "application/octet-stream" } });
    if (path === "/small-gzip") return new Response(gzipSync(new TextEncoder().encode("ok, compressed")), { headers: { "content-encoding": "gzip" } });
    if (path === "/exact") return new Response(new Uint8Array(CAP));
    return new Response("ok");
  },
});
afterAll(() => server.stop(true));
const url = (p: string) => `http://127.0.0.1:${server.port}${p}`;

test("a compressed answer is counted after decompression: 4 MiB behind a small gzip is refused at 64 KiB", async () => {
  const res = await fetch(url("/bomb"));
  expect(res.status).toBe(200);
  expect(await readBodyCapped(res, CAP)).toBeNull();
  expect(await readTextCapped(await fetch(url("/small-gzip")), CAP)).toBe("ok, compressed");
});

test("an encoded body is never read whole on the strength of its declared length: the stream is counted and cut", async () => {
  // Declares 10 bytes, sends 65 KiB and then never ends: reading it whole would wait forever; counting stops at the cap.
  const endless = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < 65; i++) c.enqueue(new Uint8Array(1024));
    },
  });
  const res = new Response(endless, { headers: { "content-length": "10", "content-encoding": "gzip" } });
  expect(await readBodyCapped(res, CAP)).toBeNull();
});

test("declared lengths: at the cap read whole, one over refused unread; streamed bodies counted", async () => {
  expect((await readBodyCapped(await fetch(url("/exact")), CAP))?.byteLength).toBe(CAP);
  expect(await readBodyCapped(await fetch(url("/exact")), CAP - 1)).toBeNull();
  const declared = new Request("http://x/", { method: "POST", body: "x".repeat(10), headers: { "content-length": "10" } });
  expect(await readBodyCapped(declared, 9)).toBeNull();
  const streamed = (n: number) =>
    new Response(new ReadableStream({ start(c) { for (let i = 0; i < n; i++) c.enqueue(new Uint8Array(1024)); c.close(); } }));
  expect((await readBodyCapped(streamed(64), CAP))?.byteLength).toBe(CAP);
  expect(await readBodyCapped(streamed(65), CAP)).toBeNull();
  expect(await readTextCapped(await fetch(url("/plain")), CAP)).toBe("ok");
});
