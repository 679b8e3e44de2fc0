/**
 * The one error type the service throws on purpose. `status` is the HTTP status, `code` may be a
 * decimal minor code (409.1) per decisions §1, `error` a stable machine-readable string, and
 * `message` is safe to show to the caller.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: number;
  readonly error: string;
  readonly headers: Record<string, string>;

  constructor(status: number, error: string, message: string, options: { code?: number; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = options.code ?? status;
    this.error = error;
    this.headers = options.headers ?? {};
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
