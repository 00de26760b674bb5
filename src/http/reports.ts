// /api/v2/report-types and /api/v2/reports: the catalogue, list, detail and PDF download (Part 2, "Reports"), and
// Caravan's operator routes that carry a report to filing (draft by hand, edit, submit, approve, file): the same
// commands to the reports actor (src/actors/reports.ts) and the same permissions as the CLI.
import { bytesToHex } from "@noble/hashes/utils.js";
import { apiError } from "../domain/errors.ts";
import { reportDocument, type DocumentInput } from "../domain/reports/document.ts";
import { jurisdictionCurrency } from "../domain/reports/currency.ts";
import { GOAML_JURISDICTIONS, goamlXml } from "../domain/reports/goaml.ts";
import Decimal from "decimal.js";
import type { Pricing } from "../adapters/fx/pricing.ts";
import type { Catalog } from "../domain/assets/catalog.ts";
import {
  filingDeadline,
  jurisdictionOut,
  UNKNOWN_JURISDICTION,
  UNKNOWN_JURISDICTION_CODE,
  maskReportContent,
  missingForFiling,
  missingLabels,
  REPORT_ACTION_NEEDS,
  type ReportAction,
  normaliseJurisdiction,
  presentReportType,
  REPORT_KINDS,
  REPORT_LIMITS,
  REPORT_STATUSES,
  resolveReportType,
  specificJurisdictions,
  deadlineRule,
  type DeadlineThreshold,
} from "../domain/reports/report.ts";
import { UnreadableError, type Sealer } from "../adapters/crypto/envelope.ts";
import { REPORT_ENTITY, type DraftAnswer, type ReportChange, type ReportContent, type ReportMember, type ReportRecord, type ReportListFilter, type ReportRepository, type StepAnswer } from "../ports/reports.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import { reportsAddress, type ReportCommand, type ReportMsg } from "../actors/reports.ts";
import { askActor, unwrap } from "./outcome.ts";
import type { AuditRepository } from "../ports/audit.ts";
import type { ThresholdRepository } from "../ports/thresholds.ts";
import type { UnitOfWork } from "../ports/store.ts";
import { RendererBusy, WorkerPdfRenderer, type PdfRenderer } from "../adapters/pdf/renderer.ts";
import { withoutIdleTimeout } from "../adapters/server/served.ts";
import { API_VERSION, created, invalid, ok, page, type ApiKit, type RouteContext } from "./kit.ts";
import { keysetPageAsync } from "./paging.ts";
import type { Access } from "./auth.ts";
import { q, type QueryParam } from "./query.ts";
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import * as api from "../api/reports.ts";

export interface ReportRouteDeps {
  repositories: { reports: ReportRepository; thresholds: ThresholdRepository; audit: AuditRepository };
  /** A report's change and its audit record commit together. */
  storage: UnitOfWork;
  pii: Sealer;
  cursorKey: Uint8Array;
  /** Defaults to worker threads (one CJK document at a time). */
  pdf?: PdfRenderer;
  /** For the value in the jurisdiction's reporting currency on the PDF (a rate asked for, nothing recorded). */
  pricing?: Pick<Pricing, "quote">;
  catalog?: Catalog;
  /** Drafts and steps of a report's life are commands to the environment's reports actor (src/actors/reports.ts). */
  runtime: ActorRuntime;
}

const ID = /^rpt_[0-9a-z]{26}$/;
// Part 2: two scopes; a key without strs:read is 403 INSUFFICIENT_PERMISSION. The role needs reports:view and strs:view.
const read: Access = { scope: "reports:read", permission: "reports:view", alsoScopes: ["strs:read"], permissions: ["strs:view"] };
// The download also needs transfers:read on the key (INSUFFICIENT_PERMISSION) and pii:view in the role (PII_ACCESS_REQUIRED,
// checked before strs:view: among the built-in roles one that lacks pii:view also lacks strs:view).
const download: Access = { scope: "reports:read", permission: "reports:view", alsoScopes: ["strs:read", "transfers:read"], piiRequired: true, permissions: ["strs:view", "transfers:view"] };
/**
 * Operator routes: the key needs strs:write (as a resolution that drafts) and reports:read, both the endpoint's own
 * scopes (INSUFFICIENT_SCOPE), and strs:read, the reports' second scope (INSUFFICIENT_PERMISSION as on every report
 * route); the role needs what the CLI's step needs (REPORT_ACTION_NEEDS: strs:update, and for drafting and editing
 * also reports:create and pii:view). One declaration per action: the pipeline enforces it, the OpenAPI prints it.
 */
function write(action: keyof typeof REPORT_ACTION_NEEDS): Access {
  const [permission, ...permissions] = REPORT_ACTION_NEEDS[action];
  // Part 2: drafting, editing, submitting and filing "happen in the dashboard": a member's console session only.
  return { scope: "strs:write", scopes: ["reports:read"], alsoScopes: ["strs:read"], permission: permission!, permissions, officer: true };
}
export const REPORT_ACCESS = {
  read,
  download,
  draft: write("draft"),
  edit: write("edit"),
  submit: write("submit"),
  approve: write("approve"),
  file: write("file"),
} as const satisfies Record<string, Access>;

const TRANSFER_ID = /^trf_[0-9a-z]{26}$/;
function notFound(id: string): never {
  throw apiError("REPORT_NOT_FOUND", { details: { resource: "Report", id } });
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Part 2: a day from its start in UTC, or an ISO 8601 instant with offset; answered as the stored timestamp form. */
const dayOrInstant: QueryParam<string> = {
  schema: Type.String({ description: "YYYY-MM-DD (start of the day, UTC) or an ISO 8601 instant with offset" }),
  parse(raw) {
    const ms = DAY.test(raw) ? Date.parse(`${raw}T00:00:00.000Z`) : INSTANT.test(raw) ? Date.parse(raw) : NaN;
    if (Number.isNaN(ms) || (DAY.test(raw) && new Date(ms).toISOString().slice(0, 10) !== raw)) return { error: "must be a day (YYYY-MM-DD) or an ISO 8601 instant with offset" };
    return { value: new Date(ms).toISOString() };
  },
};
const jurisdictionParam: QueryParam<string> = {
  schema: Type.String({ description: "ISO 3166-1 alpha-2 in any case; UK for GB" }),
  parse: (raw) => {
    const j = normaliseJurisdiction(raw);
    return j ? { value: j } : { error: "must be an ISO 3166-1 alpha-2 country code (UK for GB; EU is not a jurisdiction)" };
  },
};
/** The reports list's filter also takes `ZZ`: the reports still waiting for an officer to set their jurisdiction. */
const reportJurisdictionParam: QueryParam<string> = {
  schema: Type.String({ description: "ISO 3166-1 alpha-2 in any case; UK for GB; ZZ for reports whose jurisdiction is not known yet" }),
  parse: (raw) => (raw.trim().toUpperCase() === UNKNOWN_JURISDICTION_CODE ? { value: UNKNOWN_JURISDICTION } : jurisdictionParam.parse(raw)),
};

/** One renderer per process: the CJK lane's one-at-a-time rule holds across every server in it. */
let shared: PdfRenderer | null = null;
export function sharedPdfRenderer(): PdfRenderer {
  return (shared ??= new WorkerPdfRenderer());
}

/** GET /api/v2/report-types, and GET /api/v2/reports, /:id, /:id/download: both groups, registered in the kit once. */
export function reportRoutes(kit: ApiKit, deps: ReportRouteDeps) {
  const repo = deps.repositories.reports;
  const thresholds = deps.repositories.thresholds;
  const audit = deps.repositories.audit;
  /**
   * A report file handed to its reader: hashed (WebCrypto: native and asynchronous, so a large file is hashed without
   * holding the event loop), its download audited and committed before the response exists (no byte leaves without
   * its audit entry), then sent with its hash.
   */
  /** A report's transfer gone from this environment: its file cannot be made (409, as the spec's download says). */
  const transferGone = (row: { transferId: string }) =>
    apiError("TRANSFER_NOT_FOUND", { status: 409, message: "The report's transfer is not in this environment", details: { transferId: row.transferId } });
  /** What a report's file is drawn from, unsealed; a seal another master key made is a 503, never a 500. */
  async function documentOf(c: RouteContext, row: ReportRecord, content?: ReportContent) {
    let input;
    try {
      input = await repo.documentInput(row, await strThresholds(c.auth.company.id), c.now, content);
    } catch (e) {
      if (e instanceof UnreadableError) throw apiError("SERVICE_UNAVAILABLE", { message: "The report's sealed data cannot be decrypted" });
      throw e;
    }
    if (!input) throw transferGone(row);
    return input;
  }
  async function handOver(
    c: RouteContext,
    row: Pick<ReportRecord, "id" | "reportNumber" | "filingReady" | "status">,
    bytes: Uint8Array,
    file: { format: "pdf" | "goaml"; filename: string; contentType: string },
  ): Promise<Response> {
    const hash = bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)));
    const { filename } = file;
    await deps.storage.transaction(() =>
      audit.record(
        {
          companyId: c.auth.company.id,
          environment: c.auth.environment,
          actor: c.auth.actor,
          action: "str.downloaded",
          entityType: REPORT_ENTITY,
          entityId: row.id,
          detail: { reportNumber: row.reportNumber, format: file.format, sha256: hash, bytes: bytes.length, filename, draft: !row.filingReady, status: row.status },
        },
        c.now,
      ),
    );
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        "Content-Type": file.contentType,
        "Content-Length": String(bytes.length),
        "Content-Disposition": `attachment; filename=${filename}`,
        "x-content-sha256": hash,
        "api-version": String(API_VERSION),
        "cache-control": "no-store",
      },
    });
  }
  const pdf = () => deps.pdf ?? sharedPdfRenderer();

  /**
   * The value in the jurisdiction's reporting currency (EUR for a Dutch or German report) when the threshold decision
   * priced the transfer in another: the amount at a rate asked for now, with its source and time; or why there is none.
   */
  async function withLocalValue(input: DocumentInput): Promise<DocumentInput> {
    const currency = jurisdictionCurrency(input.type.definition.jurisdiction);
    const v = input.valuation;
    if (!currency || !v || v.currency === currency || !input.transfer.amount) return input;
    const asset = deps.catalog?.assets.find((a) => a.id === input.transfer.assetId);
    if (!asset || !deps.pricing) return { ...input, localValuation: { currency, unavailable: "the asset has no market data here" } };
    try {
      const q = await deps.pricing.quote(asset, currency, AbortSignal.timeout(5_000));
      const value = new Decimal(input.transfer.amount).times(q.rate).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN).toFixed(2);
      return { ...input, localValuation: { value, currency, rate: q.rate, source: q.source, rateAsOf: q.asOf } };
    } catch (e) {
      return { ...input, localValuation: { currency, unavailable: e instanceof Error ? e.message.split("\n")[0].slice(0, 200) : "no source answered" } };
    }
  }

  const strThresholds = async (companyId: string): Promise<DeadlineThreshold[]> => (await thresholds.all(companyId)).filter((t) => t.type === "str");

  async function openContent(r: ReportRecord): Promise<ReportContent> {
    try {
      return await repo.content(r);
    } catch (e) {
      if (e instanceof UnreadableError) throw apiError("SERVICE_UNAVAILABLE", { message: "The report's sealed data cannot be decrypted" });
      throw e;
    }
  }

  function present(r: ReportRecord, ths: DeadlineThreshold[], members: Map<string, ReportMember>, now: number) {
    const type = resolveReportType(r.jurisdiction);
    return {
      id: r.id,
      kind: r.kind,
      label: type.definition.label,
      reportTo: type.definition.reportTo,
      reportNumber: r.reportNumber,
      transferId: r.transferId,
      status: r.status,
      jurisdiction: jurisdictionOut(r.jurisdiction),
      detectionMethod: r.detectionMethod,
      generatedBy: r.generatedBy,
      generatedAt: r.generatedAt,
      filedAt: r.filedAt,
      filedBy: r.filedBy,
      filingReference: r.filingReference,
      filingReady: r.filingReady,
      filingDeadline: filingDeadline(r.generatedAt, r.status, deadlineRule(type, ths), now),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      generatedByMember: members.get(r.generatedBy) ?? null,
      filedByMember: r.filedBy ? (members.get(r.filedBy) ?? null) : null,
    };
  }

  async function load(c: RouteContext): Promise<ReportRecord> {
    const id = c.params.id;
    if (!ID.test(id)) notFound(id);
    return (await repo.get(c.auth.company.id, c.auth.environment, id)) ?? notFound(id);
  }

  /** The report in detail as GET /:id answers it (personal data masked without pii:view); `content` when opened already. */
  async function detail(c: RouteContext, row: ReportRecord, opened?: ReportContent) {
    const type = resolveReportType(row.jurisdiction);
    const content = opened ?? (await openContent(row));
    const shown = c.pii(content, (v) => maskReportContent(type, v));
    const members = await repo.members(c.auth.company.id, [row.generatedBy, row.filedBy]);
    return { ...present(row, await strThresholds(c.auth.company.id), members, c.now), narrative: shown.narrative, riskIndicators: shown.riskIndicators, regulatoryData: shown.regulatoryData };
  }

  /** What filing still needs, the type's fields, who submitted and approved, and the reporting threshold (operator view). */
  async function readiness(c: RouteContext, row: ReportRecord, opened?: ReportContent) {
    const type = resolveReportType(row.jurisdiction);
    const content = opened ?? (await openContent(row));
    const m = missingForFiling(type, content.narrative, content.regulatoryData);
    const members = await repo.members(c.auth.company.id, [row.submittedBy, row.approvedBy]);
    const ths = await strThresholds(c.auth.company.id);
    return {
      id: row.id,
      reportNumber: row.reportNumber,
      status: row.status,
      jurisdiction: jurisdictionOut(row.jurisdiction),
      filingReady: row.filingReady,
      missing: { fields: m.fields, narrative: m.narrative, labels: missingLabels(type, m) },
      fields: [
        ...(row.jurisdiction === UNKNOWN_JURISDICTION ? [{ key: "jurisdiction", label: "Jurisdiction (where the report is filed)", type: "country", pii: false, required: true }] : []),
        ...type.fields.map((f) => ({ key: f.key, label: f.label, type: f.type, pii: f.pii, required: f.required })),
      ],
      narrativeMinLength: type.definition.narrativeMinLength,
      reportingThreshold: row.jurisdiction ? await repo.threshold(c.auth.company.id, c.auth.environment, row.transferId, row.jurisdiction, ths) : null,
      submittedBy: row.submittedBy ? (members.get(row.submittedBy) ?? { id: row.submittedBy }) : null,
      submittedAt: row.submittedAt,
      approvedBy: row.approvedBy ? (members.get(row.approvedBy) ?? { id: row.approvedBy }) : null,
      approvedAt: row.approvedAt,
    };
  }

  /** The detail with its readiness, the content opened once for both (`opened`: the content a command just sealed). */
  async function detailWithReadiness(c: RouteContext, row: ReportRecord, opened?: ReportContent) {
    const content = opened ?? (await openContent(row));
    return { ...(await detail(c, row, content)), readiness: await readiness(c, row, content) };
  }

  /** One step of the life by the key's member: the CLI's permissions, the CLI's core, the CLI's audit. */
  /** The route's access (REPORT_ACCESS[action]) has checked the action's permissions before the handler runs. */
  async function step(c: RouteContext, action: ReportAction, change: ReportChange) {
    const row = await load(c);
    const res = await command<StepAnswer>(c, { type: "step", reportId: row.id, action, change });
    if (!res.ok) {
      const f = res.refusal;
      if (f.code === "INVALID_EDIT") invalid(f.message.split("; ").map((message) => ({ path: "", message })));
      if (f.code === "REPORT_NOT_FOUND") notFound(row.id);
      throw apiError(f.code, { message: f.message, details: { reportId: row.id, status: row.status } });
    }
    return ok(await detailWithReadiness(c, res.report, res.content));
  }

  /** One typed command to the environment's reports actor (src/actors/reports.ts), by the key's member. */
  async function command<T>(c: RouteContext, cmd: ReportCommand): Promise<T> {
    const msg = { ...cmd, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor, memberId: c.auth.member.id } as ReportMsg;
    return unwrap(await askActor<T>(deps.runtime, reportsAddress(c.auth.company.id, c.auth.environment), msg)).data;
  }

  const types = kit.group("/api/v2/report-types", (r) =>
    r.get(
      "/",
      {
        summary: "Report types per jurisdiction: FIU, fields, narrative rule, formats and filing deadline (company str threshold, else system default)",
        access: read,
        tags: ["reports"],
        query: { kind: q.enumOf(REPORT_KINDS), jurisdiction: jurisdictionParam },
      },
      async (c) => {
        const ths = await strThresholds(c.auth.company.id);
        const list = c.query.jurisdiction ? [c.query.jurisdiction] : specificJurisdictions().sort();
        return ok(list.map((j) => presentReportType(resolveReportType(j), ths)));
      },
    ),
  );

  const reports = kit.group("/api/v2/reports", (r) =>
    r
      .get(
        "/",
        {
          summary: "List suspicion reports, newest first (no narrative or subject details)",
          access: read,
          tags: ["reports"],
          query: {
            kind: q.enumOf(REPORT_KINDS),
            status: q.enumOf(REPORT_STATUSES),
            jurisdiction: reportJurisdictionParam,
            transferId: q.string(100),
            search: q.string(REPORT_LIMITS.search),
            from: dayOrInstant,
            to: dayOrInstant,
            limit: q.limit(200),
            cursor: q.cursor(),
          },
        },
        async (c) => {
          const { company, environment } = c.auth;
          const f: ReportListFilter = {
            kind: c.query.kind,
            status: c.query.status,
            jurisdiction: c.query.jurisdiction,
            transferId: c.query.transferId,
            search: c.query.search?.toLowerCase(),
            from: c.query.from,
            to: c.query.to,
          };
          const res = await keysetPageAsync<ReportRecord>({
            key: deps.cursorKey,
            scope: c.auth,
            list: `reports|${JSON.stringify([f.kind, f.status, f.jurisdiction, f.transferId, f.search, f.from, f.to])}`,
            cursor: c.query.cursor,
            limit: c.query.limit,
            fetch: (after, n) => repo.page(company.id, environment, f, after as [string, string] | null, n),
            position: (row) => [row.createdAt, row.id],
            total: () => repo.count(company.id, environment, f),
          });
          const ths = await strThresholds(company.id);
          const members = await repo.members(company.id, res.rows.flatMap((x) => [x.generatedBy, x.filedBy]));
          return page(res.rows.map((row) => present(row, ths, members, c.now)), res.meta);
        },
      )
      .get("/:id", { summary: "A report with its narrative, risk indicators and regulatory data (personal data masked without pii:view)", access: read, tags: ["reports"] }, async (c) => {
        return ok(await detail(c, await load(c)));
      })
      .post(
        "/",
        { summary: "Operator: draft a suspicion report by hand for any transfer of the environment", access: REPORT_ACCESS.draft, body: api.DraftReport, validationStatus: 422, tags: ["reports", "operator"] },
        async (c) => {
          const b = c.body;
          if (!TRANSFER_ID.test(b.transferId)) throw apiError("TRANSFER_NOT_FOUND", { status: 422, message: "transferId names no transfer of this environment", details: { field: "transferId", id: b.transferId } });
          const res = await command<DraftAnswer>(c, { type: "draft", transferId: b.transferId, jurisdiction: b.jurisdiction });
          if (!res.ok) {
            if (res.refusal.code === "INVALID_EDIT") invalid([{ path: "jurisdiction", message: res.refusal.message }]);
            throw apiError("TRANSFER_NOT_FOUND", { status: 422, message: "transferId names no transfer of this environment", details: { field: "transferId", id: b.transferId } });
          }
          return created(await detailWithReadiness(c, res.report));
        },
      )
      .get("/:id/readiness", { summary: "Operator: what filing still needs (fields and narrative), the type's fields, submitter and approver", access: read, tags: ["reports", "operator"] }, async (c) => {
        return ok(await readiness(c, await load(c)));
      })
      .patch(
        "/:id",
        { summary: "Operator: edit narrative, regulatory fields, risk indicators or jurisdiction (a report in review goes back to draft)", access: REPORT_ACCESS.edit, body: api.EditReport, validationStatus: 422, tags: ["reports", "operator"] },
        // Line breaks are stored as \n: a terminal's \r or a pasted \r\n is the same break, never a raw \r.
        (c) => step(c, "edit", typeof c.body?.narrative === "string" ? { ...c.body, narrative: c.body.narrative.replace(/\r\n?/g, "\n") } : c.body),
      )
      .post("/:id/submit", { summary: "Operator: submit a filing-ready draft for review", access: REPORT_ACCESS.submit, tags: ["reports", "operator"] }, (c) => step(c, "submit", {}))
      .post("/:id/approve", { summary: "Operator: approve a report in review (a member who neither drafted, last edited nor submitted it)", access: REPORT_ACCESS.approve, tags: ["reports", "operator"] }, (c) => step(c, "approve", {}))
      .post(
        "/:id/file",
        { summary: "Operator: mark an approved report filed with the FIU's reference", access: REPORT_ACCESS.file, body: api.FileReport, validationStatus: 422, tags: ["reports", "operator"] },
        (c) => step(c, "file", { reference: c.body.reference }),
      )
      .get(
        "/:id/download",
        {
          summary: "The report as a PDF (application/pdf; x-content-sha256 recorded in the audit log before the first byte); needs transfers:read and pii:view",
          access: download,
          tags: ["reports"],
          query: { format: q.enumOf(["pdf"] as const) },
        },
        async (c) => {
          const row = await load(c);
          // Part 2 Limits: over 100,000 characters is refused without opening or drawing anything.
          if (row.textLength > REPORT_LIMITS.pdfText)
            throw apiError("REPORT_TOO_LONG_FOR_PDF", { details: { characters: row.textLength, limit: REPORT_LIMITS.pdfText } });
          const input = await documentOf(c, row);
          const doc = reportDocument(await withLocalValue(input));
          let bytes: Uint8Array;
          try {
            // Drawing can outlast the connection's idle timeout on a busy machine; a cut connection would make the
            // client ask again into this very render (served.ts says why).
            bytes = await withoutIdleTimeout(c.request, () => pdf().render(doc, { cjk: row.hasCjk }));
          } catch (e) {
            if (e instanceof RendererBusy) throw apiError("PDF_RENDERER_BUSY", { headers: { "Retry-After": "5" } });
            throw e;
          }
          return handOver(c, row, bytes, { format: "pdf", filename: `${row.reportNumber}${row.filingReady ? "" : "_DRAFT"}.pdf`, contentType: "application/pdf" });
        },
      )
      .get(
        "/:id/goaml",
        {
          summary: "Operator: the report as goAML XML, for an FIU that takes goAML (a filing-ready or filed report); audited like a download; needs transfers:read and pii:view",
          access: REPORT_ACCESS.download,
          tags: ["reports", "operator"],
        },
        async (c) => {
          const row = await load(c);
          const jurisdiction = row.jurisdiction;
          if (!jurisdiction || !GOAML_JURISDICTIONS.has(jurisdiction))
            throw apiError("INVALID_REQUEST", { message: `The FIU of ${jurisdiction ?? "an unset jurisdiction"} does not take goAML XML here: file the PDF`, details: { jurisdiction, goamlJurisdictions: [...GOAML_JURISDICTIONS].sort() } });
          if (!row.filingReady && row.status !== "filed") throw apiError("NOT_FILING_READY", { details: { missing: await repo.missing(row, await openContent(row)) } });
          const input = await documentOf(c, row);
          const parties = await repo.goamlParties(row);
          if (!parties) throw transferGone(row);
          const withLocal = await withLocalValue(input);
          const data = withLocal.regulatoryData;
          const local = withLocal.localValuation && !("unavailable" in withLocal.localValuation) ? withLocal.localValuation : withLocal.valuation && withLocal.valuation.currency === jurisdictionCurrency(jurisdiction) ? withLocal.valuation : null;
          const xml = goamlXml({
            reportNumber: row.reportNumber,
            reportCode: data.goAmlReportCode || withLocal.type.definition.abbreviation,
            rentityId: data.filingInstitutionIdentifier ?? "",
            filingReference: row.filingReference,
            submittedAt: new Date(c.now).toISOString(),
            currency: jurisdictionCurrency(jurisdiction) ?? "EUR",
            contactOfficer: data.contactOfficer ?? "",
            institutionCountry: data.filingInstitutionCountry ?? jurisdiction,
            narrative: withLocal.narrative ?? "",
            action: row.status === "filed" ? "Filed" : "Transfer reviewed by the reporting officer",
            transfer: { id: withLocal.transfer.id, direction: parties.direction, amount: withLocal.transfer.amount ?? "", asset: withLocal.transfer.asset ?? "", network: parties.network, txHash: parties.txHash, createdAt: withLocal.transfer.createdAt },
            amountLocal: local ? new Decimal(local.value).toFixed(2) : null,
            subject: parties.subject,
            counterparty: parties.counterparty,
            indicators: withLocal.riskIndicators,
          });
          const bytes = new TextEncoder().encode(xml);
          return handOver(c, row, bytes, { format: "goaml", filename: `${row.reportNumber}.goaml.xml`, contentType: "application/xml; charset=utf-8" });
        },
      ),
  );

  return new Elysia({ normalize: false }).use(types).use(reports);
}
