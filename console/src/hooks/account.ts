import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useEffect } from 'preact/hooks';
import { certify, checkCode, forgetKey, isCertified, loadKey, sendCode } from '../api/browser-key';
import {
  changePassword, deleteAccount, getAccount, register, requestPasswordReset, resendVerification, resetPassword, signIn, signOut, updateAccount, verifyEmail,
} from '../api/endpoints';
import type { Body } from '../api/types';
import { useApi, useUserId } from './context';
import { queryKeys } from './query-keys';
import { navigate } from './router';

export function useAccount() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.account(), queryFn: () => getAccount(api) });
}

export const useSignIn = () => {
  const api = useApi();
  return useMutation({ mutationFn: (body: Body<'/auth/token', 'post'>) => signIn(api, body) });
};

export const useRegister = () => {
  const api = useApi();
  return useMutation({ mutationFn: (body: Body<'/auth/register', 'post'>) => register(api, body) });
};

export function useSignOut() {
  const api = useApi();
  return useMutation({ mutationFn: async () => {
    await signOut(api);
    navigate('/signin');
  } });
}

/** Verifies the email; shares held until then come in, so the lists are read again. */
export const useVerifyEmail = () => {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => verifyEmail(api, code),
    onSuccess: () => Promise.all([queryKeys.locks(), queryKeys.waitingShares(), queryKeys.account()].map((queryKey) => client.invalidateQueries({ queryKey }))),
  });
};

export const useRequestPasswordReset = () => {
  const api = useApi();
  return useMutation({ mutationFn: (email: string) => requestPasswordReset(api, { email }) });
};

export const useResetPassword = () => {
  const api = useApi();
  return useMutation({ mutationFn: (body: Body<'/account/password/reset/verify', 'post'>) => resetPassword(api, body) });
};

export function useUpdateDisplayName() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (displayName: string) => updateAccount(api, { displayName }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.account() }),
  });
}

export const useChangePassword = () => {
  const api = useApi();
  return useMutation({ mutationFn: (body: Body<'/account/password', 'post'>) => changePassword(api, body) });
};

export const useResendVerification = () => {
  const api = useApi();
  return useMutation({ mutationFn: () => resendVerification(api) });
};

/** Deletes the account, forgets this browser's key for it, and ends the session. */
export function useDeleteAccount() {
  const api = useApi();
  const userId = useUserId();
  return useMutation({ mutationFn: async () => {
    await deleteAccount(api);
    await forgetKey(userId);
    api.setSession(null);
    navigate('/signin?deleted=1');
  } });
}

/** This browser's key for the signed-in user (null before one is made). */
export function useBrowserKey() {
  const userId = useUserId();
  return useQuery({ queryKey: queryKeys.browserKey(userId), queryFn: async () => (await loadKey(userId)) ?? null });
}

/** Certification of this browser's key: `certify` answers 'needs-code' when the service asks for a code (423). */
export function useKeyCertification() {
  const api = useApi();
  const userId = useUserId();
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.browserKey(userId) });
  return {
    certify: useMutation({ mutationFn: () => certify(api, userId), onSuccess: refresh }),
    sendCode: useMutation({ mutationFn: () => sendCode(api, userId, 'EMAIL') }),
    checkCode: useMutation({ mutationFn: (code: string) => checkCode(api, userId, code), onSuccess: refresh }),
  };
}

/** Renews this browser's certificate before it expires (checked each minute while the console is open). */
export function useKeyRenewal(): void {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => {
    const check = async () => {
      const userId = api.userId();
      const key = userId ? await loadKey(userId) : undefined;
      if (!userId || !key?.chain || isCertified(key)) return;
      await certify(api, userId);
      await client.invalidateQueries({ queryKey: queryKeys.browserKey(userId) });
    };
    const timer = setInterval(() => void check().catch(() => undefined), 60_000);
    void check().catch(() => undefined);
    return () => clearInterval(timer);
  }, [api, client]);
}
