// The sandbox peers' own listener (src/sandbox/serve.ts): loopback only, a free port on 0, real HTTP, and a clean stop.
import { expect, test } from "bun:test";
import { isLoopbackHost, listen } from "../../src/sandbox/serve.ts";

test("listens on 127.0.0.1 with a free port by default, answers over real HTTP, and stops", async () => {
  const server = await listen((req) => Response.json({ path: new URL(req.url).pathname }));
  expect(server.hostname).toBe("127.0.0.1");
  expect(server.port).toBeGreaterThan(0);
  const res = await fetch(`http://127.0.0.1:${server.port}/v1/code/vasps`);
  expect(await res.json()).toEqual({ path: "/v1/code/vasps" });
  await server.stop();
  await expect(fetch(`http://127.0.0.1:${server.port}/`)).rejects.toThrow();
});

test.each(["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.invalid", "127.0.0.1.example", "128.0.0.1"])("a non-loopback host (%s) is refused before anything listens", async (hostname) => {
  expect(isLoopbackHost(hostname)).toBe(false);
  await expect(listen(() => new Response("x"), { hostname, port: 0 })).rejects.toThrow(/loopback only/);
});

test.each(["127.0.0.1", "127.1.2.3", "localhost", "::1"])("%s counts as loopback", (hostname) => {
  expect(isLoopbackHost(hostname)).toBe(true);
});
