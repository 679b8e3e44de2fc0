import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { errorResponses } from '../http/schemas.js';
import { presentDelivery, presentEndpoint } from './presenters.js';
import {
  CreateWebhookBody, DeliveriesQuery, Delivery, DeliveryList, DeliveryParams, RotatedSecret, TestEventResponse, UpdateWebhookBody, WebhookEndpoint,
  WebhookEndpointList, WebhookEndpointWithSecret, WebhookIdParams,
} from './schemas.js';
import { changeEndpoint, createEndpoint, listDeliveries, listEndpoints, readEndpoint, redeliver, removeEndpoint, rotateSecret, sendTestEvent } from './service.js';

const tags = ['webhooks'];

/** Webhook endpoints and their delivery log (issue 32; docs/webhooks.md). */
export function webhookRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/webhook', {
      schema: { tags, summary: 'Add a webhook endpoint: yours (the locks you administer) or an application\'s you own; its secret is shown once', body: CreateWebhookBody, response: { 201: WebhookEndpointWithSecret, ...errorResponses(400, 401, 403, 404, 409) } },
      handler: async (request, reply) => {
        const { endpoint, secret } = await createEndpoint(ctx, request.caller, request.body);
        return reply.code(201).send({ ...presentEndpoint(endpoint), secret });
      },
    });
    app.get('/webhook', {
      schema: { tags, summary: 'Your webhook endpoints and those of the applications you own', response: { 200: WebhookEndpointList, ...errorResponses(401) } },
      handler: async (request) => ({ endpoints: (await listEndpoints(ctx, request.caller)).map(presentEndpoint) }),
    });
    app.get('/webhook/:webhookId', {
      schema: { tags, summary: 'A webhook endpoint', params: WebhookIdParams, response: { 200: WebhookEndpoint, ...errorResponses(401, 404) } },
      handler: async (request) => presentEndpoint(await readEndpoint(ctx, request.caller, request.params.webhookId)),
    });
    app.put('/webhook/:webhookId', {
      schema: { tags, summary: 'Change a webhook endpoint (the fields given)', params: WebhookIdParams, body: UpdateWebhookBody, response: { 200: WebhookEndpoint, ...errorResponses(400, 401, 404) } },
      handler: async (request) => presentEndpoint(await changeEndpoint(ctx, request.caller, request.params.webhookId, request.body)),
    });
    app.delete('/webhook/:webhookId', {
      schema: { tags, summary: 'Delete a webhook endpoint and its delivery log', params: WebhookIdParams, response: { 204: Type.Null(), ...errorResponses(401, 404) } },
      handler: async (request, reply) => {
        await removeEndpoint(ctx, request.caller, request.params.webhookId);
        return reply.code(204).send(null);
      },
    });
    app.post('/webhook/:webhookId/secret', {
      schema: { tags, summary: 'Rotate the signing secret: the new one is shown once; the old one keeps signing beside it for a while', params: WebhookIdParams, response: { 200: RotatedSecret, ...errorResponses(401, 404) } },
      handler: async (request) => rotateSecret(ctx, request.caller, request.params.webhookId),
    });
    app.get('/webhook/:webhookId/deliveries', {
      schema: { tags, summary: 'The delivery log: deliveries newest first, each with its attempts (status, latency, start of the answer)', params: WebhookIdParams, querystring: DeliveriesQuery, response: { 200: DeliveryList, ...errorResponses(400, 401, 404) } },
      handler: async (request) => {
        const page = await listDeliveries(ctx, request.caller, request.params.webhookId, request.query);
        return { deliveries: page.rows.map(({ delivery, attempts }) => presentDelivery(delivery, attempts)), next: page.next };
      },
    });
    app.post('/webhook/:webhookId/deliveries/:deliveryId/redeliver', {
      schema: { tags, summary: 'Send a delivery again, at once, with a new retry window', params: DeliveryParams, response: { 200: Delivery, ...errorResponses(401, 404) } },
      handler: async (request) => presentDelivery(await redeliver(ctx, request.caller, request.params.webhookId, request.params.deliveryId), []),
    });
    app.post('/webhook/:webhookId/test', {
      schema: { tags, summary: 'Send a webhook.test event to the endpoint', params: WebhookIdParams, response: { 202: TestEventResponse, ...errorResponses(401, 404) } },
      handler: async (request, reply) => reply.code(202).send({ deliveryId: await sendTestEvent(ctx, request.caller, request.params.webhookId) }),
    });
  };
}
