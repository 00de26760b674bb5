// The client's address (src/adapters/net/client-address.ts): the socket's, unless the socket is a trusted proxy
// (CARAVAN_TRUSTED_PROXIES); only then CF-Connecting-IP, or the right-most untrusted hop of X-Forwarded-For.
import { test, expect } from "bun:test";
import { ClientAddresses, peerAddress, recordPeer } from "../../src/adapters/net/client-address.ts";

function from(peer: string | null, headers: Record<string, string> = {}): Request {
  const req = new Request("http://127.0.0.1/x", { headers });
  if (peer !== null) recordPeer(req, () => peer);
  return req;
}

test("no trusted proxies (the default): the socket's address, whatever CF-Connecting-IP or X-Forwarded-For say", () => {
  const c = ClientAddresses.fromEnv({});
  expect(c.of(from("127.0.0.1", { "CF-Connecting-IP": "203.0.113.7" }))).toBe("127.0.0.1");
  expect(c.of(from("198.51.100.4", { "X-Forwarded-For": "203.0.113.7" }))).toBe("198.51.100.4");
  expect(c.of(from("::ffff:127.0.0.1"))).toBe("127.0.0.1");
  expect(c.of(from("2001:db8::1"))).toBe("2001:db8::1");
  // A request no server received has no address.
  expect(c.of(from(null, { "CF-Connecting-IP": "203.0.113.7" }))).toBeNull();
  expect(peerAddress(from(null))).toBeNull();
});

test("from a trusted proxy: CF-Connecting-IP first; a value that is not one address is no address", () => {
  const c = ClientAddresses.parse("127.0.0.1, 10.0.0.0/8");
  expect(c.of(from("127.0.0.1", { "CF-Connecting-IP": "203.0.113.7" }))).toBe("203.0.113.7");
  expect(c.of(from("10.1.2.3", { "CF-Connecting-IP": " 2001:db8::7 " }))).toBe("2001:db8::7");
  expect(c.of(from("127.0.0.1", { "CF-Connecting-IP": "127.0.0.1, 198.51.100.1" }))).toBeNull();
  expect(c.of(from("127.0.0.1", { "CF-Connecting-IP": "0x7f000001" }))).toBeNull();
  // A trusted proxy that names no client: unknown, not the proxy itself.
  expect(c.of(from("127.0.0.1"))).toBeNull();
  // Not a trusted proxy: its headers are not read.
  expect(c.of(from("192.0.2.9", { "CF-Connecting-IP": "203.0.113.7" }))).toBe("192.0.2.9");
});

test("X-Forwarded-For from a trusted proxy: the right-most hop that is not itself a trusted proxy", () => {
  const c = ClientAddresses.parse("127.0.0.1,10.0.0.0/8");
  // The client wrote "203.0.113.66" itself; the proxies appended the rest.
  expect(c.of(from("127.0.0.1", { "X-Forwarded-For": "203.0.113.66, 198.51.100.20, 10.0.0.5" }))).toBe("198.51.100.20");
  expect(c.of(from("127.0.0.1", { "X-Forwarded-For": "198.51.100.20" }))).toBe("198.51.100.20");
  // Every hop a trusted proxy: the left-most.
  expect(c.of(from("127.0.0.1", { "X-Forwarded-For": "10.0.0.9, 10.0.0.5" }))).toBe("10.0.0.9");
  // A hop that is not an address, on the trusted side of the client: unknown.
  expect(c.of(from("127.0.0.1", { "X-Forwarded-For": "198.51.100.20, junk" }))).toBeNull();
});

test("entries that are neither an address nor a range are reported and ignored", () => {
  const c = ClientAddresses.parse("127.0.0.1, example.com, 10.0.0.0/99");
  expect(c.invalid).toEqual(["example.com", "10.0.0.0/99"]);
  expect(c.of(from("127.0.0.1", { "CF-Connecting-IP": "203.0.113.7" }))).toBe("203.0.113.7");
});
