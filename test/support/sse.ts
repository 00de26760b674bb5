// A test's reader of GET /api/v2/events/stream over real HTTP: opens the stream, splits what arrives into messages
// (blocks ended by a blank line), and closes the connection once the messages read so far satisfy the test.
export interface SseMessage {
  /** The message's `id:`, `event:` and `data:` lines (the first of each), unparsed; absent where the block has none. */
  id?: string;
  event?: string;
  data?: string;
}

/** Opens the stream (refusing anything but 200) and reads messages until `done` holds over them; then closes it. */
export async function readEventStream(url: string, headers: Record<string, string>, done: (read: SseMessage[]) => boolean): Promise<SseMessage[]> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
  const out: SseMessage[] = [];
  const dec = new TextDecoder();
  let buf = "";
  try {
    for await (const chunk of res.body as ReadableStream<Uint8Array>) {
      buf += dec.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        out.push({ id: /^id: (.*)$/m.exec(block)?.[1], event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] });
      }
      if (done(out)) break;
    }
  } finally {
    abort.abort();
  }
  return out;
}
