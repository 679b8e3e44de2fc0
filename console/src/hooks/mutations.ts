/** What a set of controls shows of the mutations behind it. */
interface MutationState {
  error: Error | null;
  isPending: boolean;
  submittedAt: number;
}

/**
 * Several mutations behind one set of controls (add and remove, certify and check a code): busy
 * while any of them runs, and the error of the one submitted last, as a single action would show.
 */
export function together(...mutations: MutationState[]): { busy: boolean; error: Error | null } {
  const last = mutations.reduce((a, b) => (b.submittedAt > a.submittedAt ? b : a));
  return { busy: mutations.some((m) => m.isPending), error: last.error };
}
