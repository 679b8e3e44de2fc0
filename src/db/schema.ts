import type { AccountTables } from '../accounts/tables.js';

/** Every table of the service, composed from the features that own them. */
export interface DatabaseSchema extends AccountTables {}
