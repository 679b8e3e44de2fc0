import type { Kysely, Migration } from 'kysely';

/**
 * What a lock says it is and how its hardware is (device protocol 1.2): its kind and
 * capabilities from its presence, its battery, jam and tamper from its state reports. Null until
 * the lock says; a lock of protocol 1.1 never does.
 */
export function lockDeviceMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('device_kind', 'text').execute();
      await db.schema.alterTable('locks').addColumn('device_capabilities', 'text').execute();
      await db.schema.alterTable('locks').addColumn('battery', 'integer').execute();
      await db.schema.alterTable('locks').addColumn('jammed', 'integer').execute();
      await db.schema.alterTable('locks').addColumn('tamper', 'integer').execute();
    },
  };
}
