// Preloaded before every test file (bunfig.toml): end-to-end tests start servers and child processes,
// which on a shared 2-core machine can take longer than bun's 5 s default. This is a hang guard, not a timing assertion.
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(60_000);
