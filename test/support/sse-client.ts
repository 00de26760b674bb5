// A live-stream client for tests that keep a stream open (GET /api/v2/events/stream): parses messages (data as JSON)
// and comments as they arrive, waits for a condition over what arrived, and closes when told (./sse.ts reads and closes).
export interface StreamMessage {
  id: string;
  event: string;
  data: any;
}

/** An SSE client over fetch: parses messages and comments as they arrive. */
export class SseStream {
  messages: StreamMessage[] = [];
  comments: string[] = [];
  ended = false;
  private buf = "";
  private waiters: (() => void)[] = [];
  private constructor(
    readonly res: Response,
    private readonly abort: AbortController,
  ) {
    void this.read();
  }

  /** Opens the stream of `base` (the server's URL) with the API key `key.key`; throws unless it answers 200. */
  static async open(base: string, key: { key: string }, o: { lastEventId?: string; query?: string } = {}): Promise<SseStream> {
    const abort = new AbortController();
    const headers: Record<string, string> = { "x-api-key": key.key, accept: "text/event-stream" };
    if (o.lastEventId !== undefined) headers["last-event-id"] = o.lastEventId;
    const res = await fetch(`${base}/api/v2/events/stream${o.query ? `?${o.query}` : ""}`, { headers, signal: abort.signal });
    if (res.status !== 200) throw new Error(`stream refused: ${res.status} ${await res.text()}`);
    return new SseStream(res, abort);
  }

  private async read() {
    const dec = new TextDecoder();
    try {
      for await (const chunk of this.res.body as ReadableStream<Uint8Array>) {
        this.buf += dec.decode(chunk, { stream: true });
        // One pass over the chunk (no copy of the rest per message: a page of 200 events is one chunk).
        let from = 0;
        let i: number;
        while ((i = this.buf.indexOf("\n\n", from)) >= 0) {
          const block = this.buf.slice(from, i);
          from = i + 2;
          const m: Partial<StreamMessage> = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) this.comments.push(line.slice(1).trim());
            else if (line.startsWith("id: ")) m.id = line.slice(4);
            else if (line.startsWith("event: ")) m.event = line.slice(7);
            else if (line.startsWith("data: ")) m.data = JSON.parse(line.slice(6));
          }
          if (m.id !== undefined) this.messages.push(m as StreamMessage);
        }
        this.buf = this.buf.slice(from);
        this.notify();
      }
    } catch {
      // aborted
    }
    this.ended = true;
    this.notify();
  }

  private notify() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits (hang guard only) until `cond` holds over what arrived. */
  async until(cond: (s: SseStream) => boolean): Promise<void> {
    while (!cond(this)) {
      if (this.ended) throw new Error(`stream ended; got ${this.messages.length} messages`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  close() {
    this.abort.abort();
  }
}
