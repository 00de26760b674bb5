// Keys that arrive in one read of the terminal (a starved console, typing ahead over a slow link) are each acted on,
// in order, each after the screen took the one before: `j` then Enter opens the row `j` moved to; `/` then letters
// filter; escape sequences, Alt+key and a paste stay whole.
import { test, expect, afterEach, setDefaultTimeout } from "bun:test";
import { EventEmitter } from "node:events";
import { Stub, list, one, mountPaced, frame, until, KEY } from "./stub.ts";
import { transferItem, transferDetail } from "./fixtures.ts";
import { keyPacedStdin, splitKeys } from "../../src/console/key-pacing.ts";

setDefaultTimeout(60_000);

let stub: Stub;
let unmount: (() => void) | undefined;
afterEach(() => {
  unmount?.();
  unmount = undefined;
  stub?.stop();
});

const T1 = "trf_01aaaaaaaaaaaaaaaaaaaaaaaa";
const T2 = "trf_01bbbbbbbbbbbbbbbbbbbbbbbb";
const T3 = "trf_01cccccccccccccccccccccccc";

test("splitKeys: characters one by one, escape sequences, Alt+key and a paste whole", () => {
  expect(splitKeys("j\r")).toEqual(["j", "\r"]);
  expect(splitKeys("jk\u001B[Bx\r")).toEqual(["j", "k", "\u001B[B", "x", "\r"]);
  expect(splitKeys("\u001B[1;5A\u001B[Z")).toEqual(["\u001B[1;5A", "\u001B[Z"]); // Ctrl+Up, Shift+Tab
  expect(splitKeys("\u001BOP\u001BOA")).toEqual(["\u001BOP", "\u001BOA"]); // F1, Up in application mode
  expect(splitKeys("\u001B[[A")).toEqual(["\u001B[[A"]); // F1 on the Linux console
  expect(splitKeys("\u001Bxa")).toEqual(["\u001Bx", "a"]); // Alt+x, a
  expect(splitKeys("\u001B\u001B[A")).toEqual(["\u001B\u001B[A"]); // Alt+Up
  expect(splitKeys("\u001B")).toEqual(["\u001B"]); // a lone Esc
  expect(splitKeys("\u001B[1;")).toEqual(["\u001B[1;"]); // cut off: passed as it came
  expect(splitKeys("é😀\u007F")).toEqual(["é", "😀", "\u007F"]); // by code point; backspace
  expect(splitKeys("a\u001B[200~two words\r\u001B[201~b")).toEqual(["a", "\u001B[200~two words\r\u001B[201~", "b"]);
});

test("the wrapper hands its reader one key per read, a macrotask apart, and keeps keys while nobody listens", async () => {
  class Terminal extends EventEmitter {
    isTTY = true;
    chunks: string[] = [];
    rawMode: boolean[] = [];
    read() {
      return this.chunks.shift() ?? null;
    }
    setRawMode(on: boolean) {
      this.rawMode.push(on);
    }
  }
  const terminal = new Terminal();
  const paced = keyPacedStdin(terminal);
  const reads: string[][] = [];
  const reader = () => {
    const got: string[] = [];
    let k: unknown;
    while ((k = paced.read()) !== null) got.push(String(k));
    reads.push(got);
  };
  terminal.chunks.push("ab\u001B[A");
  terminal.emit("readable"); // nobody listens yet: the terminal is not read
  expect(terminal.chunks).toHaveLength(1);
  paced.on("readable", reader);
  terminal.emit("readable");
  expect(reads).toEqual([]); // never within the terminal's own event
  await until(() => reads.length === 3);
  expect(reads).toEqual([["a"], ["b"], ["\u001B[A"]]);
  // A paste longer than one read: the rest of it up to the end marker stays one piece, not a key per character.
  terminal.chunks.push("\u001B[200~ab");
  terminal.emit("readable");
  terminal.chunks.push("c d\r");
  terminal.emit("readable");
  terminal.chunks.push("e\u001B[201~jk");
  terminal.emit("readable");
  await until(() => reads.length === 8);
  expect(reads.slice(3)).toEqual([["\u001B[200~ab"], ["c d\r"], ["e\u001B[201~"], ["j"], ["k"]]);
  paced.removeListener("readable", reader);
  terminal.chunks.push("cd");
  terminal.emit("readable"); // not listened to any more: left in the terminal
  expect(terminal.chunks).toEqual(["cd"]);
  paced.setRawMode(true); // everything else goes to the terminal
  expect(terminal.rawMode).toEqual([true]);
  expect(terminal.listenerCount("readable")).toBe(0);
});

function withTransfers(s: Stub) {
  return s
    .on("GET", "/api/v2/transfers", () => list([transferItem(T1), transferItem(T2, { amount: "250" }), transferItem(T3, { amount: "7" })], { total: 3 }))
    .on("GET", `/api/v2/transfers/${T1}`, one(transferDetail(T1)))
    .on("GET", `/api/v2/transfers/${T2}`, one(transferDetail(T2, { amount: "250" })))
    .on("GET", `/api/v2/transfers/${T3}`, one(transferDetail(T3, { amount: "7" })));
}

/** The console on the transfers screen, live, with `last` (the suffix of the last row's ID) shown. */
async function openTransfers(s: Stub, last: string) {
  stub = s;
  const r = mountPaced(stub, "transfers");
  unmount = r.unmount;
  await frame(r, (f) => f.includes(last) && f.includes("● live"));
  return r;
}

test("j and Enter in one read open the transfer j moved to", async () => {
  const r = await openTransfers(withTransfers(new Stub()), "cccccccc");
  r.stdin.write("j" + KEY.enter);
  await until(() => stub.requests("GET", `/api/v2/transfers/${T2}`).length > 0);
  await frame(r, (f) => f.includes(T2));
  expect(stub.requests("GET", `/api/v2/transfers/${T1}`)).toHaveLength(0);
});

test("j j Down in one read move three rows, in order", async () => {
  const four = withTransfers(new Stub()).on("GET", "/api/v2/transfers", () =>
    list([T1, T2, T3, "trf_01dddddddddddddddddddddddd"].map((id) => transferItem(id)), { total: 4 }),
  );
  const r = await openTransfers(four, "dddddddd");
  r.stdin.write("jj" + KEY.down);
  const f = await frame(r, (f) => f.split("\n").some((l) => l.startsWith("›") && l.includes("dddddddd")));
  expect(f.split("\n").filter((l) => l.startsWith("›"))).toHaveLength(1);
});

test("/ and a word in one read filter by the whole word; Enter in the same read keeps it", async () => {
  const r = await openTransfers(withTransfers(new Stub()), "cccccccc");
  r.stdin.write("/bbbb" + KEY.enter);
  const f = await frame(r, (f) => f.includes('filter "bbbb"'));
  expect(f).toContain("bbbbbbbb");
  expect(f).not.toContain("aaaaaaaa");
  expect(f).not.toContain("cccccccc");
});
