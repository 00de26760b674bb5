// The CLI's one way to ask an actor kind, for commands that change what an actor owns (today: cases). The CLI runs
// no actor runtime (a second runtime on the database would pick up the server's mailbox), so it hands one message to
// the same actor kind the server registers and commits the handler's effects the way the runtime does: its writes,
// the messages it sends (as mailbox rows the running server picks up) and its events, in one IMMEDIATE transaction,
// all or nothing. Only kinds whose handler is synchronous and whose state lives in their own tables can be asked
// this way; a handler that checkpoints (it is about to call out) belongs to the server.
import type { Storage } from "../adapters/storage/index.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import { createMailbox } from "../adapters/storage/repos/mailbox.ts";
import type { ActorContext, ActorEvent, ActorKind } from "../actors/types.ts";
import { iso, newId } from "../domain/ids.ts";

export interface LocalAskDeps {
  readonly storage: Storage;
  readonly clock: () => number;
  /** Seals a message body for its mailbox row, as the server's runtime does (the mailbox subkey of the master key). */
  readonly mailSealer: Sealer;
}

/** Runs one message through `kind`'s handler at `address` and commits its effects; answers what the handler replied. */
export function askLocally<R, S, M>(deps: LocalAskDeps, kind: ActorKind<S, M>, address: string, msg: M): R {
  const i = address.indexOf(":");
  if (i <= 0 || address.slice(0, i) !== kind.kind) throw new Error(`${address} is not an address of the ${kind.kind} actor kind`);
  const id = address.slice(i + 1);
  const { storage } = deps;
  const now = deps.clock();
  return storage.tx(() => {
    const writes: ((s: Storage) => void)[] = [];
    const events: ActorEvent[] = [];
    const mail: { to: string; body: string }[] = [];
    let replied = false;
    let reply: unknown;
    const ctx: ActorContext<S> = {
      address,
      id,
      messageId: 0,
      now,
      state: kind.initialState(id),
      storage,
      tell: (to, body) => void mail.push({ to, body: deps.mailSealer.seal(JSON.stringify(body), to) }),
      emit: (e) => void events.push(e),
      write: (fn) => void writes.push(fn),
      reply: (value) => {
        replied = true;
        reply = value;
      },
      checkpoint: () => Promise.reject(new Error(`${kind.kind}: a handler that checkpoints runs in the server, not the CLI`)),
      checkpoints: 0,
    };
    const result = kind.handle(ctx, msg);
    if (result && typeof (result as Promise<void>).then === "function") throw new Error(`${kind.kind}: an asynchronous handler runs in the server, not the CLI`);
    if (!replied) throw new Error(`${kind.kind}: the handler gave no answer`);
    const mailbox = createMailbox(storage);
    for (const w of writes) w(storage);
    for (const o of mail) mailbox.insert(o.to, o.body, now, null, now);
    for (const e of events) mailbox.insertEvent(newId("evt", now), e, iso(now));
    return reply as R;
  });
}
