import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import {
  createWebhook, deleteWebhook, listWebhookDeliveries, listWebhooks, redeliverWebhook, rotateWebhookSecret, sendTestWebhook, updateWebhook,
} from '../api/endpoints';
import type { NewWebhook, WebhookChanges } from '../api/types';
import { useApi } from './context';
import { queryKeys } from './query-keys';

export function useWebhooks() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.webhooks(), queryFn: async () => (await listWebhooks(api)).endpoints });
}

/** An endpoint's delivery log, read again every few seconds while shown (deliveries happen in the background). */
export function useWebhookDeliveries(id: string) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.webhookDeliveries(id), queryFn: async () => (await listWebhookDeliveries(api, id)).deliveries, refetchInterval: 3000 });
}

/** Every change to endpoints; the lists (and logs, under the same prefix) are read again after. */
export function useWebhookChanges() {
  const api = useApi();
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.webhooks() });
  return {
    create: useMutation({ mutationFn: (body: NewWebhook) => createWebhook(api, body), onSuccess: refresh }),
    update: useMutation({ mutationFn: ({ id, changes }: { id: string; changes: WebhookChanges }) => updateWebhook(api, id, changes), onSuccess: refresh }),
    remove: useMutation({ mutationFn: (id: string) => deleteWebhook(api, id), onSuccess: refresh }),
    rotate: useMutation({ mutationFn: (id: string) => rotateWebhookSecret(api, id), onSuccess: refresh }),
    test: useMutation({ mutationFn: (id: string) => sendTestWebhook(api, id), onSuccess: refresh }),
    redeliver: useMutation({ mutationFn: ({ id, deliveryId }: { id: string; deliveryId: string }) => redeliverWebhook(api, id, deliveryId), onSuccess: refresh }),
  };
}
