import { migratePostgres } from '../../src/postgres/migrate.ts';
import { openPostgres } from '../../src/postgres/open.ts';

/** The template that migrated databases are copied from: svc_template, migrated once per run. */
export const MIGRATED_TEMPLATE = 'svc_migrated';

/**
 * Makes MIGRATED_TEMPLATE on the cluster at `url` (its `svc` database), migrated by migratePostgres:
 * a copy of it is a migrated database, without migrating each of the run's many databases again.
 */
export async function prepareMigratedTemplate(url: string): Promise<void> {
  const admin = openPostgres(url, { poolSize: 1 });
  try {
    await admin.script(`CREATE DATABASE ${MIGRATED_TEMPLATE} TEMPLATE svc_template`);
    const target = new URL(url);
    target.pathname = `/${MIGRATED_TEMPLATE}`;
    const template = openPostgres(target.href, { poolSize: 1 });
    try {
      await migratePostgres(template);
    } finally {
      // No connection to a template may stay open while it is copied.
      await template.end();
    }
    await admin.script(`ALTER DATABASE ${MIGRATED_TEMPLATE} IS_TEMPLATE true`);
  } finally {
    await admin.end();
  }
}
