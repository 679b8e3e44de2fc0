import { useMutation, useQueries, useQueryClient } from '@tanstack/preact-query';
import { useEffect } from 'preact/hooks';
import { signEachAndSend } from '../api/browser-key';
import { changeCode, createCode, listCodes, revokeCode, sendCode } from '../api/endpoints';
import type { Hours, KeypadCode, SendCode } from '../api/types';
import { useApi, useLiveFeed, useUserId } from './context';
import { queryKeys } from './query-keys';

/**
 * Keypad codes (docs/keypad-codes.md) for a lock or a set of locks: every grant or removal is an
 * ADD_CODE or REMOVE_CODE per lock, signed here with this browser's key, as sharing is (all signed
 * again by the service's clock when it says this device's was off: signEachAndSend); the digits
 * are never in an operation and come back from the service only once, when it generated them.
 */

/** A code's terms, the same on every lock of it. */
export interface CodeTerms {
  start: number | null;
  end: number | null;
  schedule: Hours[] | null;
  maxUses: number | null;
}

export type CodeHolder = { user: string } | { guest: string };

/** Absent rather than null: the operation leaves out what does not apply. */
function termsOperation(terms: CodeTerms): Record<string, unknown> {
  return {
    ...(terms.start === null ? {} : { start: terms.start }),
    ...(terms.end === null ? {} : { end: terms.end }),
    ...(terms.schedule === null ? {} : { schedule: terms.schedule }),
    ...(terms.maxUses === null ? {} : { maxUses: terms.maxUses }),
  };
}

/** The codes of `lockIds` (each lock's list, merged: a code of several of them appears once, with each of its locks). */
export function useCodes(lockIds: readonly string[]) {
  const api = useApi();
  const client = useQueryClient();
  const live = useLiveFeed();
  const results = useQueries({
    queries: lockIds.map((lockId) => ({
      queryKey: queryKeys.codes(lockId),
      queryFn: () => listCodes(api, lockId),
      // A change waits for the lock to take its config: look again while one is pending.
      refetchInterval: (query: { state: { data?: KeypadCode[] } }) => (query.state.data?.some((c) => c.locks.some((l) => l.sync.state === 'pending')) ? 3_000 : 60_000),
    })),
  });
  // A keypad entry or a change of a code on one of these locks: read them again.
  useEffect(() => live.subscribe((entry) => {
    if (!lockIds.includes(entry.deviceId)) return;
    if (entry.type.startsWith('CODE_') || entry.type === 'DOOR_UNLOCK') void client.invalidateQueries({ queryKey: queryKeys.codes(entry.deviceId) });
  }), [live, client, lockIds.join(',')]);
  const codes = new Map<string, KeypadCode>();
  for (const result of results) for (const code of result.data ?? []) codes.set(code.id, codes.has(code.id) ? mergeLocks(codes.get(code.id)!, code) : code);
  return { codes: [...codes.values()].sort((a, b) => b.createdAt - a.createdAt), error: results.find((r) => r.error)?.error ?? null, loading: results.some((r) => r.isPending) };
}

function mergeLocks(a: KeypadCode, b: KeypadCode): KeypadCode {
  const known = new Set(a.locks.map((l) => l.lockId));
  return { ...a, locks: [...a.locks, ...b.locks.filter((l) => !known.has(l.lockId))] };
}

function useRefresh(lockIds: () => readonly string[]) {
  const client = useQueryClient();
  return () => Promise.all(lockIds().map((lockId) => client.invalidateQueries({ queryKey: queryKeys.codes(lockId) })));
}

export interface NewCodeRequest {
  holder: CodeHolder;
  terms: CodeTerms;
  /** Typed digits, or the length of generated ones. */
  digits: { typed: string } | { length: number };
}

/** Creates one code on every lock of `lockIds`: the created code, and its digits (typed, or generated and shown this once). */
export function useCreateCode(lockIds: readonly string[]) {
  const api = useApi();
  const me = useUserId();
  const refresh = useRefresh(() => lockIds);
  return useMutation({
    mutationFn: async (request: NewCodeRequest): Promise<{ code: KeypadCode; digits: string; generated: boolean }> => {
      const operation = { type: 'ADD_CODE', code: crypto.randomUUID(), ...request.holder, ...termsOperation(request.terms) };
      const created = await signEachAndSend(api, me, lockIds, operation, (tokens) => createCode(api, { tokens, ...('typed' in request.digits ? { digits: request.digits.typed } : { length: request.digits.length }) }));
      return { code: created.code, digits: 'typed' in request.digits ? request.digits.typed : (created.digits ?? ''), generated: !('typed' in request.digits) };
    },
    onSuccess: refresh,
  });
}

const holderOf = (code: KeypadCode): CodeHolder => (code.holder.kind === 'member' ? { user: code.holder.userId! } : { guest: code.holder.name ?? '' });

/** The code's locks the caller administers that still carry it (a revoked or used-up place is gone). */
export const placedLocks = (code: KeypadCode) => code.locks.filter((l) => l.status !== 'revoked' && l.status !== 'used_up').map((l) => l.lockId);

/** New terms for a code: an ADD_CODE for each lock it is on. */
export function useChangeCode(code: KeypadCode) {
  const api = useApi();
  const me = useUserId();
  const refresh = useRefresh(() => code.locks.map((l) => l.lockId));
  return useMutation({
    mutationFn: (terms: CodeTerms) => signEachAndSend(api, me, placedLocks(code), { type: 'ADD_CODE', code: code.id, ...holderOf(code), ...termsOperation(terms) }, (tokens) => changeCode(api, code.id, tokens)),
    onSuccess: refresh,
  });
}

/** Takes the code off every lock of it the caller administers: a REMOVE_CODE each. */
export function useRevokeCode(code: KeypadCode) {
  const api = useApi();
  const me = useUserId();
  const refresh = useRefresh(() => code.locks.map((l) => l.lockId));
  return useMutation({
    mutationFn: () => signEachAndSend(api, me, placedLocks(code), { type: 'REMOVE_CODE', code: code.id }, (tokens) => revokeCode(api, code.id, tokens)),
    onSuccess: refresh,
  });
}

/** Emails a code just created to its holder, with the digits this browser still holds. */
export function useSendCode(codeId: string) {
  const api = useApi();
  return useMutation({ mutationFn: (body: SendCode) => sendCode(api, codeId, body) });
}
