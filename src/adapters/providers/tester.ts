// Connection tests (Part 2 `POST /api/v2/providers/:name/test`): the hook where provider and screening adapters plug in their test.
import type { Environment } from "../../domain/types.ts";
import type { SettingsName } from "../../domain/providers/catalog.ts";

/** A test's outcome. `error` is a code or short text, never a provider's raw body (Part 3: bodies can hold personal data). */
export interface TestOutcome {
  success: boolean;
  message: string;
  error?: string;
}

/** Connects with one environment's saved credentials (decrypted values by field key) and says whether it works. */
export type ConnectionTest = (env: Environment, credentials: Readonly<Record<string, string>>) => Promise<TestOutcome>;

/** What the settings routes call. */
export type ConnectionTester = (name: SettingsName, env: Environment, credentials: Readonly<Record<string, string>>) => Promise<TestOutcome>;

/** Adapters register their test by name here (for example `{ provider_b: providerBConnectionTest }`). */
export type ConnectionTests = Partial<Record<SettingsName, ConnectionTest>>;

export function createTester(testers: ConnectionTests): ConnectionTester {
  return async (name, env, credentials) => {
    const test = testers[name];
    if (!test) return { success: false, message: `Connection test for ${name} is not available yet`, error: "NOT_IMPLEMENTED" };
    return test(env, credentials);
  };
}

/** No adapter has registered a test yet: every name answers NOT_IMPLEMENTED. */
export const defaultTester: ConnectionTester = createTester({});
