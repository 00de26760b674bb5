// Each route's request body, example and answer, by "METHOD /path" as the server registers it (`:id` parameters).
// The OpenAPI document reads this table; the contract test checks real answers against `answer`.
import { Type, type TSchema } from "@sinclair/typebox";
import { Envelope, Page } from "./common.ts";
import * as customers from "./customers.ts";
import * as wallets from "./wallets.ts";
import * as transfers from "./transfers.ts";
import * as cases from "./cases.ts";
import * as rules from "./rules.ts";
import * as thresholds from "./thresholds.ts";
import * as webhooks from "./webhooks.ts";
import * as reports from "./reports.ts";
import * as providers from "./providers.ts";
import { AuditCheckpoint, AuditConsistencyProof, AuditEntry, AuditInclusionProof, AuditSigningKey } from "./audit.ts";
import * as team from "./team.ts";
import { Me } from "./me.ts";
import { DeadLetter, DeadLetterReplayed, DeadLettersReplayed } from "./dead-letters.ts";

export interface RouteContract {
  /** The request body's schema. */
  body?: TSchema;
  /** One request body that the route accepts. */
  example?: unknown;
  /** The route takes no body. */
  none?: true;
  /** The whole answer of a success (envelope included). */
  answer?: TSchema;
  /** The success status, when not 200. */
  status?: number;
  /** Other success statuses the route answers, each with what it means and, where the contract names it, its answer. */
  answers?: Record<number, { description: string; answer?: TSchema }>;
  /** The success answer's media type when it is not JSON (a file). */
  media?: string;
  /** Request headers the route reads (besides x-api-key), each with its meaning and the text it takes. */
  headers?: Record<string, { description: string; schema: TSchema }>;
}

const one = Envelope;
const list = Page;

export const ROUTES: Record<string, RouteContract> = {
  "GET /api/v2/me": { answer: one(Me) },
  // customers
  "GET /api/v2/customers": { answer: list(customers.CustomerListItem) },
  "POST /api/v2/customers": { body: customers.CreateCustomer, example: customers.customerExamples.create, answer: one(customers.Customer), status: 201 },
  "POST /api/v2/customers/:id/deactivate": { body: customers.DeactivateCustomer, example: customers.customerExamples.deactivate },
  "POST /api/v2/customers/:id/reactivate": { none: true },
  "POST /api/v2/customers/:id/erase": { body: customers.EraseCustomer, example: customers.customerExamples.erase },
  "PUT /api/v2/customers/:id/travel-rule-identity": { body: customers.SetIdentity, example: customers.customerExamples.identity },
  "GET /api/v2/customers/:id/overview": { answer: one(customers.CustomerOverview) },
  // wallets
  "GET /api/v2/wallets": { answer: list(wallets.Wallet) },
  "GET /api/v2/wallets/:id": { answer: one(wallets.Wallet) },
  "POST /api/v2/wallets": { body: wallets.CreateWallet, example: wallets.walletExamples.create, answer: one(wallets.Wallet), status: 201 },
  "POST /api/v2/wallets/verify": { body: wallets.VerifyWallet, example: wallets.walletExamples.verify, answer: one(wallets.WalletCheck) },
  "PATCH /api/v2/wallets/:id": { body: wallets.PatchWallet, example: wallets.walletExamples.patch, answer: one(wallets.Wallet) },
  "DELETE /api/v2/wallets/:id": { none: true },
  "GET /api/v2/wallets/:id/travel-address": { answer: one(wallets.TravelAddress) },
  // transfers
  "GET /api/v2/transfers": { answer: list(transfers.TransferListItem) },
  "GET /api/v2/transfers/:id": { answer: one(transfers.TransferDetail) },
  "GET /api/v2/transfers/:id/valuation": { answer: one(transfers.TransferValuation) },
  "POST /api/v2/transfers": {
    body: transfers.CreateTransfer,
    example: transfers.transferExamples.create,
    answer: one(transfers.TransferCreated),
    status: 201,
    answers: {
      202: { description: "Queued: screening and the Travel Rule exchange follow (meta.jobId, meta.message)", answer: one(transfers.TransferQueued) },
      200: { description: "This Idempotency-Key was used before: the transfer it created, whatever the body; nothing new is created (meta.idempotent: true)", answer: one(transfers.TransferIdempotent) },
    },
    headers: {
      "Idempotency-Key": {
        description: "One key per intended transfer: a create that repeats a used key is answered 200 with the transfer that key created, whatever the body",
        schema: Type.String({ minLength: 1, maxLength: 255 }),
      },
    },
  },
  "PATCH /api/v2/transfers/:id": {
    body: transfers.PatchTransfer,
    example: transfers.transferExamples.patch,
    answer: one(transfers.TransferActed),
    headers: {
      "Idempotency-Key": {
        description: "Optional: a repeat of the same action with the same key is answered as the first time; the same key with another action is 409 CONFLICT",
        schema: Type.String({ minLength: 1, maxLength: 255 }),
      },
    },
  },
  "POST /api/v2/transfers/:id/information-requests": { body: transfers.InformationRequestAction, example: transfers.transferExamples.informationRequest, status: 202 },
  // cases
  "GET /api/v2/cases": { answer: list(cases.CaseListItem) },
  "GET /api/v2/cases/:id": { answer: one(cases.CaseDetail) },
  "GET /api/v2/cases/:id/notes": { answer: list(cases.CaseNote) },
  "GET /api/v2/cases/:id/history": { answer: list(cases.CaseHistoryEntry) },
  "POST /api/v2/cases": { body: cases.CreateCase, example: cases.caseExamples.create, answer: one(Type.Union([cases.CaseDetail, cases.CaseReceipt])), status: 201 },
  "PATCH /api/v2/cases/:id": { body: cases.PatchCase, example: cases.caseExamples.patch, answer: one(Type.Union([cases.CaseDetail, cases.CaseReceipt])) },
  "POST /api/v2/cases/:id/notes": { body: cases.AddNote, example: cases.caseExamples.note, answer: one(cases.CaseNote), status: 201 },
  "POST /api/v2/cases/:id/resolve": { body: cases.ResolveCase, example: cases.caseExamples.resolve, answer: one(Type.Union([cases.CaseDetail, cases.CaseReceipt])) },
  // rules
  "GET /api/v2/rules": { answer: list(rules.RuleListItem) },
  "GET /api/v2/rules/promotable": { answer: one(Type.Array(rules.PromotableRule)) },
  "GET /api/v2/rules/:id": { answer: one(rules.RuleDetail) },
  "POST /api/v2/rules": { body: rules.CreateRule, example: rules.ruleExamples.create, answer: one(rules.RuleDetail), status: 201 },
  "PATCH /api/v2/rules/:id": { body: rules.UpdateRule, example: rules.ruleExamples.update, answer: one(rules.RuleDetail) },
  "DELETE /api/v2/rules/:id": { none: true },
  "POST /api/v2/rules/:id/promote": { none: true, answer: one(rules.RuleDetail), status: 201 },
  // thresholds
  "POST /api/v2/thresholds": { body: thresholds.CreateThreshold, example: thresholds.thresholdExamples.create, status: 201 },
  "PATCH /api/v2/thresholds/:id": { body: thresholds.UpdateThreshold, example: thresholds.thresholdExamples.update },
  // webhooks
  "GET /api/v2/webhooks": { answer: list(webhooks.Webhook) },
  "GET /api/v2/webhooks/:id": { answer: webhooks.WebhookDetail },
  "GET /api/v2/webhooks/:id/deliveries": { answer: list(webhooks.Delivery) },
  "POST /api/v2/webhooks": { body: webhooks.CreateWebhook, example: webhooks.webhookExamples.create, answer: one(webhooks.WebhookCreated), status: 201 },
  "PATCH /api/v2/webhooks/:id": { body: webhooks.UpdateWebhook, example: webhooks.webhookExamples.update },
  "POST /api/v2/webhooks/:id/test": { none: true },
  "POST /api/v2/webhooks/:id/deliveries/:deliveryId/retry": { none: true },
  // reports
  "GET /api/v2/reports": { answer: list(reports.ReportListItem) },
  "GET /api/v2/reports/:id": { answer: one(reports.ReportDetail) },
  "GET /api/v2/reports/:id/readiness": { answer: one(reports.ReportReadiness) },
  "GET /api/v2/reports/:id/download": { media: "application/pdf" },
  "GET /api/v2/reports/:id/goaml": { media: "application/xml" },
  "POST /api/v2/reports": { body: reports.DraftReport, example: { transferId: "trf_01jd0000000000000000000000", jurisdiction: "NL" }, answer: one(reports.ReportDrafted), status: 201 },
  "PATCH /api/v2/reports/:id": { body: reports.EditReport, example: { narrative: "The customer moved funds received from a sanctioned exchange within minutes of receipt." } },
  "POST /api/v2/reports/:id/submit": { none: true },
  "POST /api/v2/reports/:id/approve": { none: true },
  "POST /api/v2/reports/:id/file": { body: reports.FileReport, example: { reference: "FIU-2026-000123" } },
  // audit
  "GET /api/v2/audit-log": { answer: list(AuditEntry) },
  "GET /api/v2/audit-log/:id": { answer: one(AuditEntry) },
  "GET /api/v2/audit-log/checkpoints/latest": { answer: one(AuditCheckpoint) },
  "GET /api/v2/audit-log/signing-keys": { answer: one(Type.Array(AuditSigningKey)) },
  "GET /api/v2/audit-log/consistency-proof": { answer: one(AuditConsistencyProof) },
  "GET /api/v2/audit-log/:id/inclusion-proof": { answer: one(AuditInclusionProof) },
  "GET /api/v2/dead-letters": { answer: list(DeadLetter) },
  // members' sign-in and sessions; the company's keys and members (a signed-in owner)
  "POST /api/v2/sessions": { body: team.SignIn, example: team.teamExamples.signIn, answer: one(team.SessionCreated), status: 201 },
  "POST /api/v2/sessions/setup": { body: team.SetupStart, example: team.teamExamples.setup, answer: one(team.SetupStarted) },
  "POST /api/v2/sessions/setup/confirm": { body: team.SetupConfirm, example: team.teamExamples.confirm, answer: one(team.SessionCreated), status: 201 },
  "GET /api/v2/sessions/current": { answer: one(team.SessionCurrent) },
  "DELETE /api/v2/sessions/current": { none: true, answer: one(team.SessionEnded) },
  "GET /api/v2/keys": { answer: one(Type.Array(team.ApiKeyItem)) },
  "POST /api/v2/keys": { body: team.CreateKey, example: team.teamExamples.createKey, answer: one(team.ApiKeyCreated), status: 201 },
  "DELETE /api/v2/keys/:id": { none: true, answer: one(team.ApiKeyItem) },
  "GET /api/v2/members": { answer: one(Type.Array(team.MemberItem)) },
  "POST /api/v2/members": { body: team.InviteMember, example: team.teamExamples.invite, answer: one(team.MemberInvited), status: 201 },
  "PATCH /api/v2/members/:id": { body: team.ChangeMember, example: team.teamExamples.change, answer: one(team.MemberItem) },
  "POST /api/v2/dead-letters/:id/replay": { none: true, answer: one(DeadLetterReplayed) },
  "POST /api/v2/dead-letters/replay": { none: true, answer: one(DeadLettersReplayed) },
  // providers and integrations
  "GET /api/v2/providers": { answer: list(providers.Provider) },
  "GET /api/v2/providers/:name": { answer: one(providers.Provider) },
  "PUT /api/v2/providers/:name": { body: providers.PutSettings, example: providers.providerExamples.providerPut, status: 201, answers: { 200: { description: "Saved again: the credentials replace the ones saved before" } } },
  "PATCH /api/v2/providers/:name": { body: providers.SwitchSettings, example: providers.providerExamples.switch },
  "POST /api/v2/providers/:name/test": { none: true },
  "GET /api/v2/integrations": { answer: list(providers.Integration) },
  "GET /api/v2/integrations/:name": { answer: one(providers.Integration) },
  "PUT /api/v2/integrations/:name": { body: providers.PutSettings, example: providers.providerExamples.integrationPut, status: 201, answers: { 200: { description: "Saved again: the credentials replace the ones saved before" } } },
  "PATCH /api/v2/integrations/:name": { body: providers.SwitchSettings, example: providers.providerExamples.switch },
  "POST /api/v2/integrations/:name/test": { none: true },
};
