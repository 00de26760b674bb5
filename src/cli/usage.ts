// A mistake in how the CLI was called: printed as one line with the usage.
export class UsageError extends Error {
  override name = "UsageError";
}
