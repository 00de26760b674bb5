// The live event stream (SSE) and webhooks carry the same body: `{ event, timestamp, data }`.
import { Type, type Static } from "@sinclair/typebox";
import { Iso } from "./common.ts";
import { EVENT_TYPES } from "./webhooks.ts";

export { EVENT_TYPES };
/** One event's JSON (the SSE `data:` line, a webhook's body); `data` is the resource's event payload. */
export const EventBody = Type.Object({ event: Type.String(), timestamp: Iso, data: Type.Record(Type.String(), Type.Unknown()) });
export type EventBody = Static<typeof EventBody>;
/** The topic of an event type (`transfer.held` → `transfer`): the console reloads the screens that read it. */
export const topicOf = (type: string): string => type.split(".")[0] ?? type;
