import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import {
  addAuthKey, addUrl, createApplication, deleteApplication, getApplication, listApplications, logoUpload, removeAuthKey, removeUrl, updateApplication,
  type UrlListName,
} from '../api/endpoints';
import type { Application, ApplicationChanges, NewApplication } from '../api/types';
import { useApi } from './context';
import { queryKeys } from './query-keys';
import { navigate } from './router';

export function useApplications() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.applications(), queryFn: () => listApplications(api) });
}

export function useApplication(id: string) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.application(id), queryFn: () => getApplication(api, id) });
}

/** Creates an application and opens its page. */
export function useCreateApplication() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewApplication) => createApplication(api, body),
    onSuccess: async (made) => {
      client.setQueryData<Application>(queryKeys.application(made.applicationId), made);
      await client.invalidateQueries({ queryKey: queryKeys.applications() });
      navigate(`/apps/${made.applicationId}`);
    },
  });
}

/** Reads the application again once a change of it is done. */
function useRefetchApplication(id: string) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: queryKeys.application(id) });
}

export function useUpdateApplication(id: string) {
  const api = useApi();
  return useMutation({ mutationFn: (changes: ApplicationChanges) => updateApplication(api, id, changes), onSuccess: useRefetchApplication(id) });
}

/** Uploads a logo to the URL the service signs, then sets it as the application's. */
export function useUploadLogo(id: string) {
  const api = useApi();
  return useMutation({
    mutationFn: async (file: File) => {
      const target = await logoUpload(api, id, { contentType: file.type });
      const put = await fetch(target.uploadUrl, { method: 'PUT', headers: { 'content-type': file.type }, body: file });
      if (!put.ok) throw new Error(`The logo upload was refused (${put.status})`);
      await updateApplication(api, id, { logoUrl: target.logoUrl });
    },
    onSuccess: useRefetchApplication(id),
  });
}

/** Adding (a JWK, as JSON text) and removing (by key ID) the application's auth keys. */
export function useAuthKeys(id: string) {
  const api = useApi();
  const onSuccess = useRefetchApplication(id);
  return {
    add: useMutation({
      mutationFn: async (jwkText: string) => {
        let key: unknown;
        try {
          key = JSON.parse(jwkText);
        } catch {
          throw new Error('The key must be a JSON Web Key (JSON).');
        }
        return addAuthKey(api, id, key);
      },
      onSuccess,
    }),
    remove: useMutation({ mutationFn: (kid: string) => removeAuthKey(api, id, kid), onSuccess }),
  };
}

/** Adding and removing the URLs of one of the application's lists (issuers, CORS origins). */
export function useUrlList(id: string, list: UrlListName) {
  const api = useApi();
  const onSuccess = useRefetchApplication(id);
  return {
    add: useMutation({ mutationFn: (url: string) => addUrl(api, id, list, url), onSuccess }),
    remove: useMutation({ mutationFn: (url: string) => removeUrl(api, id, list, url), onSuccess }),
  };
}

/** Deletes the application and returns to the list. */
export function useDeleteApplication(id: string) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => deleteApplication(api, id),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: queryKeys.applications() });
      navigate('/apps');
    },
  });
}
