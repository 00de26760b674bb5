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
import { AuditEntry } from "./audit.ts";
import { Me } from "./me.ts";

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
  // transfers
  "GET /api/v2/transfers": { answer: list(transfers.TransferListItem) },
  "GET /api/v2/transfers/:id": { answer: one(transfers.TransferDetail) },
  "GET /api/v2/transfers/:id/valuation": { answer: one(transfers.TransferValuation) },
  "POST /api/v2/transfers": { body: transfers.CreateTransfer, example: transfers.transferExamples.create, answer: one(transfers.TransferCreated), status: 201 },
  "PATCH /api/v2/transfers/:id": { body: transfers.PatchTransfer, example: transfers.transferExamples.patch, answer: one(transfers.TransferActed) },
  "POST /api/v2/transfers/:id/information-requests": { body: transfers.InformationRequestAction, example: transfers.transferExamples.informationRequest },
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
  "POST /api/v2/thresholds": { body: thresholds.CreateThreshold, example: thresholds.thresholdExamples.create },
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
  "POST /api/v2/reports": { body: reports.DraftReport, example: { transferId: "trf_01jd0000000000000000000000", jurisdiction: "NL" }, answer: one(reports.ReportDrafted), status: 201 },
  "PATCH /api/v2/reports/:id": { body: reports.EditReport, example: { narrative: "The customer moved funds received from a sanctioned exchange within minutes of receipt." } },
  "POST /api/v2/reports/:id/submit": { none: true },
  "POST /api/v2/reports/:id/approve": { none: true },
  "POST /api/v2/reports/:id/file": { body: reports.FileReport, example: { reference: "FIU-2026-000123" } },
  // audit
  "GET /api/v2/audit-log": { answer: list(AuditEntry) },
  "GET /api/v2/audit-log/:id": { answer: one(AuditEntry) },
  // providers and integrations
  "GET /api/v2/providers": { answer: list(providers.Provider) },
  "GET /api/v2/providers/:name": { answer: one(providers.Provider) },
  "PUT /api/v2/providers/:name": { body: providers.PutSettings, example: providers.providerExamples.providerPut },
  "PATCH /api/v2/providers/:name": { body: providers.SwitchSettings, example: providers.providerExamples.switch },
  "POST /api/v2/providers/:name/test": { none: true },
  "GET /api/v2/integrations": { answer: list(providers.Integration) },
  "GET /api/v2/integrations/:name": { answer: one(providers.Integration) },
  "PUT /api/v2/integrations/:name": { body: providers.PutSettings, example: providers.providerExamples.integrationPut },
  "PATCH /api/v2/integrations/:name": { body: providers.SwitchSettings, example: providers.providerExamples.switch },
  "POST /api/v2/integrations/:name/test": { none: true },
};
