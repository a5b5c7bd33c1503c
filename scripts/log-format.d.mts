/** Types of scripts/log-format.mjs, for the server and the tests that use it. */
export type LogLevel = 'info' | 'warn' | 'error' | 'fatal'
export declare function logIsReadable(env?: Record<string, string | undefined>, stdout?: { isTTY?: boolean }): boolean
export declare function jsonLine(level: LogLevel, msg: string, fields?: Record<string, unknown>): string
export declare function say(
  level: LogLevel,
  message: string,
  options?: { fields?: Record<string, unknown>; text?: string; env?: Record<string, string | undefined> },
): void
export declare function warningsInLogFormat(env?: Record<string, string | undefined>): void
