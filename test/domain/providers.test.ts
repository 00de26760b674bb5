// Part 2 "Provider and integration settings" and Part 3 "Settings of …", "Callback paths": the nine definitions and the PUT rules, as pure functions.
import { test, expect, describe } from "bun:test";
import {
  INTEGRATIONS,
  PROVIDERS,
  callbackPaths,
  checkSettingsBody,
  configuredFields,
  definition,
  definitionOf,
  definitions,
  isHttpsOrigin,
  mergeCredentials,
  parseDiscoveryCodes,
  secretFields,
  type ProviderDef,
  type SettingsDef,
} from "../../src/domain/providers/catalog.ts";
import { createTester, defaultTester } from "../../src/adapters/providers/tester.ts";

const keys = (d: SettingsDef) => d.fields.map((f) => f.key);
const required = (d: SettingsDef) => d.fields.filter((f) => f.required).map((f) => f.key);
const provider = (name: string) => definition("provider", name)!;
const integration = (name: string) => definition("integration", name)!;

const E = {
  apiKey: "e-api-key",
  vaspCode: "VASPCODE01",
  privateKey: "ab".repeat(32),
  bridgePublicKey: "04" + "cd".repeat(64),
  callbackBaseUrl: "https://vasp.example.com",
};

describe("the nine definitions", () => {
  test("providers provider_a … provider_e, integrations screening_a … screening_d; any other name (or the other kind's) has none", () => {
    expect(PROVIDERS.map((p) => p.name).sort()).toEqual(["provider_a", "provider_b", "provider_c", "provider_d", "provider_e"]);
    expect(INTEGRATIONS.map((i) => i.name)).toEqual(["screening_a", "screening_b", "screening_c", "screening_d"]);
    for (const bad of ["provider_f", "PROVIDER_A", "screening_a", "", "__proto__", "constructor", "provider_a "]) expect(definition("provider", bad)).toBeUndefined();
    for (const bad of ["provider_a", "screening_e", "toString"]) expect(definition("integration", bad)).toBeUndefined();
  });

  test("Part 1: a provider's protocol equals its name; priorities are distinct and order the list", () => {
    for (const p of PROVIDERS) expect(p.protocol).toBe(p.name);
    const list = definitions("provider") as ProviderDef[];
    expect(list.map((p) => p.priority)).toEqual([1, 2, 3, 4, 5]);
    expect(list.map((p) => p.name)).toEqual(["provider_a", "provider_b", "provider_e", "provider_c", "provider_d"]);
  });

  test("Part 3 types: screening_c sanctions, screening_d blockchain_analytics; the designed ones use the other Part 2 types", () => {
    expect(Object.fromEntries(INTEGRATIONS.map((i) => [i.name, i.type]))).toEqual({
      screening_a: "blockchain_analytics",
      screening_b: "kyc",
      screening_c: "sanctions",
      screening_d: "blockchain_analytics",
    });
  });

  test("every field has a key, label, a Part 2 type and required; options exactly on select fields; keys unique", () => {
    for (const d of [...PROVIDERS, ...INTEGRATIONS]) {
      expect(new Set(keys(d)).size).toBe(d.fields.length);
      for (const f of d.fields) {
        expect(f.key).toMatch(/^[a-z][A-Za-z]+$/);
        expect(f.label.length).toBeGreaterThan(0);
        expect(["text", "password", "textarea", "select"]).toContain(f.type);
        expect(typeof f.required).toBe("boolean");
        if (f.type === "select") expect(f.options!.length).toBeGreaterThan(1);
        else expect(f.options).toBeUndefined();
      }
    }
  });

  test("display names and descriptions are generic: no brand behind the spec's names", () => {
    const brands = /notabene|codevasp|code vasp|sygna|veriscope|shyft|complyadvantage|comply advantage|crystal|chainalysis|elliptic|sumsub|trisa|openvasp/i;
    for (const d of [...PROVIDERS, ...INTEGRATIONS]) {
      const text = [d.displayName, d.description, d.kind === "provider" ? d.protocolLabel : d.type, ...d.fields.flatMap((f) => [f.label, f.help ?? "", f.placeholder ?? ""])].join(" ");
      expect(text).not.toMatch(brands);
    }
    expect(PROVIDERS.map((p) => p.displayName)).toEqual(["Provider A", "Provider B", "Provider E", "Provider C", "Provider D"]);
    expect(INTEGRATIONS.map((p) => p.displayName)).toEqual(["Screening A", "Screening B", "Screening C", "Screening D"]);
  });
});

describe("Part 3 settings, field by field", () => {
  test("provider_a: apiUrl, clientId, clientSecret, vaspDid, webhookSecret, all five required; secrets clientSecret and webhookSecret", () => {
    const d = provider("provider_a");
    expect(keys(d)).toEqual(["apiUrl", "clientId", "clientSecret", "vaspDid", "webhookSecret"]);
    expect(required(d)).toEqual(keys(d));
    expect(secretFields(d)).toEqual(["clientSecret", "webhookSecret"]);
    expect(d.fields.map((f) => f.label)).toEqual(["API region", "Client ID", "Client secret", "Entity DID", "Signing secret"]);
  });

  test("provider_b: apiUrl, vaspEntityId, privateKey, legalName, country, all five required; only privateKey is secret", () => {
    const d = provider("provider_b");
    expect(keys(d)).toEqual(["apiUrl", "vaspEntityId", "privateKey", "legalName", "country"]);
    expect(required(d)).toEqual(keys(d));
    expect(secretFields(d)).toEqual(["privateKey"]);
    expect(d.fields.map((f) => f.type)).toEqual(["text", "text", "password", "text", "text"]);
  });

  test("provider_e: five required, discoveryVaspCodes optional; apiKey and privateKey secret", () => {
    const d = provider("provider_e");
    expect(keys(d)).toEqual(["apiKey", "vaspCode", "privateKey", "bridgePublicKey", "callbackBaseUrl", "discoveryVaspCodes"]);
    expect(required(d)).toEqual(["apiKey", "vaspCode", "privateKey", "bridgePublicKey", "callbackBaseUrl"]);
    expect(secretFields(d)).toEqual(["apiKey", "privateKey"]);
  });

  test("screening_c: apiKey (secret, required), region eu/us/apac, fuzziness; labels as Part 3 gives them", () => {
    const d = integration("screening_c");
    expect(d.fields.map((f) => [f.key, f.label, f.required])).toEqual([
      ["apiKey", "Search API key", true],
      ["region", "Account region (default EU)", false],
      ["fuzziness", "Name fuzziness", false],
    ]);
    expect(secretFields(d)).toEqual(["apiKey"]);
    expect(d.fields[1].options!.map((o) => o.value)).toEqual(["eu", "us", "apac"]);
  });

  test("screening_d: apiKey (secret, required), entityList optional true/false", () => {
    const d = integration("screening_d");
    expect(d.fields.map((f) => [f.key, f.required])).toEqual([
      ["apiKey", true],
      ["entityList", false],
    ]);
    expect(secretFields(d)).toEqual(["apiKey"]);
  });

  test("designed (not shown in Part 3): provider_c, provider_d, screening_a, screening_b each have a secret and a required field", () => {
    for (const d of [provider("provider_c"), provider("provider_d"), integration("screening_a"), integration("screening_b")]) {
      expect(secretFields(d).length).toBeGreaterThan(0);
      expect(required(d).length).toBeGreaterThan(0);
    }
    expect(keys(provider("provider_c"))).toEqual(["apiUrl", "apiToken", "trustAnchorAddress", "trustAnchorPrivateKey", "webhookSecret"]);
    expect(keys(provider("provider_d"))).toEqual(["baseUrl", "legalName", "lei", "tlsCertificate", "tlsPrivateKey", "clientCaCertificates", "counterparties"]);
    expect(secretFields(provider("provider_d"))).toEqual(["tlsPrivateKey"]);
    expect(keys(integration("screening_a"))).toEqual(["apiKey", "region"]);
    expect(keys(integration("screening_b"))).toEqual(["apiToken", "secretKey", "levelName"]);
  });
});

describe("Part 3 callback paths", () => {
  const id = "prv_01m838662q53vhb2ds910170ey";
  test("provider_a and provider_d: one POST path; provider_c: …/incoming", () => {
    expect(callbackPaths(provider("provider_a") as ProviderDef, "live", id)).toEqual([{ method: "POST", path: `/api/system/trp/provider_a/live/${id}`, label: "Webhook events" }]);
    expect(callbackPaths(provider("provider_d") as ProviderDef, "test", id).map((c) => [c.method, c.path])).toEqual([["POST", `/api/system/trp/provider_d/test/${id}`]]);
    expect(callbackPaths(provider("provider_c") as ProviderDef, "test", id).map((c) => [c.method, c.path])).toEqual([["POST", `/api/system/trp/provider_c/test/${id}/incoming`]]);
  });

  test("provider_e: one POST path per event (permission-request, address-validation, txid, cancel, cdd), not permission", () => {
    const paths = callbackPaths(provider("provider_e") as ProviderDef, "live", id);
    expect(paths.map((c) => c.path)).toEqual(["permission-request", "address-validation", "txid", "cancel", "cdd"].map((e) => `/api/system/trp/provider_e/live/${id}/${e}`));
    expect(new Set(paths.map((c) => c.method))).toEqual(new Set(["POST"]));
  });

  test("provider_b: each endpoint listed individually with its method under …/connections/<providerId>/", () => {
    const base = `/api/system/trp/provider_b/test/connections/${id}/`;
    expect(callbackPaths(provider("provider_b") as ProviderDef, "test", id).map((c) => `${c.method} ${c.path.replace(base, "")}`)).toEqual([
      "GET v1/vasp/health",
      "POST v1/beneficiary/VerifyAddress",
      "POST v1/beneficiary/transfer",
      "POST v1/beneficiary/transfer/txid",
      "POST v1/vasp/transfer/status",
      "PUT v1/vasp/transfer/status",
      "POST v1/verification/tx",
      "PUT v1/verification/tx",
    ]);
  });

  test("every path has a label; no template placeholder is left", () => {
    for (const p of PROVIDERS)
      for (const c of callbackPaths(p, "test", id)) {
        expect(c.label.length).toBeGreaterThan(0);
        expect(c.path).not.toMatch(/[{}]/);
      }
  });
});

describe("PUT body: VALIDATION_ERROR, then UNKNOWN_FIELDS", () => {
  const d = integration("screening_c");
  test.each([
    [undefined, [""]],
    [null, [""]],
    [[], [""]],
    ["text", [""]],
    [{}, ["credentials"]],
    [{ credentials: null }, ["credentials"]],
    [{ credentials: [] }, ["credentials"]],
    [{ credentials: "k" }, ["credentials"]],
    [{ credentials: { apiKey: 1 } }, ["credentials.apiKey"]],
    [{ credentials: { apiKey: null } }, ["credentials.apiKey"]],
    [{ credentials: {}, notes: 5 }, ["notes"]],
    [{ credentials: {}, notes: "x".repeat(2001) }, ["notes"]],
    [{ credentials: {}, enabled: true }, ["enabled"]],
    [{ credentials: { nope: 1 } }, ["credentials.nope"]],
  ])("%j → VALIDATION_ERROR on %j", (body, paths) => {
    const r = checkSettingsBody(d, body);
    expect(r.ok).toBe(false);
    if (r.ok || r.code !== "VALIDATION_ERROR") throw new Error("expected VALIDATION_ERROR");
    expect(r.issues.map((i) => i.path)).toEqual(paths);
  });

  test("keys the definition does not take → UNKNOWN_FIELDS naming each (own keys only: __proto__ is one)", () => {
    const r = checkSettingsBody(d, JSON.parse('{"credentials":{"apiKey":"k","apiSecret":"s","__proto__":"x"}}'));
    expect(r).toEqual({ ok: false, code: "UNKNOWN_FIELDS", fields: ["apiSecret", "__proto__"] });
  });

  test("blank values are left out (an empty value keeps the saved one); values are trimmed; notes: 2,000 characters allowed, null clears, absent keeps", () => {
    expect(checkSettingsBody(d, { credentials: { apiKey: "  k \n", region: "", fuzziness: "   " } })).toEqual({ ok: true, value: { credentials: { apiKey: "k" }, notes: undefined } });
    expect(checkSettingsBody(d, { credentials: {}, notes: null })).toEqual({ ok: true, value: { credentials: {}, notes: null } });
    const long = "é".repeat(2000);
    expect(checkSettingsBody(d, { credentials: {}, notes: long })).toEqual({ ok: true, value: { credentials: {}, notes: long } });
  });
});

describe("merge with the saved values: MISSING_FIELDS, then provider_e's INVALID_FIELDS", () => {
  test("required fields with no value sent or saved → MISSING_FIELDS in definition order", () => {
    const d = provider("provider_a");
    expect(mergeCredentials(d, { clientId: "c" }, null, 0)).toEqual({ ok: false, code: "MISSING_FIELDS", fields: ["apiUrl", "clientSecret", "vaspDid", "webhookSecret"] });
    const saved = { apiUrl: "u", clientId: "c", clientSecret: "s", vaspDid: "d", webhookSecret: "w" };
    expect(mergeCredentials(d, {}, saved, 0)).toEqual({ ok: true, values: saved });
    expect(mergeCredentials(d, { clientSecret: "s2" }, saved, 0)).toEqual({ ok: true, values: { ...saved, clientSecret: "s2" } });
  });

  test("provider_a, provider_b and the others: formats are not checked on save", () => {
    expect(mergeCredentials(provider("provider_a"), { apiUrl: "not a url", clientId: "c", clientSecret: "s", vaspDid: "x".repeat(300), webhookSecret: "no-prefix" }, null, 0).ok).toBe(true);
    expect(mergeCredentials(provider("provider_b"), { apiUrl: "http://x/y?z", vaspEntityId: "!!", privateKey: "not base64", legalName: "L", country: "nl" }, null, 0).ok).toBe(true);
    expect(mergeCredentials(integration("screening_c"), { apiKey: "k", region: "mars", fuzziness: "2" }, null, 0).ok).toBe(true);
    expect(mergeCredentials(integration("screening_d"), { apiKey: "k", entityList: "maybe" }, null, 0).ok).toBe(true);
  });

  test("provider_e: valid values pass; configuredFields names those holding a value", () => {
    const d = provider("provider_e");
    const r = mergeCredentials(d, E, null, 0);
    expect(r).toEqual({ ok: true, values: E });
    expect(configuredFields(d, E)).toEqual(["apiKey", "vaspCode", "privateKey", "bridgePublicKey", "callbackBaseUrl"]);
    for (const codes of ["*", "VASPCODE02", "VASPCODE02, VASP_CODE-3\nVASPCODE04", Array.from({ length: 500 }, (_, i) => `VASPCODE${i}`).join(",")])
      expect(mergeCredentials(d, { ...E, discoveryVaspCodes: codes }, null, 0).ok).toBe(true);
  });

  test.each([
    ["vaspCode", "VASP7", "VASP7"],
    ["vaspCode", "65 characters", "x".repeat(65)],
    ["vaspCode", "VASP CODE1", "VASP CODE1"],
    ["vaspCode", "VASPCODÉ1", "VASPCODÉ1"],
    ["privateKey", "62 hex", "ab".repeat(31)],
    ["privateKey", "0x and 62 hex", "0x" + "ab".repeat(31)],
    ["privateKey", "64 non-hex", "zz".repeat(32)],
    ["bridgePublicKey", "starting 03", "03" + "cd".repeat(64)],
    ["bridgePublicKey", "66 hex", "04" + "cd".repeat(32)],
    ["bridgePublicKey", "130 with non-hex", "04" + "cd".repeat(63) + "zz"],
    ["callbackBaseUrl", "http://vasp.example.com", "http://vasp.example.com"],
    ["callbackBaseUrl", "https://vasp.example.com/trp", "https://vasp.example.com/trp"],
    ["callbackBaseUrl", "https://vasp.example.com?x=1", "https://vasp.example.com?x=1"],
    ["callbackBaseUrl", "https://vasp.example.com#f", "https://vasp.example.com#f"],
    ["callbackBaseUrl", "https://user:pw@vasp.example.com", "https://user:pw@vasp.example.com"],
    ["callbackBaseUrl", "vasp.example.com", "vasp.example.com"],
    ["discoveryVaspCodes", "*, VASPCODE02", "*, VASPCODE02"],
    ["discoveryVaspCodes", "VASPCODE02 short", "VASPCODE02 short"],
    ["discoveryVaspCodes", "501 codes", Array.from({ length: 501 }, (_, i) => `VASPCODE${i}`).join(" ")],
  ])("provider_e %s %p → INVALID_FIELDS naming it", (key, _label, value) => {
    const r = mergeCredentials(provider("provider_e"), { ...E, [key]: value }, null, 0);
    if (r.ok || r.code !== "INVALID_FIELDS") throw new Error(`expected INVALID_FIELDS, got ${JSON.stringify(r)}`);
    expect(r.fields).toEqual([key]);
    expect(r.issues[0].path).toBe(`credentials.${key}`);
    // The message never repeats the value.
    expect(r.issues[0].message).not.toContain(value);
  });

  test("several invalid values are all named; a missing one is MISSING_FIELDS first", () => {
    const r = mergeCredentials(provider("provider_e"), { ...E, vaspCode: "x", privateKey: "y" }, null, 0);
    expect(r.ok === false && r.code === "INVALID_FIELDS" && r.fields).toEqual(["vaspCode", "privateKey"]);
    const { apiKey: _omit, ...rest } = E;
    expect(mergeCredentials(provider("provider_e"), { ...rest, vaspCode: "x" }, null, 0)).toEqual({ ok: false, code: "MISSING_FIELDS", fields: ["apiKey"] });
  });

  test("saved values merge under sent ones before the check: an invalid saved list is replaced by *", () => {
    const d = provider("provider_e");
    expect(mergeCredentials(d, { discoveryVaspCodes: "*" }, { ...E, discoveryVaspCodes: "VASPCODE02" }, 0)).toEqual({ ok: true, values: { ...E, discoveryVaspCodes: "*" } });
  });
});

describe("value formats", () => {
  test.each([
    ["https://vasp.example.com", true],
    ["https://vasp.example.com/", true],
    ["https://vasp.example.com:8443", true],
    ["HTTPS://Vasp.Example.com", true],
    ["https://[::1]:8443", true],
    ["https://", false],
    ["https:///path", false],
    ["https://vasp.example.com//", false],
    ["https://vasp.example.com/?", false],
    ["https://vasp.example.com#", false],
    ["https://@vasp.example.com", false],
    ["https://vasp.example.com\\x", false],
    [" https://vasp.example.com", false],
    ["ftp://vasp.example.com", false],
  ])("isHttpsOrigin(%p) = %p", (text, expected) => {
    expect(isHttpsOrigin(text)).toBe(expected);
  });

  test("discovery codes: * or nothing is the whole directory; duplicates count once", () => {
    expect(parseDiscoveryCodes(undefined)).toEqual({ ok: true, codes: "*" });
    expect(parseDiscoveryCodes(" * ")).toEqual({ ok: true, codes: "*" });
    expect(parseDiscoveryCodes("VASPCODE02,VASPCODE02 VASPCODE03")).toEqual({ ok: true, codes: ["VASPCODE02", "VASPCODE03"] });
    const dup = Array.from({ length: 600 }, (_, i) => `VASPCODE${i % 500}`).join(",");
    expect(parseDiscoveryCodes(dup).ok).toBe(true);
  });
});

describe("connection tests", () => {
  test("without a registered test every name answers success false, NOT_IMPLEMENTED", async () => {
    for (const d of [...PROVIDERS, ...INTEGRATIONS])
      expect(await defaultTester(d.name, "test", {})).toEqual({ success: false, message: `Connection test for ${d.name} is not available yet`, error: "NOT_IMPLEMENTED" });
  });

  test("a registered test is called with the environment and credentials; the others stay NOT_IMPLEMENTED", async () => {
    const calls: unknown[] = [];
    const tester = createTester({
      provider_b: async (env, creds) => {
        calls.push([env, creds]);
        return { success: true, message: "Directory returned" };
      },
    });
    expect(await tester("provider_b", "live", { apiUrl: "https://x" })).toEqual({ success: true, message: "Directory returned" });
    expect(calls).toEqual([["live", { apiUrl: "https://x" }]]);
    expect((await tester("provider_a", "live", {})).error).toBe("NOT_IMPLEMENTED");
  });

  test("definitionOf and definitions agree", () => {
    for (const d of definitions("integration")) expect(definitionOf(d.name)).toBe(d);
  });
});
