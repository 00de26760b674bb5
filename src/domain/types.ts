// Words shared by every resource.
export type Environment = "test" | "live";
export const ENVIRONMENTS: readonly Environment[] = ["test", "live"];

export function isEnvironment(s: unknown): s is Environment {
  return s === "test" || s === "live";
}
