// Structured log lines on stderr. Secrets and personal data are never passed here.
export type LogLevel = "debug" | "info" | "warn" | "error";
export type Logger = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(min: LogLevel | "silent" = "info"): Logger {
  if (min === "silent") return () => {};
  const floor = order[min] ?? 20;
  return (level, msg, fields) => {
    if (order[level] < floor) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
    console.error(line);
  };
}
