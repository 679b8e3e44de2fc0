import type { Kysely, Migration } from 'kysely';

/**
 * Sites made in the console (issue 29): `owner_user_id` is the user who created the site through
 * the API and may rename it and put the locks they administer in it. Null for operators' sites
 * (`latchkey site create`), which stay the operators' to change; and when the owner's account goes.
 */
export function siteOwnersMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('sites').addColumn('owner_user_id', 'text', (c) => c.references('users.id').onDelete('set null')).execute();
    },
  };
}
