// A webhook receiver: checks each delivery's signature over the raw body, skips a delivery ID it has processed,
// and prints the delivery ID, the event and the ID it is about. Run: WEBHOOK_SECRET=… bun docs/examples/webhook-receiver.ts
import { verifyWebhookSignature } from "../../src/adapters/webhooks/verify.ts";

const port = Number(process.env.RECEIVER_PORT ?? 4000);
const processed = new Set<string>();

Bun.serve({
  hostname: "127.0.0.1",
  port,
  async fetch(req) {
    if (req.method !== "POST") return new Response("webhook receiver: deliveries are POSTed to /hooks\n");
    const body = await req.text(); // the raw body, exactly as received: verify before parsing
    const v = verifyWebhookSignature({ header: req.headers.get("x-webhook-signature"), body, secret: process.env.WEBHOOK_SECRET ?? "" });
    if (!v.ok) return new Response(v.reason, { status: 401 }); // malformed, unsupported_alg, too_old, in_future, mismatch
    // At least once: a delivery ID already processed is answered again and not processed twice.
    const deliveryId = req.headers.get("x-webhook-delivery-id") ?? "";
    if (processed.has(deliveryId)) return new Response(null, { status: 204 });
    processed.add(deliveryId);
    const { event, data } = JSON.parse(body) as { event: string; data: { id?: string; webhookId?: string } };
    // test.ping carries the subscription's ID (data.webhookId); transfer and case events the record's ID (data.id).
    console.log(deliveryId, event, event === "test.ping" ? data.webhookId : data.id);
    return new Response(null, { status: 204 });
  },
});
console.log(`webhook receiver on http://127.0.0.1:${port}/hooks`);
