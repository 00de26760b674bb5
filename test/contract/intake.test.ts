// The callback intake every provider's callbacks pass: the path's environment first, then each named step in the
// provider's order, the first refusal answering; an unexpected failure is logged and answered in the provider's
// format without its cause.
import { describe, expect, test } from "bun:test";
import type { Services } from "../../src/services.ts";
import { intakeOrder, runIntake, type Intake, type IntakeBase } from "../../src/http/callbacks/intake.ts";

const logged: { msg: string; data: Record<string, unknown> }[] = [];
const services = { log: (_level: string, msg: string, data: Record<string, unknown>) => logged.push({ msg, data }) } as unknown as Services;

interface C extends IntakeBase {
  ran: string[];
}

function intake(refuseAt: string | null, throwAt: string | null = null): Intake<C> {
  const step = (name: string) => (c: C) => {
    c.ran.push(name);
    if (name === throwAt) throw new Error("secret cause");
    return name === refuseAt ? new Response(`refused at ${name}`, { status: 401 }) : null;
  };
  return {
    provider: "provider_x",
    failed: () => new Response("processing failed", { status: 503 }),
    steps: [
      ["size", step("size")],
      ["signature", step("signature")],
      ["budget", step("budget")],
      ["actor", (c) => (c.ran.push("actor"), new Response("done"))],
    ],
  };
}

const run = (i: Intake<C>, environment = "test") => {
  const ran: string[] = [];
  return runIntake(services, i, new Request("http://127.0.0.1/cb", { method: "POST" }), { environment }, (b) => ({ ...b, ran })).then(async (r) => ({ status: r.status, text: await r.text(), ran }));
};

describe("callback intake", () => {
  test("steps run in the declared order and the last one answers", async () => {
    expect(intakeOrder(intake(null))).toEqual(["size", "signature", "budget", "actor"]);
    expect(await run(intake(null))).toEqual({ status: 200, text: "done", ran: ["size", "signature", "budget", "actor"] });
  });

  test("the first refusal answers and no later step runs (a bad signature is never charged to the budget)", async () => {
    expect(await run(intake("signature"))).toEqual({ status: 401, text: "refused at signature", ran: ["size", "signature"] });
  });

  test("an environment other than test or live is 404 NOT_FOUND before any step", async () => {
    const r = await run(intake(null), "staging");
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text)).toEqual({ error: "Not found", code: "NOT_FOUND" });
    expect(r.ran).toEqual([]);
  });

  test("an unexpected failure is logged and answered in the provider's format, saying nothing of the cause", async () => {
    logged.length = 0;
    const r = await run(intake(null, "budget"));
    expect(r).toEqual({ status: 503, text: "processing failed", ran: ["size", "signature", "budget"] });
    expect(logged[0]?.msg).toBe("provider_x callback failed");
    expect(String(logged[0]?.data.error)).toContain("secret cause");
  });
});
