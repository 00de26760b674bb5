// The rules domain: vocabulary, body validation and the engine the transfer actor calls at its checkpoints.
export * from "./types.ts";
export { applicableRules, integrationsRead, evaluate, compareValue, thresholdHolds, verdictUnscreened } from "./engine.ts";
export { parsePath, readPath } from "./path.ts";
export { validateCreateRule, validateUpdateRule, READABLE_INTEGRATIONS, RULE_FIELDS, type RuleInput, type IntegrationLookup, type IntegrationRef } from "./validate.ts";
