// The pushed response body (src/adapters/server/push-stream.ts): Bun's direct stream when Bun.serve sends the answer,
// the standard byte-counted stream otherwise; both keep the event stream's rules (order, room, pull, cancel, cut).
import { afterEach, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { listen, type RunningServer } from "../../src/adapters/server/index.ts";
import { isDirectStream, pushStream, type PushSink } from "../../src/adapters/server/push-stream.ts";

const enc = new TextEncoder();
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** A server whose only answer is a pushed body; the test holds the sink and sees pull/cancel calls. */
async function pushServer(bufferBytes: number) {
  const seen = { sink: undefined as PushSink | undefined, pulls: 0, cancels: 0, direct: undefined as boolean | undefined };
  server = await listen(
    (req) => {
      const body = pushStream(
        {
          start(sink) {
            seen.sink = sink;
            sink.write(enc.encode("first\n"));
          },
          pull() {
            seen.pulls++;
          },
          cancel() {
            seen.cancels++;
          },
        },
        bufferBytes,
        req,
      );
      seen.direct = isDirectStream(body);
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
    { hostname: "127.0.0.1", port: 0 },
  );
  return { seen, url: `http://127.0.0.1:${server.port}/` };
}

const until = async (cond: () => boolean) => {
  while (!cond()) await Bun.sleep(5); // a hang guard only (the test's timeout), no timing assertion
};

describe("through Bun.serve: a direct stream", () => {
  test("a request Bun.serve received gets a direct body; what was written before the answer started comes first, every write follows in order, close() ends the answer", async () => {
    const { seen, url } = await pushServer(64 * 1024);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(seen.direct).toBe(true);
    await until(() => seen.sink !== undefined);
    for (let i = 0; i < 100; i++) seen.sink!.write(enc.encode(`line ${i}\n`));
    seen.sink!.close();
    const text = await res.text();
    expect(text).toBe("first\n" + Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join(""));
  });

  test("a client that stops reading: the room falls below zero once the connection takes nothing more; when it reads again every byte arrives, the room comes back and pull is asked", async () => {
    const bufferBytes = 64 * 1024;
    const { seen, url } = await pushServer(bufferBytes);
    const { port } = new URL(url);
    let received = 0;
    let head = true;
    const sock: Socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => sock.once("connect", () => resolve()));
    sock.on("data", (d: Buffer) => {
      received += d.length;
      if (head && d.includes("\r\n\r\n")) head = false;
    });
    sock.write("GET / HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
    await until(() => !head && seen.sink !== undefined);
    sock.pause(); // reads nothing more: the kernel's buffers fill, then Bun's
    const chunk = new Uint8Array(64 * 1024).fill(97);
    let written = 0;
    // As many writes as it takes for the room to fall below zero: the kernel's loopback buffers take a few MiB on one
    // machine and tens of MiB on another (net.ipv4.tcp_rmem up to 32 MiB), so no count is assumed (the test's timeout
    // is the hang guard).
    while (seen.sink!.desiredSize >= 0) {
      seen.sink!.write(chunk);
      written += chunk.byteLength;
      await Bun.sleep(0);
    }
    expect(seen.sink!.desiredSize).toBeLessThan(0);
    const pullsBefore = seen.pulls;
    sock.resume();
    await until(() => seen.sink!.desiredSize === bufferBytes);
    await until(() => received >= written);
    expect(seen.pulls).toBeGreaterThan(pullsBefore);
    sock.destroy();
    await until(() => seen.cancels === 1);
  });

  test("a client that goes away: cancel is called once", async () => {
    const { seen, url } = await pushServer(64 * 1024);
    const ac = new AbortController();
    const res = await fetch(url, { signal: ac.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first\n");
    ac.abort();
    await until(() => seen.cancels === 1);
    // Writes after the connection went away are dropped, not thrown.
    seen.sink!.write(enc.encode("late\n"));
    expect(seen.cancels).toBe(1);
  });

  test("fail() cuts the connection: the client's body ends with an error, not a clean end", async () => {
    const { seen, url } = await pushServer(64 * 1024);
    const res = await fetch(url);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first\n");
    seen.sink!.fail(new Error("too slow"));
    let failed = false;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
  });
});

describe("anywhere else: the standard stream", () => {
  test("a request no server received gets a standard body with the same rules: order, room counted in bytes, pull when read, cancel", async () => {
    const seen = { sink: undefined as PushSink | undefined, pulls: 0, cancels: 0 };
    const body = pushStream(
      {
        start(sink) {
          seen.sink = sink;
          sink.write(enc.encode("first\n"));
        },
        pull() {
          seen.pulls++;
        },
        cancel() {
          seen.cancels++;
        },
      },
      16,
      new Request("http://localhost/"),
    );
    expect(isDirectStream(body)).toBe(false);
    seen.sink!.write(enc.encode("second line\n"));
    expect(seen.sink!.desiredSize).toBe(16 - 6 - 12);
    const reader = body.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first\n");
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("second line\n");
    expect(seen.sink!.desiredSize).toBe(16);
    expect(seen.pulls).toBeGreaterThan(0);
    await reader.cancel();
    expect(seen.cancels).toBe(1);
  });
});
