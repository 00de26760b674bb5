// What each role sees: the console offers only what the key's scopes and the member's role allow, and names the true
// reason for the rest. The roles table (docs/api.md "Roles") decides: a developer holds transfers:update, so it may
// retry a held transfer (which screens it again: a retry never bypasses screening), but not resolve its case.
import { test, expect } from "bun:test";
import { actionRefusal, transferActions } from "../../src/console/screens/Transfers.tsx";
import { whyNot } from "../../src/console/access.ts";
import { ME_ANALYST, ME_OWNER } from "./stub.ts";

const ME_DEVELOPER = {
  ...ME_OWNER,
  member: { id: "mem_dev", email: "dev@example.com", role: "developer" },
  key: { id: "key_dev", scopes: ["transfers:read", "transfers:write", "cases:read", "cases:write"] },
  permissions: ["transfers:view", "transfers:update", "cases:view"],
};
const held = { state: "held", status: "pending", direction: "outgoing" } as const;

test("a developer may retry a held transfer (transfers:update) but not approve or reject it through its case", () => {
  const all = transferActions(held, { caseNumber: "CASE-1" }, ME_DEVELOPER as never);
  const offered = all.filter((a) => actionRefusal(ME_DEVELOPER as never, a) === null).map((a) => a.key);
  expect(offered).toEqual(["r"]);
  expect(actionRefusal(ME_DEVELOPER as never, all.find((a) => a.key === "a")!)).toBe("the role developer lacks cases:resolve (the key's scope allows it)");
});

test("an analyst is offered nothing on a held transfer; the reason names the role, not the key", () => {
  const all = transferActions(held, { caseNumber: "CASE-1" }, ME_ANALYST as never);
  expect(all.filter((a) => actionRefusal(ME_ANALYST as never, a) === null)).toEqual([]);
  expect(actionRefusal(ME_ANALYST as never, all.find((a) => a.key === "r")!)).toBe("the role analyst lacks transfers:update (the key's scope allows it)");
});

test("whyNot names the key, the role, or both", () => {
  const me = { ...ME_OWNER, key: { id: "k", scopes: [] } };
  expect(whyNot(me as never, "strs:write", "strs:update")).toBe("the key lacks strs:write and the role compliance_officer lacks strs:update");
  expect(whyNot(ME_OWNER as never, "transfers:write", "transfers:update")).toBeNull();
  expect(whyNot(null, "x:write", "x:update")).toBeNull();
});
