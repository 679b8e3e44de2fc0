/** The bus channel on which each committed audit entry is announced ({ seq, lockId }): event streams read on it, the checkpoint signer signs on it. */
export const AUDIT_CHANNEL = 'audit';
