import Storage
import UseCases

/// Which release added which migrations, and which earlier release may keep serving beside the
/// schema of each (docs/OPERATING.md "Upgrading"). A release's migrations are those after the previous
/// release's `lastMigration`, up to its own; the newest release takes every later one.
/// `oldestBeside` is what the migrator records in `schema_releases`, so an older release that
/// starts later refuses (naming both releases) or runs beside.
public enum TollgateReleases {
    /// One release: its version, its last migration (nil for the newest: every later one), the
    /// oldest release that may serve beside its schema, and why.
    public struct Release: Sendable {
        public let name: String
        public let lastMigration: String?
        public let oldestBeside: String
        public let reason: String
    }

    /// Every release since migrations were listed, oldest first.
    public static let all: [Release] = [
        Release(
            name: "0.1.0", lastMigration: "0380_buyer_locale", oldestBeside: "0.1.0",
            reason: "every release before 0.2.0 called itself 0.1.0 and recorded no release; the last one "
                + "(commit 6fe3b65) refuses a schema with migrations it does not know"),
        Release(
            name: "0.2.0", lastMigration: "0473_retention_indexes", oldestBeside: "0.2.0",
            reason: "0.1.0 serves without the proofs of issue 40 and writes rows this release would read as "
                + "proven: a purchase linked without proof with no linked_without_proof, an account made "
                + "from a bare purchase with a generated password and no password_generated, an app user "
                + "joined through a code with no joined_through_purchase_id. Stop every 0.1.0 instance "
                + "before the first 0.2.0 one starts"),
        Release(
            name: "0.3.0", lastMigration: nil, oldestBeside: "0.2.0",
            reason: "its migrations only add (MigrationListTests checks it) and build indexes on tables that hold rows "
                + "CONCURRENTLY (Migration.index), so 0.2.0 instances keep serving while it migrates and until each is "
                + "replaced; scripts/test-upgrade runs the two side by side. The one index it drops (sessions_family, "
                + "CONCURRENTLY: Migration.dropIndex) 0.2.0 reads only when a refresh token is presented twice, and "
                + "then reads the table instead")
    ]

    /// The release this build is (`BuildInfo.version`) and the oldest that may run beside its schema.
    public static var current: SchemaRelease {
        let newest = all[all.count - 1]
        return SchemaRelease(name: newest.name, oldestBeside: newest.oldestBeside)
    }

    /// The release that added the migration `id`.
    public static func release(of id: String) -> String {
        all.first { release in release.lastMigration.map { id <= $0 } ?? true }?.name ?? all[all.count - 1].name
    }

    /// The migrator every command uses: the service's migrations, run by this release.
    public static var migrator: Migrator {
        Migrator(migrations: TollgateMigrations.all, release: current)
    }
}
