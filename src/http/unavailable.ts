import type { AppError} from '../errors/catalogue.js';
import { errors } from '../errors/catalogue.js';

/**
 * A thrown Redis connection failure (not a reply from Redis): the shared state is unreachable for
 * now, a 503 with Retry-After rather than a 500 (issue 17). ioredis says so by name or message only.
 */
export function unreachableDependencyToAppError(err: unknown): AppError | null {
  if (!(err instanceof Error)) return null;
  if (err.name === 'MaxRetriesPerRequestError' || /^(Connection is closed|Stream isn't writeable)/.test(err.message)) return errors.sharedStateUnavailable();
  return null;
}
