/** Signed operations already acted on (decisions §4 replay), kept until they expire. */
export interface UsedOperationTokensTable {
  lock_id: string;
  /** The token's jti, or the hash of its bytes (see replayKey). */
  replay_key: string;
  used_at: number;
  /** The token's exp: after it the token is refused anyway, so the row can go. */
  expires_at: number;
}

export interface ExecuteTables {
  used_operation_tokens: UsedOperationTokensTable;
}
