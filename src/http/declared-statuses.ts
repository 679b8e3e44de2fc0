import type { HttpApp } from './http-app.js';
import { errors } from '../errors/catalogue.js';
import { errorBody } from './error-handler.js';

/**
 * For tests (as logto's koa-guard): every reply's status must be one its route declares. A route
 * with no response schema (unless hidden from the document) fails when it is declared; a reply of
 * an undeclared status becomes a 500 `undeclared_status` and is told to `onUndeclared`, so the
 * test that caused it can fail. Requests no route matched (404, 405) are not checked, nor a 500:
 * an internal error is no answer a route gives (nor documents), and a test that makes one on
 * purpose (a stored value that fails closed) must still see it.
 */
export function checkDeclaredStatuses(app: HttpApp, onUndeclared: (what: string) => void): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; response?: unknown } | undefined;
    if (schema?.hide !== true && schema?.response === undefined) throw new Error(`${String(route.method)} ${route.url} declares no response schema`);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const declared = (request.routeOptions.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined);
    if (declared?.response === undefined || declared.hide === true) return payload;
    const status = reply.statusCode;
    if (status === 500) return payload;
    if (String(status) in declared.response || `${Math.floor(status / 100)}XX` in declared.response || 'default' in declared.response) return payload;
    onUndeclared(`${request.method} ${request.routeOptions.url} answered ${status}, which it does not declare`);
    const error = errors.undeclaredStatus();
    reply.code(error.status).type('application/json; charset=utf-8');
    return JSON.stringify(errorBody(error));
  });
}
