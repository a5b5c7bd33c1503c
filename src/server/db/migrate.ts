import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely'
import { ExplainedError } from '~server/explained-error'
import * as accounts from '~server/db/migrations/0001_accounts'
import * as listsAndPictures from '~server/db/migrations/0002_lists_and_pictures'
import * as refreshRotationFunction from '~server/db/migrations/0003_refresh_rotation_function'
import * as startSessionFunction from '~server/db/migrations/0004_start_session_function'
import * as userSearchAnywhere from '~server/db/migrations/0005_user_search_anywhere'
import * as normalisedAddresses from '~server/db/migrations/0006_normalised_addresses'
import * as oneRefreshRotation from '~server/db/migrations/0007_one_refresh_rotation'
import * as accountSecurityColumns from '~server/db/migrations/0008_account_security_columns'
import * as sessionLastUse from '~server/db/migrations/0009_session_last_use'
import * as twoFactor from '~server/db/migrations/0010_two_factor'
import * as passkeys from '~server/db/migrations/0011_passkeys'
import * as adminListOrders from '~server/db/migrations/0012_admin_list_orders'
import * as invitationsAndAudit from '~server/db/migrations/0013_invitations_and_audit'
import * as signInWithAccounts from '~server/db/migrations/0014_sign_in_with_accounts'
import * as emailOrderCovering from '~server/db/migrations/0015_email_order_covering'
import * as activitySearchByWeek from '~server/db/migrations/0016_activity_search_by_week'
import * as signUpsByDay from '~server/db/migrations/0017_sign_ups_by_day'
import * as serviceApplications from '~server/db/migrations/0018_service_applications'
import * as identityProviders from '~server/db/migrations/0019_identity_providers'
import * as webhooks from '~server/db/migrations/0020_webhooks'
import * as importedAccounts from '~server/db/migrations/0021_imported_accounts'
import * as scimProvisioning from '~server/db/migrations/0022_scim_provisioning'
import * as samlSignIn from '~server/db/migrations/0023_saml_sign_in'
import * as passkeyConfirmationChallenges from '~server/db/migrations/0024_passkey_confirmation_challenges'
import * as deviceCodes from '~server/db/migrations/0026_device_codes'
import * as secondStepAfterAProvider from '~server/db/migrations/0028_second_step_after_a_provider'
import * as sessionStartWithItsMethod from '~server/db/migrations/0029_session_start_with_its_method'
import * as counterSlotPerConnection from '~server/db/migrations/0030_counter_slot_per_connection'
import * as webhookLeasesOutsideIndexes from '~server/db/migrations/0031_webhook_leases_outside_indexes'

/** Every migration, in order. Listed here (not read from disk) so the bundle and tsx agree. */
const migrations: Record<string, Migration> = {
  '0001_accounts': accounts,
  '0002_lists_and_pictures': listsAndPictures,
  '0003_refresh_rotation_function': refreshRotationFunction,
  '0004_start_session_function': startSessionFunction,
  '0005_user_search_anywhere': userSearchAnywhere,
  '0006_normalised_addresses': normalisedAddresses,
  '0007_one_refresh_rotation': oneRefreshRotation,
  '0008_account_security_columns': accountSecurityColumns,
  '0009_session_last_use': sessionLastUse,
  '0010_two_factor': twoFactor,
  '0011_passkeys': passkeys,
  '0012_admin_list_orders': adminListOrders,
  '0013_invitations_and_audit': invitationsAndAudit,
  '0014_sign_in_with_accounts': signInWithAccounts,
  '0015_email_order_covering': emailOrderCovering,
  '0016_activity_search_by_week': activitySearchByWeek,
  '0017_sign_ups_by_day': signUpsByDay,
  '0018_service_applications': serviceApplications,
  '0019_identity_providers': identityProviders,
  '0020_webhooks': webhooks,
  '0021_imported_accounts': importedAccounts,
  '0022_scim_provisioning': scimProvisioning,
  '0023_saml_sign_in': samlSignIn,
  '0024_passkey_confirmation_challenges': passkeyConfirmationChallenges,
  '0026_device_codes': deviceCodes,
  '0028_second_step_after_a_provider': secondStepAfterAProvider,
  '0029_session_start_with_its_method': sessionStartWithItsMethod,
  '0030_counter_slot_per_connection': counterSlotPerConnection,
  '0031_webhook_leases_outside_indexes': webhookLeasesOutsideIndexes,
}

/** A database that a newer release has migrated: this one does not know its schema. */
export class SchemaFromNewerReleaseError extends ExplainedError {}

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations }

/** The migrations by name, in order (tests of an upgrade that skips some). */
export const migrationNames = (): string[] => Object.keys(migrations).sort()

/** Brings the schema up to the named migration only (tests of a migration's effect on older data). */
export async function migrateUpTo<DB>(db: Kysely<DB>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name)
  if (error) throw error instanceof Error ? error : new Error(String(error))
}

/** Brings the schema up to date. Safe with several instances starting at once (Kysely locks). */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<void> {
  await refuseSchemaFromNewerRelease(db)
  // Numbers are given to capabilities before they land, so a later number can land first (0024
  // before 0019): a database that has it runs the earlier one when it arrives (decision 0017).
  const migrator = new Migrator({ db, provider: migrationProvider, allowUnorderedMigrations: true })
  const { error, results } = await migrator.migrateToLatest()
  const failed = results?.find((r) => r.status === 'Error')
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? '')
    throw new Error(`Database migration${failed ? ` ${failed.migrationName}` : ''} failed: ${reason}`)
  }
}

/**
 * Going back to an older release after a newer one migrated the database (a rollback of an
 * upgrade): the older code would run on tables it does not know. Refused in a sentence, before
 * anything is changed, where the migrator said only "corrupted migrations".
 */
async function refuseSchemaFromNewerRelease<DB>(db: Kysely<DB>): Promise<void> {
  const table = await sql<{ present: boolean }>`SELECT to_regclass('kysely_migration') IS NOT NULL AS present`.execute(db)
  if (!table.rows[0]?.present) return // a new database
  const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(db)
  const unknown = rows.map((row) => row.name).filter((name) => !(name in migrations))
  if (unknown.length === 0) return
  throw new SchemaFromNewerReleaseError(
    `The database was migrated by a newer release (${unknown.sort().join(', ')}, which this one does not know), so this release cannot run on it. ` +
      'Start the newer release again, or restore the backup taken before the upgrade. Nothing was changed.',
  )
}
