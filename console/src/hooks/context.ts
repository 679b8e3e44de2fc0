import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from '../api/client';
import type { LiveEntry } from '../api/types';

/** Hands live audit entries from the one event stream to the pages that show them. */
export interface LiveEntries {
  publish(entry: LiveEntry): void;
  subscribe(listener: (entry: LiveEntry) => void): () => void;
}

export function createLiveEntries(): LiveEntries {
  const listeners = new Set<(entry: LiveEntry) => void>();
  return {
    publish: (entry) => listeners.forEach((listener) => listener(entry)),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** What the app's entry builds once and every hook reaches: the API client and the live entries. */
export interface ConsoleServices {
  api: ApiClient;
  live: LiveEntries;
}

export const ConsoleContext = createContext<ConsoleServices | null>(null);

function useServices(): ConsoleServices {
  const services = useContext(ConsoleContext);
  if (!services) throw new Error('the console renders inside startConsole()');
  return services;
}

export const useApi = (): ApiClient => useServices().api;
export const useLiveFeed = (): LiveEntries => useServices().live;
/** The signed-in user's id ('' when signed out). */
export const useUserId = (): string => useServices().api.userId() ?? '';
