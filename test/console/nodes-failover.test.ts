// The console's client and event stream given several nodes (`--url http://a,http://b`), over real HTTP on loopback:
// a read that cannot reach the node it talks to is sent to the next one at once; a change is not sent again (it may
// have been made) but the next call goes to the next node; the stream moves to the next node and resumes there with
// its Last-Event-ID. With one URL nothing of this changes.
import { test, expect, afterEach } from "bun:test";
import { ApiClient, EventStream, nodeUrls, type StreamEvent, type StreamState } from "../../src/console/client.ts";
import { closedLoopbackOrigin } from "../support/server.ts";

const servers: { stop(force?: boolean): unknown }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop(true);
});

/** A node stand-in: answers every request with its name and remembers what it was sent. */
function node(name: string) {
  const seen: { method: string; path: string; lastEventId: string | null }[] = [];
  const s = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      seen.push({ method: req.method, path: u.pathname, lastEventId: req.headers.get("last-event-id") });
      if (u.pathname === "/api/v2/events/stream") {
        const n = seen.filter((x) => x.path === u.pathname).length;
        const body = `id: ${name}-${n}\nevent: transfer.created\ndata: ${JSON.stringify({ event: "transfer.created", timestamp: "2026-12-02T06:00:00.000Z", data: { id: `trf_${name}` } })}\n\n`;
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }
      return Response.json({ data: { node: name }, meta: {} });
    },
  });
  servers.push(s);
  return { url: `http://127.0.0.1:${s.port}`, seen, stop: () => s.stop(true) };
}

test("nodeUrls: commas separate the nodes, spaces and trailing slashes go; one URL is a list of one", () => {
  expect(nodeUrls("http://a:1/, http://b:2")).toEqual(["http://a:1", "http://b:2"]);
  expect(nodeUrls("http://a:1")).toEqual(["http://a:1"]);
});

test("a read that cannot reach the first node is answered by the next, which is talked to from then on", async () => {
  const dead = await closedLoopbackOrigin();
  const b = node("b");
  const client = new ApiClient({ url: `${dead},${b.url}`, key: "crv_test_x" });
  expect(client.url).toBe(dead);
  const r = await client.get<{ node: string }>("/api/v2/me");
  expect(r.ok && r.data.node).toBe("b");
  expect(client.url).toBe(b.url);
  expect(client.health).toEqual({ kind: "ok" });
  expect((await client.get<{ node: string }>("/api/v2/me")).ok).toBe(true);
  expect(b.seen.map((x) => x.path)).toEqual(["/api/v2/me", "/api/v2/me"]);
});

test("a change that cannot reach its node is not sent again: answered unreachable, naming the next node, which the next call reaches", async () => {
  const dead = await closedLoopbackOrigin();
  const b = node("b");
  const client = new ApiClient({ url: `${dead},${b.url}`, key: "crv_test_x" });
  const r = await client.send("POST", "/api/v2/cases/cas_1/resolve", { resolution: "approved" });
  expect(r.ok).toBe(false);
  expect(!r.ok && r.code).toBe("UNREACHABLE");
  expect(!r.ok && r.error).toMatch(new RegExp(`^cannot reach ${dead}.*; next: ${b.url}$`));
  expect(client.health.kind).toBe("unreachable");
  expect(b.seen).toEqual([]);
  const again = await client.send("POST", "/api/v2/cases/cas_1/resolve", { resolution: "approved" });
  expect(again.ok).toBe(true);
  expect(b.seen.map((x) => `${x.method} ${x.path}`)).toEqual(["POST /api/v2/cases/cas_1/resolve"]);
});

test("one URL: a failure is answered as before, with no next node named", async () => {
  const dead = await closedLoopbackOrigin();
  const client = new ApiClient({ url: dead, key: "crv_test_x" });
  const r = await client.get("/api/v2/me");
  expect(!r.ok && r.error).toMatch(new RegExp(`^cannot reach ${dead}( \\(.*\\))?$`));
  expect(client.url).toBe(dead);
});

test("the stream moves to the next node when its node is gone, and resumes there after the last event it had", async () => {
  const a = node("a");
  const b = node("b");
  const events: StreamEvent[] = [];
  const states: StreamState["kind"][] = [];
  let stopA = false;
  const stream = new EventStream(
    { url: `${a.url},${b.url}`, key: "crv_test_x", backoffMs: { base: 10, max: 50 } },
    (e) => {
      events.push(e);
      // Node a dies after its first event: the connection ends and a cannot be reached any more.
      if (e.id === "a-1" && !stopA) {
        stopA = true;
        void a.stop();
      }
    },
    (s) => states.push(s.kind),
  ).start();
  try {
    for (let i = 0; i < 400 && !events.some((e) => e.id?.startsWith("b-")); i++) await Bun.sleep(10);
    expect(events.map((e) => e.id)).toContain("a-1");
    const first = events.find((e) => e.id?.startsWith("b-"));
    expect(first?.data).toEqual({ id: "trf_b" });
    expect(stream.url).toBe(b.url);
    // Node b was asked to resume after a's last event.
    expect(b.seen.find((x) => x.path === "/api/v2/events/stream")?.lastEventId).toBe("a-1");
    expect(states).toContain("offline");
  } finally {
    stream.stop();
  }
});
