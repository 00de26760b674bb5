// Which storage engines the tests are asked to run on: CARAVAN_TEST_ENGINES, a comma-separated list of `sqlite` and
// `postgres` (default `sqlite`). The storage contract suite (test/storage/contract/engines.ts) and the end-to-end
// files that exercise storage run once per engine listed. An engine asked for is run or fails: when `postgres` is
// listed and the server cannot be started (test/support/postgres.ts), the suite fails with the reason, never skips.

export const TEST_ENGINE_NAMES = ["sqlite", "postgres"] as const;
export type TestEngineName = (typeof TEST_ENGINE_NAMES)[number];

/** The engines CARAVAN_TEST_ENGINES asks for, in its order, each once; throws on a name it does not know. */
export function testEngines(value: string | undefined = process.env.CARAVAN_TEST_ENGINES): readonly TestEngineName[] {
  const raw = value === undefined || value.trim() === "" ? "sqlite" : value;
  const names: TestEngineName[] = [];
  for (const part of raw.split(",")) {
    const name = part.trim().toLowerCase();
    if (!(TEST_ENGINE_NAMES as readonly string[]).includes(name)) {
      throw new Error(`CARAVAN_TEST_ENGINES: ${JSON.stringify(part.trim())} is not an engine (known: ${TEST_ENGINE_NAMES.join(", ")}; got ${JSON.stringify(value)})`);
    }
    if (!names.includes(name as TestEngineName)) names.push(name as TestEngineName);
  }
  return names;
}
