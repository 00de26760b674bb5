// /api/v2/providers and /api/v2/integrations: settings of the Travel Rule providers and screening integrations
// (Part 2 "Providers and integrations settings", Part 3 "Settings of …", "Callback paths").
import { Elysia } from "elysia";
import { apiError, type ErrorCode, type Issue } from "../domain/errors.ts";
import type { Permission } from "../domain/access.ts";
import type { Environment } from "../domain/types.ts";
import {
  callbackPaths,
  checkSettingsBody,
  definition,
  definitions,
  type FieldDef,
  type SettingsDef,
  type SettingsKind,
} from "../domain/providers/catalog.ts";
import { UnreadableError } from "../adapters/crypto/envelope.ts";
import type { EnableDecision, ProviderSettingsRepository, SaveDecision, SettingsState } from "../ports/provider-settings.ts";
import type { ActorRuntime } from "../actors/runtime.ts";
import { settingsAddress, type SettingsCommand, type SettingsMsg } from "../actors/settings.ts";
import { askActor, unwrap } from "./outcome.ts";
import { defaultTester, type ConnectionTester, type TestOutcome } from "../adapters/providers/tester.ts";
import type { Logger } from "../adapters/log.ts";
import { created, ok, page, invalid, type ApiKit, type RouteContext } from "./kit.ts";
import type { ScopedAccess } from "./auth.ts";
import * as api from "../api/providers.ts";

export interface ProviderRouteDeps {
  providerSettings: ProviderSettingsRepository;
  /** Saves, switches and test results are commands to the company's settings actor (src/actors/settings.ts). */
  runtime: ActorRuntime;
  clock: () => number;
  log: Logger;
  /** The connection tests adapters registered (`createTester({ provider_b: … })`); without it every test answers NOT_IMPLEMENTED. */
  connectionTester?: ConnectionTester;
}

/** A connection test that has not answered by then is recorded as failed (adapters time out sooner: 10 to 15 seconds). */
const TEST_TIMEOUT_MS = 60_000;

const GROUPS = {
  provider: { prefix: "/api/v2/providers", resource: "providers", notFound: "PROVIDER_NOT_FOUND", entity: "Provider" },
  integration: { prefix: "/api/v2/integrations", resource: "integrations", notFound: "INTEGRATION_NOT_FOUND", entity: "Integration" },
} as const satisfies Record<SettingsKind, { prefix: string; resource: string; notFound: ErrorCode; entity: string }>;

function presentField(f: FieldDef) {
  return {
    key: f.key,
    label: f.label,
    type: f.type,
    required: f.required,
    ...(f.options ? { options: f.options.map((o) => ({ ...o })) } : {}),
    ...(f.placeholder !== undefined ? { placeholder: f.placeholder } : {}),
    ...(f.help !== undefined ? { help: f.help } : {}),
  };
}

/** The resource exactly as Part 2 lists it: never a value, only which fields hold one. */
export function presentSettings(def: SettingsDef, st: SettingsState, env: Environment) {
  const state = {
    configured: st.configured,
    configuredFields: st.configuredFields,
    enabled: st.enabled,
  };
  const tail = {
    notes: st.notes,
    lastTestedAt: st.lastTestedAt,
    lastTestResult: st.lastTestResult,
    lastError: st.lastError,
    createdAt: st.createdAt,
    updatedAt: st.updatedAt,
  };
  const info = { website: def.website, docsUrl: def.docsUrl, description: def.description, fields: def.fields.map(presentField) };
  if (def.kind === "provider")
    return {
      name: def.name,
      displayName: def.displayName,
      protocol: def.protocol,
      protocolLabel: def.protocolLabel,
      ...info,
      ...state,
      priority: def.priority,
      // Part 2: for the key's environment, empty until first saved there.
      callbackPaths: st.configured && st.id ? callbackPaths(def, env, st.id) : [],
      ...tail,
    };
  // `id` (null until first saved, the same in both environments) is what a rule's `integrationId` names (Part 2 "Rule").
  return { id: st.id, name: def.name, displayName: def.displayName, type: def.type, ...info, ...state, ...tail };
}

/** PATCH body: `{ enabled: true }` or `{ enabled: false }` and nothing else. */
function enabledOf(body: unknown): boolean {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) invalid([{ path: "", message: "the body must be { enabled: true } or { enabled: false }" }]);
  const b = body as Record<string, unknown>;
  const issues: Issue[] = Object.keys(b)
    .filter((k) => k !== "enabled")
    .map((k) => ({ path: k, message: "is not accepted; only enabled can be changed here" }));
  if (!Object.hasOwn(b, "enabled")) issues.push({ path: "enabled", message: "is required" });
  else if (typeof b.enabled !== "boolean") issues.push({ path: "enabled", message: "must be true or false" });
  if (issues.length) invalid(issues);
  return b.enabled as boolean;
}

function unreadable(e: unknown): never {
  if (e instanceof UnreadableError) throw apiError("SERVICE_UNAVAILABLE", { message: "The saved credentials cannot be decrypted (another master key?)" });
  throw e;
}

async function runTest(tester: ConnectionTester, def: SettingsDef, env: Environment, credentials: Record<string, string>, log: Logger): Promise<TestOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<TestOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ success: false, message: `Connection test for ${def.name} timed out`, error: "TIMEOUT" }), TEST_TIMEOUT_MS);
    });
    const o = await Promise.race([tester(def.name, env, credentials), timeout]);
    // Only the fields the API answers; a tester's extra properties never reach the client or the database.
    return o.success ? { success: true, message: String(o.message) } : { success: false, message: String(o.message), error: String(o.error ?? "TEST_FAILED") };
  } catch (e) {
    // Part 3: raw provider errors are never passed on; the cause goes to the log only.
    log("warn", "connection test threw", { name: def.name, environment: env, error: e instanceof Error ? e.name : "unknown" });
    return { success: false, message: `Connection test for ${def.name} failed`, error: "TEST_FAILED" };
  } finally {
    clearTimeout(timer);
  }
}

function settingsGroup(kit: ApiKit, kind: SettingsKind, deps: ProviderRouteDeps) {
  const g = GROUPS[kind];
  const repo = deps.providerSettings;
  const tester = deps.connectionTester ?? defaultTester;
  const perm = (p: "view" | "create" | "update" | "test") => `${g.resource}:${p}` as Permission;
  const read = { scope: `${g.resource}:read`, permission: perm("view") };
  // PUT: a first save needs `create` as well (checked in the handler, where it is known to be the first).
  const save: ScopedAccess = { scope: `${g.resource}:write`, permission: perm("update"), conditional: [{ permission: perm("create"), when: "the first save of the key's environment (answered 201)" }] };
  // Part 2 Authentication 4: the enabled switch is shared by both environments; only a live key changes it.
  const toggle = { scope: `${g.resource}:write`, permission: perm("update"), liveOnly: true };
  const test = { scope: `${g.resource}:write`, permission: perm("test") };
  const tags = [g.resource];

  function find(c: RouteContext): SettingsDef {
    const def = definition(kind, c.params.name);
    if (!def) throw apiError(g.notFound, { details: { resource: g.entity, name: c.params.name } });
    return def;
  }
  /**
   * A save's body, read after what refuses it first: the name (404), the permission a first save needs, the plan's
   * features; then the body against the integration's fields.
   */
  async function readSave(b: unknown, c: RouteContext) {
    const def = find(c);
    const before = await repo.get(c.auth.company.id, c.auth.environment, def.name);
    if (!before.configured && !c.auth.can(perm("create")))
      throw apiError("INSUFFICIENT_PERMISSION", {
        message: `The role ${c.auth.member.role} lacks the permission ${perm("create")} (a first save)`,
        details: { permission: perm("create") },
      });
    // The plan feature is the name itself (`provider_b`, `screening_c`): Part 2, saving one the plan excludes.
    if (c.auth.company.disabledFeatures.has(def.name))
      throw apiError("TENANT_FEATURE_DISABLED", { message: `The company's plan does not include ${def.name}`, details: { feature: def.name } });
    const body = checkSettingsBody(def, b);
    if (!body.ok) {
      if (body.code === "VALIDATION_ERROR") invalid(body.issues);
      throw apiError("UNKNOWN_FIELDS", { status: 422, message: `Fields not taken by ${def.name}: ${body.fields.join(", ")}`, details: { fields: body.fields } });
    }
    return { def, value: body.value };
  }
  /** One typed command to the company's settings actor, with the key's environment and who acts. */
  async function command<T>(c: RouteContext, cmd: SettingsCommand): Promise<T> {
    const msg = { ...cmd, companyId: c.auth.company.id, environment: c.auth.environment, actor: c.auth.actor } as SettingsMsg;
    return unwrap(await askActor<T>(deps.runtime, settingsAddress(c.auth.company.id), msg)).data;
  }
  const present = (c: RouteContext, def: SettingsDef, st: SettingsState) => presentSettings(def, st, c.auth.environment);

  return kit.group(g.prefix, (r) =>
    r
      .get("/", { summary: `Every ${kind} with its settings for the key's environment`, access: read, tags }, async (c) => {
        const items = await Promise.all(definitions(kind).map(async (def) => present(c, def, await repo.get(c.auth.company.id, c.auth.environment, def.name))));
        return page(items, { cursor: null, hasMore: false, total: items.length, limit: items.length });
      })
      .get("/:name", { summary: `One ${kind}'s settings for the key's environment`, access: read, tags }, async (c) => {
        const def = find(c);
        return ok(present(c, def, await repo.get(c.auth.company.id, c.auth.environment, def.name)));
      })
      .put(
        "/:name",
        {
          summary: `Save the ${kind}'s credentials for the key's environment (201 on the first save, which also needs ${perm("create")}; 200 after)`,
          access: save,
          body: api.PutSettings,
          read: readSave,
          validationStatus: 422,
          tags,
        },
        async (c) => {
          const { def, value } = c.body;
          const res = await command<SaveDecision>(c, { type: "save", name: def.name, input: value });
          if (!res.ok) {
            if (res.code === "MISSING_FIELDS")
              throw apiError("MISSING_FIELDS", { status: 422, message: `Required fields with no value sent or saved: ${res.fields.join(", ")}`, details: { fields: res.fields } });
            throw apiError("INVALID_FIELDS", {
              status: 422,
              message: res.issues.map((i) => `${i.path}: ${i.message}`).join("; "),
              details: { fields: res.fields, issues: res.issues },
            });
          }
          const state = await repo.get(c.auth.company.id, c.auth.environment, def.name);
          return res.created ? created(present(c, def, state)) : ok(present(c, def, state));
        },
      )
      .patch(
        "/:name",
        { summary: `Turn the ${kind} on or off for both environments (live key; credentials saved in live first)`, access: toggle, body: api.SwitchSettings, read: (b, c) => ({ def: find(c), enabled: enabledOf(b) }), validationStatus: 422, tags },
        async (c) => {
          const { def, enabled } = c.body;
          const res = await command<EnableDecision>(c, { type: "setEnabled", name: def.name, enabled });
          if (!res.ok)
            throw apiError("NOT_CONFIGURED", {
              message: `Save ${def.name}'s credentials for the ${c.auth.environment} environment before turning it on or off`,
              details: { name: def.name, environment: c.auth.environment },
            });
          return ok(present(c, def, await repo.get(c.auth.company.id, c.auth.environment, def.name)));
        },
      )
      .post("/:name/test", { summary: `Test the connection with the key's environment's credentials; a failed test is 200 with success: false`, access: test, tags }, async (c) => {
        const def = find(c);
        const companyId = c.auth.company.id;
        const env = c.auth.environment;
        let credentials: Record<string, string> | null = null;
        try {
          credentials = await repo.credentials(companyId, env, def.name);
        } catch (e) {
          unreadable(e);
        }
        if (!credentials)
          throw apiError("NOT_CONFIGURED", { message: `No credentials are saved for ${def.name} in the ${env} environment`, details: { name: def.name, environment: env } });
        const outcome = await runTest(tester, def, env, credentials, deps.log);
        const testedAt = deps.clock();
        await command<boolean>(c, { type: "recordTest", name: def.name, result: outcome, testedAt });
        return ok({
          success: outcome.success,
          message: outcome.message,
          testedAt: new Date(testedAt).toISOString(),
          ...(outcome.success ? {} : { error: outcome.error }),
        });
      }),
  );
}

export function providerRoutes(kit: ApiKit, deps: ProviderRouteDeps) {
  return new Elysia({ normalize: false }).use(settingsGroup(kit, "provider", deps)).use(settingsGroup(kit, "integration", deps));
}
