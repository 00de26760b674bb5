// The sandbox provider_a's outgoing events: Standard Webhooks signed with the `standardwebhooks` package (an
// independent signer: Caravan verifies with its own code), sent at least once: a 5xx or no answer is retried, a 4xx
// is not; duplicates and redeliveries of older messages on demand.
import { Webhook } from "standardwebhooks";

export interface Delivery {
  messageId: string;
  message: string;
  txId: string;
  status: number | null;
  attempt: number;
  at: number;
}

export interface Endpoint {
  url: string;
  secret: string;
  did: string;
}

export interface SentMessage {
  id: string;
  message: string;
  txId: string;
  body: string;
  endpoint: Endpoint;
}

export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  readonly sent: SentMessage[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private stopped = false;
  /** Each message delivered twice (at-least-once semantics made visible). */
  duplicates = false;
  /** Retries of a 5xx or unanswered delivery, 300 ms apart. */
  retries = 3;
  paused = false;

  constructor(private readonly now: () => number) {}

  /** Builds, signs and sends one message; resolves with the last status (null: no answer). */
  send(endpoint: Endpoint, message: string, txId: string, extra: Record<string, unknown> = {}, opts: { timestampMs?: number; secret?: string } = {}): Promise<number | null> {
    const m: SentMessage = {
      id: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
      message,
      txId,
      // Notabene's envelope: the event in `message`, the transfer ID and the receiving entity in `payload` (with the
      // event's own fields beside them), version 1.0.0.
      body: JSON.stringify({ message, payload: { for: endpoint.did, id: txId, ...extra }, version: "1.0.0" }),
      endpoint,
    };
    this.sent.push(m);
    if (this.paused) return Promise.resolve(null);
    const p = this.deliver(m, opts);
    if (this.duplicates) void this.track(this.deliver(m, opts));
    return this.track(p);
  }

  /** Sends an earlier message again, as the provider does (same ID and body, a fresh timestamp and signature). */
  redeliver(messageId: string, opts: { timestampMs?: number } = {}): Promise<number | null> {
    const m = this.sent.find((x) => x.id === messageId);
    if (!m) throw new Error(`no message ${messageId}`);
    return this.track(this.deliver(m, opts));
  }

  /** Sends what was queued while paused, newest first (out of order). */
  flushReversed(): Promise<(number | null)[]> {
    this.paused = false;
    const undelivered = this.sent.filter((m) => !this.deliveries.some((d) => d.messageId === m.id));
    return Promise.all(undelivered.reverse().map((m) => this.track(this.deliver(m, {}))));
  }

  /** Headers and body of a message as the provider signs them (for tests that post it themselves). */
  signed(endpoint: Endpoint, id: string, body: string, timestampMs: number, secret = endpoint.secret): Record<string, string> {
    const signature = new Webhook(secret).sign(id, new Date(timestampMs), body);
    return { "content-type": "application/json", "svix-id": id, "svix-timestamp": String(Math.floor(timestampMs / 1000)), "svix-signature": signature };
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }

  private async deliver(m: SentMessage, opts: { timestampMs?: number; secret?: string }): Promise<number | null> {
    let status: number | null = null;
    for (let attempt = 1; attempt <= 1 + this.retries && !this.stopped; attempt++) {
      const headers = this.signed(m.endpoint, m.id, m.body, opts.timestampMs ?? this.now(), opts.secret);
      try {
        const res = await fetch(m.endpoint.url, { method: "POST", headers, body: m.body });
        await res.text();
        status = res.status;
      } catch {
        status = null;
      }
      this.deliveries.push({ messageId: m.id, message: m.message, txId: m.txId, status, attempt, at: this.now() });
      if (status !== null && status < 500) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    return status;
  }

  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  stop(): void {
    this.stopped = true;
  }
}
