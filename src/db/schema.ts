import type { AlarmTables } from '../alarms/tables.js';
import type { AccountTables } from '../accounts/tables.js';
import type { ApplicationTables } from '../applications/tables.js';
import type { AuditTables } from '../audit/tables.js';
import type { CdnTables } from '../cdn/tables.js';
import type { CertificateTables } from '../certificates/tables.js';
import type { ExecuteTables } from '../operations/tables.js';
import type { KeypadTables } from '../keypad-codes/tables.js';
import type { LockTables } from '../locks/tables.js';
import type { SiteTables } from '../sites/tables.js';
import type { TileTables } from '../tiles/tables.js';
import type { TurnTables } from './turns.js';
import type { WebhookTables } from '../webhooks/tables.js';

/** Every table of the service, composed from the features that own them. */
export interface DatabaseSchema extends AccountTables, AlarmTables, SiteTables, LockTables, TileTables, AuditTables, ApplicationTables, CertificateTables, ExecuteTables, CdnTables, KeypadTables, WebhookTables, TurnTables {}
