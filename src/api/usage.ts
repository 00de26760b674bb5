// A mistake in how a command was called (CLI or console): printed as one line with the usage, exit code 2.
export class UsageError extends Error {
  override name = "UsageError";
}
