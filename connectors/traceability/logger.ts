/** The subset of pino's interface the client uses; pass a pino logger or anything shaped like it. */
export interface TraceabilityLogger {
  debug(obj: Record<string, unknown>, msg?: string): void;
  info(obj: Record<string, unknown>, msg?: string): void;
  warn(obj: Record<string, unknown>, msg?: string): void;
  error(obj: Record<string, unknown>, msg?: string): void;
}

const noop = (): void => undefined;
export const silentLogger: TraceabilityLogger = { debug: noop, info: noop, warn: noop, error: noop };
