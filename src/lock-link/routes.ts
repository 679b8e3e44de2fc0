import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { sameSecret } from '../crypto/compare.js';
import { decideLogin, mayPublish, maySubscribe, type BrokerIdentity, type ServiceCredentials } from '../device-protocol/broker-policy.js';
import { isValidLockId } from '../device-protocol/topics.js';
import { errors } from '../errors/catalogue.js';
import { errorResponses } from '../http/schemas.js';
import { authenticateLockSecret } from '../locks/provision.js';

/**
 * The broker authentication hook (issue 16, docs/deployment.md §4): for brokers that ask an HTTP
 * service who may log in and what they may do (EMQX's HTTP authenticator and authoriser,
 * mosquitto-go-auth's HTTP backend). Answers from the lock records (id, device secret) and the
 * device protocol's topic rules; the service's own MQTT login (MQTT_URL's user) is a superuser.
 * Registered only when MQTT_AUTH_HOOK_SECRET is set, and every call must carry it
 * (`Authorization: Bearer <secret>`). A decommissioned lock is denied every topic, so a broker that
 * asks on each publish and delivery cuts it off while its connection lasts. Past 10 wrong device secrets a minute for a lock id, each
 * further wrong one is denied after a pause; the right one is always allowed.
 */

const HookBody = Type.Object({
  clientid: Type.Optional(Type.String({ maxLength: 256 })),
  username: Type.Optional(Type.String({ maxLength: 256 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  topic: Type.Optional(Type.String({ maxLength: 1024 })),
  /** EMQX: publish | subscribe (`all` is refused). */
  action: Type.Optional(Type.String({ maxLength: 16 })),
  /** mosquitto-go-auth: 1 read, 2 write, 3 read+write, 4 subscribe. */
  acc: Type.Optional(Type.Integer({ minimum: 0, maximum: 15 })),
});
type HookBody = Static<typeof HookBody>;

/** The pause before denying a wrong secret once its lock id is over the limit (well under brokers' hook timeouts). */
const LIMITED_REFUSAL_DELAY_MS = 1000;

const Result = Type.Object({ result: Type.Union([Type.Literal('allow'), Type.Literal('deny')]), is_superuser: Type.Optional(Type.Boolean()) });

/** The service's login on the external broker (MQTT_URL's user and password), or null: none. */
function serviceCredentials(ctx: AppContext): ServiceCredentials | null {
  if (ctx.config.mqtt.kind !== 'external') return null;
  const url = new URL(ctx.config.mqtt.url);
  return url.username === '' ? null : { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
}

/** Who the broker says a client is (it authenticated it): the service, a lock, or nobody we know. */
function identityOf(username: string | undefined, service: ServiceCredentials | null): BrokerIdentity | undefined {
  if (username === undefined) return undefined;
  if (service !== null && username === service.username) return { kind: 'service' };
  return isValidLockId(username) && username === username.toLowerCase() ? { kind: 'lock', lockId: username } : undefined;
}

/** Whether `identity` may do `access` on `topic` (go-auth bit flags; EMQX actions mapped onto them). */
export function mayAccess(identity: BrokerIdentity | undefined, topic: string, access: number, prefix: string): boolean {
  if (access === 0 || (access & ~7) !== 0) return false;
  // Reading a topic (a delivery) is allowed where subscribing is: a lock reads only its command and config.
  if ((access & (1 | 4)) !== 0 && !maySubscribe(identity, topic, prefix)) return false;
  if ((access & 2) !== 0 && !mayPublish(identity, topic, prefix)) return false;
  return true;
}

function accessOf(body: HookBody): number {
  if (body.acc !== undefined) return body.acc;
  if (body.action === 'publish') return 2;
  if (body.action === 'subscribe') return 4;
  return 0;
}

export function brokerAuthRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const secret = ctx.config.lockOps.authHookSecret;
    if (secret === null) return; // never reachable without a shared secret
    const expected = `Bearer ${secret}`;
    const service = serviceCredentials(ctx);
    const prefix = ctx.config.topicPrefix;
    const failures = ctx.limits.brokerHookFailuresPerLock;
    const guard = (request: FastifyRequest): void => {
      if (!sameSecret(request.headers.authorization ?? '', expected)) throw errors.unauthenticated('broker hook secret missing or wrong');
    };
    // A wrong secret past the limit for its lock id is denied only after a pause (slowing a guesser
    // down); the right secret is always checked and allowed at once, so failures at one lock id
    // cannot keep that lock offline (docs/decisions.md, as on the embedded broker).
    const authenticate = async (body: HookBody): Promise<{ allowed: boolean; superuser: boolean }> => {
      const username = body.username ?? '';
      const password = body.password === undefined ? undefined : Buffer.from(body.password, 'utf8');
      const decision = await decideLogin(body.clientid ?? '', body.username, password, service, (lockId, given) => authenticateLockSecret(ctx, lockId, given));
      if (decision.ok) return { allowed: true, superuser: decision.identity.kind === 'service' };
      const limited = await failures.consume(username).then(() => false, () => true);
      ctx.logger.warn({ username: username.slice(0, 64), reason: decision.reason, limited }, 'broker hook: login refused');
      if (limited) await sleep(LIMITED_REFUSAL_DELAY_MS);
      return { allowed: false, superuser: false };
    };
    const authorize = (body: HookBody): boolean => {
      const identity = identityOf(body.username, service);
      // A decommissioned lock still connected (the broker asked who may log in before): nothing in or out (./cut-off.ts).
      if (identity?.kind === 'lock' && ctx.link.isRetired(identity.lockId)) return false;
      return mayAccess(identity, body.topic ?? '', accessOf(body), prefix);
    };
    const common = { config: { auth: 'none' as const }, onRequest: async (request: FastifyRequest) => guard(request) };
    // A call without the shared secret is refused 401 by `guard`, whatever the hook.
    const schema = (summary: string) => ({ tags: ['broker'], summary, security: [], body: HookBody, response: { 200: Result, ...errorResponses(401) } });

    // EMQX: always 200, the verdict in the body.
    app.post('/mqtt-auth/authenticate', { ...common, schema: schema('EMQX HTTP authenticator') }, async (request) => {
      const { allowed, superuser } = await authenticate(request.body);
      return allowed ? { result: 'allow' as const, is_superuser: superuser } : { result: 'deny' as const };
    });
    app.post('/mqtt-auth/authorize', { ...common, schema: schema('EMQX HTTP authoriser') }, async (request) => ({ result: authorize(request.body) ? 'allow' as const : 'deny' as const }));

    // mosquitto-go-auth (auth_opt_http_response_mode status): 200 allows, 403 denies.
    const verdict = (allowed: boolean) => (allowed ? { status: 200 as const, body: { result: 'allow' as const } } : { status: 403 as const, body: { result: 'deny' as const } });
    const goSchema = (summary: string) => ({ tags: ['broker'], summary, security: [], body: HookBody, response: { 200: Result, 403: Result, ...errorResponses(401) } });
    app.post('/mqtt-auth/go-auth/user', { ...common, schema: goSchema('mosquitto-go-auth user check') }, async (request, reply) => {
      const { status, body } = verdict((await authenticate(request.body)).allowed);
      return reply.code(status).send(body);
    });
    app.post('/mqtt-auth/go-auth/superuser', { ...common, schema: goSchema('mosquitto-go-auth superuser check') }, async (request, reply) => {
      const { status, body } = verdict(identityOf(request.body.username, service)?.kind === 'service');
      return reply.code(status).send(body);
    });
    app.post('/mqtt-auth/go-auth/acl', { ...common, schema: goSchema('mosquitto-go-auth ACL check') }, async (request, reply) => {
      const { status, body } = verdict(authorize(request.body));
      return reply.code(status).send(body);
    });
  };
}
