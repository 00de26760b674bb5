// /api/v2/cases: list, create, detail, change, notes, history, resolve (Part 2 "Cases"); every change through `case:<id>`.
import { apiError, type ErrorCode } from "../domain/errors.ts";
import { CASE_LIMITS, CASE_PRIORITIES, CASE_STATUSES, CASE_TYPES, caseNumberSearch, validateCreateCase, validateNote, validatePatchCase, validateResolve } from "../domain/cases.ts";
import { blindGrams, normalizeForSearch } from "../domain/blind-index.ts";
import { caseAddress, descriptionAad, newCaseId, titleAad, type CaseCommand } from "../actors/case.ts";
import { CasePresenter, type CaseViewer } from "../actors/case-presenter.ts";
import type { Outcome } from "../actors/outcome.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import type { Sealer } from "../adapters/crypto/envelope.ts";
import type { CaseFilter, CaseHistoryEntry, CaseNote, CaseRecord, CaseRepository } from "../ports/cases.ts";
import type { AuthContext, ScopedAccess } from "./auth.ts";
import { checked, created, page, type ApiKit, type Reply, type RouteContext } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import { q, type QueryParam } from "./query.ts";
import { askActor } from "./outcome.ts";
import { Type } from "@sinclair/typebox";
import * as api from "../api/cases.ts";

export interface CaseRouteDeps {
  repositories: { cases: CaseRepository };
  runtime: ActorRuntime;
  pii: Sealer;
  cursorKey: Uint8Array;
  nameIndexKey: Uint8Array;
}

const ID = /^cas_[0-9a-z]{26}$/;
const MEMBER_ID = /^mem_[0-9a-z]{26}$/;
const read = { scope: "cases:read", permission: "cases:view" } as const;
/** Field-level permissions (cases:assign, cases:update) are checked per field in the handler. */
const write = { scope: "cases:write", permission: "cases:view" } as const;
/** PATCH: what it needs beyond cases:view depends on the fields sent. */
const patchAccess: ScopedAccess = {
  ...write,
  conditional: [
    { permission: "cases:assign", when: "the body has assigneeId" },
    { permission: "cases:update", when: "the body has any other field" },
  ],
};
const TEXT_CANDIDATES = 50_000;
/** Link refusals on a case are 422 (Part 2, Errors), as is VALIDATION_ERROR. */
const UNPROCESSABLE: ReadonlySet<ErrorCode> = new Set(["VALIDATION_ERROR", "TRANSFER_NOT_FOUND", "RULE_NOT_FOUND", "INVALID_ASSIGNEE"]);

function notFound(id: string): never {
  throw apiError("CASE_NOT_FOUND", { details: { resource: "Case", id } });
}

function need(auth: AuthContext, permission: "cases:assign" | "cases:update" | "cases:create" | "cases:resolve"): void {
  if (!auth.can(permission))
    throw apiError("INSUFFICIENT_PERMISSION", { message: `The role ${auth.member.role} lacks the permission ${permission}`, details: { permission } });
}

export function viewerOf(auth: AuthContext): CaseViewer {
  return {
    piiView: auth.piiView,
    transfersRead: auth.key.scopes.has("transfers:read") && auth.can("transfers:view"),
    strsRead: auth.key.scopes.has("reports:read") && auth.key.scopes.has("strs:read") && auth.can("reports:view") && auth.can("strs:view"),
  };
}

/** `assigneeId`: a member ID, or `me` for the key's owner. */
const assigneeParam: QueryParam<string> = {
  schema: Type.String({ description: "member ID or me" }),
  parse: (raw) => (raw === "me" || MEMBER_ID.test(raw) ? { value: raw } : { error: "must be a member ID or me" }),
};

export function caseRoutes(kit: ApiKit, deps: CaseRouteDeps) {
  const repo = deps.repositories.cases;
  const presenter = new CasePresenter(deps.repositories.cases, deps.pii);

  async function ask(c: RouteContext, id: string, msg: CaseCommand): Promise<Record<string, unknown>> {
    const outcome: Outcome<Record<string, unknown>> = await askActor(deps.runtime, caseAddress(id), {
      ...msg,
      companyId: c.auth.company.id,
      environment: c.auth.environment,
      actor: c.auth.actor,
    });
    if (outcome.ok) return outcome.data;
    throw apiError(outcome.code, { message: outcome.message, details: outcome.details, status: UNPROCESSABLE.has(outcome.code) ? 422 : undefined });
  }

  async function existing(c: RouteContext): Promise<CaseRecord> {
    const id = c.params.id;
    if (!ID.test(id)) notFound(id);
    return (await repo.get(c.auth.company.id, c.auth.environment, id)) ?? notFound(id);
  }

  /** The case in detail, or the receipt `{id, caseNumber, status}` for a key without cases:read (Part 2). */
  async function answer(c: RouteContext, row: CaseRecord, status: number, meta?: Record<string, unknown>): Promise<Reply> {
    if (!c.auth.key.scopes.has("cases:read")) return { status, data: { id: row.id, caseNumber: row.caseNumber, status: row.status }, meta };
    return { status, data: await presenter.detail(c.auth.company.id, c.auth.environment, row, viewerOf(c.auth)), meta };
  }

  /** The case as the command answered it (the record it committed), in detail or as the receipt: not read again. */
  const answerCommitted = (c: RouteContext, data: Record<string, unknown>, status: number, meta?: Record<string, unknown>): Promise<Reply> =>
    answer(c, data.case as CaseRecord, status, meta);

  /**
   * Cases whose title or description holds `search`: blind-index candidates, confirmed on the opened text.
   * A search with nothing left once folded (only spaces) matches no text, as customer names (the case number may still).
   */
  async function textMatches(companyId: string, env: "test" | "live", search: string): Promise<string[]> {
    const needle = normalizeForSearch(search);
    if (needle === "") return [];
    const holds = (text: string) => normalizeForSearch(text).includes(needle);
    const grams = blindGrams(deps.nameIndexKey, search);
    // Under three characters there is no trigram: the environment's titles and descriptions are opened and scanned.
    const rows = await repo.sealedTexts(companyId, env, grams.length === 0 ? "all" : await repo.withAllGrams(companyId, env, grams, TEXT_CANDIDATES));
    return rows
      .filter((r) => holds(deps.pii.open(r.titleSealed, titleAad(r.id))) || (r.descriptionSealed !== null && holds(deps.pii.open(r.descriptionSealed, descriptionAad(r.id)))))
      .map((r) => r.id);
  }

  /** Notes and history page newest first by `seq`: the cursor holds the last seq handed out. */
  function beforeSeq(after: (string | number)[] | null): number | null {
    if (after === null) return null;
    if (typeof after[0] !== "number") throw apiError("INVALID_CURSOR");
    return after[0];
  }

  return kit.group("/api/v2/cases", (r) =>
    r
      .get(
        "/",
        {
          summary: "List cases, newest first",
          access: read,
          pii: true,
          tags: ["cases"],
          query: {
            status: q.enumOf(CASE_STATUSES),
            priority: q.enumOf(CASE_PRIORITIES),
            type: q.enumOf(CASE_TYPES),
            assigneeId: assigneeParam,
            search: q.string(CASE_LIMITS.search),
            hasTransfer: q.bool(),
            limit: q.limit(200),
            cursor: q.cursor(),
          },
        },
        async (c) => {
          const { company, environment, piiView, member } = c.auth;
          const s = c.query.search;
          const filter: CaseFilter = {
            status: c.query.status,
            priority: c.query.priority,
            type: c.query.type,
            assigneeId: c.query.assigneeId === "me" ? member.id : c.query.assigneeId,
            hasTransfer: c.query.hasTransfer,
            // Part 2: the case number for everyone; title and description too with pii:view.
            search: s === undefined ? undefined : { seq: caseNumberSearch(s), ids: piiView ? await textMatches(company.id, environment, s) : [] },
          };
          const res = await keysetPageAsync<CaseRecord>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `cases|${JSON.stringify([filter.status, filter.priority, filter.type, filter.assigneeId, filter.hasTransfer, s ?? null, piiView])}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.page(company.id, environment, filter, after as [string, string] | null, n),
            position: (row) => [row.createdAt, row.id],
            total: () => repo.count(company.id, environment, filter),
          });
          return page(await presenter.items(company.id, res.rows, viewerOf(c.auth)), res.meta);
        },
      )
      .post("/", { summary: "Open a case", access: { scope: "cases:write", permission: "cases:create", conditional: [{ permission: "cases:assign", when: "the body names an assigneeId" }] }, body: api.CreateCase, read: checked(validateCreateCase), pii: true, tags: ["cases"] }, async (c) => {
        if (c.body.assigneeId !== null) need(c.auth, "cases:assign");
        const id = newCaseId(c.now);
        return answerCommitted(c, await ask(c, id, { type: "create", input: c.body, source: "api" }), 201);
      })
      .get("/:id", { summary: "A case with its 20 latest notes and history entries", access: read, pii: true, tags: ["cases"] }, async (c) => answer(c, await existing(c), 200))
      .patch("/:id", { summary: "Change a case (cases:assign for assigneeId, cases:update for the rest)", access: patchAccess, body: api.PatchCase, read: checked(validatePatchCase), pii: true, tags: ["cases"] }, async (c) => {
        if (c.body.assigneeId !== undefined) need(c.auth, "cases:assign");
        if (Object.keys(c.body).some((k) => k !== "assigneeId")) need(c.auth, "cases:update");
        const id = (await existing(c)).id;
        return answerCommitted(c, await ask(c, id, { type: "update", patch: c.body }), 200);
      })
      .get(
        "/:id/notes",
        { summary: "A case's notes, newest first", access: read, pii: true, tags: ["cases"], query: { limit: q.limit(200), cursor: q.cursor() } },
        async (c) => {
          const row = await existing(c);
          const res = await keysetPageAsync<CaseNote>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `case-notes|${row.id}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.notes(row.id, beforeSeq(after), n),
            position: (note) => [note.seq],
            total: async () => row.noteCount,
          });
          return page(await presenter.notes(c.auth.company.id, res.rows, viewerOf(c.auth)), res.meta);
        },
      )
      .post("/:id/notes", { summary: "Add a note (also on a closed case; sends no event)", access: { scope: "cases:write", permission: "cases:update" }, body: api.AddNote, read: checked(validateNote), pii: true, tags: ["cases"] }, async (c) => {
        const id = (await existing(c)).id;
        const data = await ask(c, id, { type: "addNote", content: c.body.content });
        // The note as the command wrote it: not read again.
        return created((await presenter.notes(c.auth.company.id, [data.note as Omit<CaseNote, "seq">], viewerOf(c.auth)))[0]);
      })
      .get(
        "/:id/history",
        { summary: "A case's history, newest first", access: read, pii: true, tags: ["cases"], query: { limit: q.limit(200), cursor: q.cursor() } },
        async (c) => {
          const row = await existing(c);
          const v = viewerOf(c.auth);
          const res = await keysetPageAsync<CaseHistoryEntry>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `case-history|${row.id}|${v.strsRead}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.history(row.id, beforeSeq(after), n, v.strsRead),
            position: (entry) => [entry.seq],
            total: () => repo.historyCount(row.id, v.strsRead),
          });
          return page(await presenter.entries(c.auth.company.id, res.rows, v), res.meta);
        },
      )
      .post("/:id/resolve", { summary: "Resolve a case (approved or rejected); acts on its first linked held transfer", access: { scope: "cases:write", permission: "cases:resolve" }, body: api.ResolveCase, read: checked(validateResolve), pii: true, tags: ["cases"] }, async (c) => {
        const id = (await existing(c)).id;
        const { auth } = c;
        const data = await ask(c, id, {
          type: "resolve",
          ...c.body,
          mayWriteTransfers: auth.key.scopes.has("transfers:write") && auth.can("transfers:update"),
          mayWriteStrs: auth.key.scopes.has("strs:write") && auth.can("strs:update"),
        });
        return answerCommitted(c, data, 200, { transferAction: data.transferAction ?? null });
      }),
  );
}

