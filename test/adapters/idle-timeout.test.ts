// A long answer and the connection's idle timeout (src/adapters/server/served.ts), through the server adapter's real
// Bun.serve and Bun's real fetch. Bun.serve closes a connection that sent nothing for its idle timeout even while the
// answer is being computed, and Bun's fetch then sends the GET again on a new connection: a render that outlasted the
// timeout was asked for twice, and the second ask met the first one's render (503 for a CJK PDF). With the timeout
// lifted while the answer is computed, the handler runs once and the client gets its answer.
import { test, expect, setDefaultTimeout } from "bun:test";
import { listen } from "../../src/adapters/server/index.ts";
import { withoutIdleTimeout } from "../../src/adapters/server/served.ts";

// The work below outlasts a 1 s idle timeout by several seconds; a hang guard, not a timing assertion.
setDefaultTimeout(60_000);

/** A server with a 1 s idle timeout whose `/slow` takes `workMs`, lifted or not; counts how often `/slow` was asked. */
async function slowServer(lifted: boolean, workMs: number) {
  let asked = 0;
  const server = await listen(
    async (req) => {
      if (new URL(req.url).pathname !== "/slow") return new Response("ok");
      const n = ++asked;
      const work = async () => {
        await Bun.sleep(n === 1 ? workMs : 0);
        return `answer ${n}`;
      };
      return new Response(lifted ? await withoutIdleTimeout(req, work) : await work());
    },
    { hostname: "127.0.0.1", port: 0, idleTimeoutSeconds: 1 },
  );
  return { url: `http://127.0.0.1:${server.port}`, asked: () => asked, stop: () => server.stop() };
}

/** Over a kept-alive connection (as a client's earlier request leaves one), asks for `/slow` once with Bun's fetch. */
async function askSlow(lifted: boolean) {
  const s = await slowServer(lifted, 6000);
  try {
    await (await fetch(`${s.url}/warm`)).text();
    const res = await fetch(`${s.url}/slow`);
    return { status: res.status, text: await res.text(), asked: s.asked() };
  } finally {
    await s.stop();
  }
}

test("without the lift, an answer that outlasts the idle timeout is asked for twice (the premise: a cut, then a retry)", async () => {
  expect(await askSlow(false)).toEqual({ status: 200, text: "answer 2", asked: 2 });
});

test("with the idle timeout lifted while it is computed, the same answer is asked for once and arrives", async () => {
  expect(await askSlow(true)).toEqual({ status: 200, text: "answer 1", asked: 1 });
});

test("the idle timeout is back once the answer is handed over: a kept-alive connection left idle is closed", async () => {
  const s = await slowServer(true, 10);
  try {
    const { connect } = await import("node:net");
    const closedAfter = await new Promise<number>((resolve, reject) => {
      const sock = connect({ host: "127.0.0.1", port: Number(new URL(s.url).port) }, () => {
        sock.write(`GET /slow HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
      });
      let answeredAt = 0;
      sock.on("data", (d) => {
        if (!answeredAt && d.toString().includes("answer 1")) answeredAt = Date.now();
      });
      sock.on("close", () => (answeredAt ? resolve(Date.now() - answeredAt) : reject(new Error("closed before the answer"))));
      sock.on("error", () => {});
    });
    // Closed by the server (the 60 s guard above would end a connection it kept), after the answer was received.
    expect(closedAfter).toBeGreaterThanOrEqual(0);
  } finally {
    await s.stop();
  }
});
