// The console's key map: one place that names every key, read by the screens and by the `?` help.

export interface KeyLike {
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  return?: boolean;
  escape?: boolean;
  tab?: boolean;
  shift?: boolean;
  ctrl?: boolean;
  home?: boolean;
  end?: boolean;
}

export type Nav = "up" | "down" | "top" | "bottom" | "pageUp" | "pageDown" | "open" | "back";

/** j/k and arrows, g/G (and Home/End), PgUp/PgDn and ctrl-u/ctrl-d, Enter, Esc (and h/left to go back). */
export function navOf(input: string, key: KeyLike): Nav | null {
  if (key.upArrow || (input === "k" && !key.ctrl)) return "up";
  if (key.downArrow || (input === "j" && !key.ctrl)) return "down";
  if (key.home || input === "g") return "top";
  if (key.end || input === "G") return "bottom";
  if (key.pageUp || (key.ctrl && input === "u")) return "pageUp";
  if (key.pageDown || (key.ctrl && input === "d") || input === " ") return "pageDown";
  // A terminal not (yet) in raw mode sends Enter as "\n", which Ink does not name `return`.
  if (key.return || input === "\n" || input === "l") return "open";
  if (key.escape || input === "h") return "back";
  return null;
}

/** Moves a selection within `count` rows; `page` rows per page. */
export function moveSelection(index: number, nav: Nav, count: number, page: number): number {
  if (count === 0) return 0;
  const last = count - 1;
  switch (nav) {
    case "up":
      return Math.max(0, index - 1);
    case "down":
      return Math.min(last, index + 1);
    case "top":
      return 0;
    case "bottom":
      return last;
    case "pageUp":
      return Math.max(0, index - Math.max(1, page));
    case "pageDown":
      return Math.min(last, index + Math.max(1, page));
    default:
      return Math.min(index, last);
  }
}

export const SCREENS = [
  { id: "overview", title: "Overview", short: "Over" },
  { id: "transfers", title: "Held transfers", short: "Held" },
  { id: "cases", title: "Cases", short: "Case" },
  { id: "deliveries", title: "Deliveries", short: "Deliv" },
  { id: "reports", title: "Reports" },
  { id: "filing", title: "Filing", short: "File" },
  { id: "customers", title: "Customers", short: "Cust" },
  { id: "audit", title: "Audit", short: "Aud" },
  { id: "rules", title: "Rules", short: "Rule" },
] as const;
/** Screens opened by a `:` command only (no tab: the tab bar stays within 80 columns). */
export const COMMAND_SCREENS = [
  { id: "team", title: "Keys & members" },
  { id: "dead-letters", title: "Dead letters" },
] as const;
export type ScreenId = (typeof SCREENS)[number]["id"] | (typeof COMMAND_SCREENS)[number]["id"];
export const screenTitle = (id: ScreenId): string => [...SCREENS, ...COMMAND_SCREENS].find((s) => s.id === id)!.title;

export const GLOBAL_KEYS: [string, string][] = [
  ["1-9, Tab, S-Tab", "switch screen (state kept)"],
  ["j/k, ↑/↓", "move (stays on its item)"],
  ["g/G", "first / last"],
  ["PgUp/PgDn, ^u/^d", "page"],
  ["Enter / Esc", "open detail / back"],
  ["/", "filter as you type"],
  ["< > ~", "sort column, reverse"],
  ["y", "yank the ID (OSC 52)"],
  [":", "command line (Tab lists)"],
  ["R", "reload now"],
  ["?", "this key map"],
  ["q, ^c", "quit"],
];

export const SCREEN_KEYS: Record<ScreenId, [string, string][]> = {
  overview: [["Enter", "open the selected count's screen"]],
  transfers: [
    ["f", "state: held / failed / all"],
    ["a", "approve (through an open case)"],
    ["x", "reject (through an open case)"],
    ["r", "retry: reason, confirm"],
    ["t", "report the tx hash"],
    ["J", "raw check answers (JSON)"],
    ["c", "open the linked case"],
    ["H", "open the case the history names last"],
    [":search", "ask the server (ID, address…)"],
  ],
  cases: [
    ["v", "view: mine / open / all"],
    ["n", "add a note"],
    ["s", "assign: me, member ID, nobody"],
    ["o", "resolve: approve / reject"],
    ["J", "raw check answers (JSON)"],
    [":search", "case number, text (pii:view)"],
  ],
  deliveries: [
    ["Enter", "deliveries; a delivery's attempts"],
    ["f", "deliveries: failed / all"],
    ["o", "open the transfer or case a delivery concerns (Enter in its attempts)"],
    ["r", "retry a failed delivery"],
  ],
  reports: [
    ["f", "open (not filed) / drafts / all"],
    ["d", "download the PDF to a path"],
    ["x", "export goAML XML (an FIU that takes it)"],
    ["c", "in a report: risk indicators' codes beside their sentences"],
  ],
  filing: [
    ["Enter", "a report with what filing still needs"],
    ["e", "edit a regulatory field or the jurisdiction"],
    ["n", "write the narrative (several lines; Ctrl-S saves)"],
    ["s / a", "submit for review / approve (a second officer)"],
    ["F", "file with the FIU's reference (only when nothing is missing)"],
    ["D", "draft a report by hand for a transfer"],
    ["c", "in a report: risk indicators' codes beside their sentences"],
  ],
  customers: [
    ["Enter", "identity status, wallets, transfers, cases"],
    ["/", "filter as you type (name, external ID, ID)"],
    [":search", "ask the server (name, external ID)"],
  ],
  audit: [
    ["m", "older entries (the next page; also moving past the last)"],
    ["f", "entity type (asks the server)"],
    [":member <ID>|me|all", "one member's actions (asks the server)"],
    ["/", "filter as you type (action, actor, ID)"],
    ["Enter", "one entry with its detail"],
  ],
  rules: [
    ["Enter", "a rule with its conditions in words"],
    ["p", "promote the selected test rule to live (a member's live sign-in)"],
  ],
  team: [
    ["m", "keys / members"],
    [":key test|live [email] [scopes] [expires 90d]", "create a key (shown once)"],
    [":revoke <key ID>", "revoke a key"],
    [":invite <email> <role>", "invite a member (setup code shown once)"],
    [":role <email> <role>", "change a member's role"],
    [":deactivate / :activate <email>", "deactivate or reactivate a member"],
    [":signout", "end this session and quit"],
  ],
  "dead-letters": [
    ["Enter", "one dead letter: actor, attempts, last error, when"],
    ["r", "replay it (confirm; a signed-in owner)"],
    ["y", "yank its ID"],
  ],
};
