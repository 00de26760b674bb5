// TransferActor (`transfer:<id>`): the only writer of a transfer after its creation: state, verdict, sides' status,
// rejection, checks, cascade attempts, messages, history. One message is handled by one of its jobs: PATCH actions
// (actions.ts), routing (routing.ts), checkpoints and holds (holds.ts), inbound provider events (provider-events.ts),
// all changing the transfer through handling.ts; providers plug their own flows in through src/actors/transfer-flow.ts.
import type { ActorKind } from "../types.ts";
import { refuse } from "../outcome.ts";
import type { TransferMsg } from "./commands.ts";
import { TransferHandling, type TransferActorState, type TransferDeps } from "./handling.ts";
import { action } from "./actions.ts";
import { expire, route, start } from "./routing.ts";
import { caseResolved } from "./holds.ts";
import { flowContextOf, inboundCancel, inboundTxid, providerEvent } from "./provider-events.ts";

export type { TransferMsg, TransferCommand, TransferAction } from "./commands.ts";
export type { TransferActorState, TransferDeps, TransferRepositories } from "./handling.ts";

export function transferActor(deps: TransferDeps): ActorKind<TransferActorState, TransferMsg> {
  return {
    kind: "transfer",
    initialState: () => ({}),
    async handle(ctx, msg) {
      const t = await deps.repositories.transfers.get(msg.companyId, msg.environment, ctx.id);
      if (!t) return ctx.reply(refuse("TRANSFER_NOT_FOUND", "Transfer not found", { resource: "Transfer", id: ctx.id }));
      const h = new TransferHandling(ctx, msg, t, deps, flowContextOf);
      switch (msg.type) {
        case "start":
          return ctx.reply(await start(h));
        case "discover":
          return ctx.reply(await route(h));
        case "action":
          return ctx.reply(await action(h, msg.act, msg.seen, msg.key));
        case "expire":
          return ctx.reply(await expire(h));
        case "inboundTxid":
          return ctx.reply(inboundTxid(h, { txid: msg.txid, vout: msg.vout }));
        case "inboundCancel":
          return ctx.reply(inboundCancel(h, msg.reasonType));
        case "caseResolved":
          return ctx.reply(await caseResolved(h, msg.caseId, msg.resolution, msg.act, msg.approveUnscreened === true));
        case "providerEvent":
          return ctx.reply(await providerEvent(h, msg.provider, msg.event));
        default: {
          const _exhaustive: never = msg;
          throw new Error(`unknown transfer message ${JSON.stringify(_exhaustive)}`);
        }
      }
    },
  };
}
