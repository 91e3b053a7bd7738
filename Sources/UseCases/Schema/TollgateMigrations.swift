import Domain
import Mail
import Storage

/// Every migration of the service in one list, ordered by id. The ids of all the modules that own
/// migrations (Mail `01xx`, Domain `02xx`–`03xx`) are one sequence in the order they were written:
/// a new migration, whichever module it belongs to, takes the next number after the highest id of
/// them all, so it sorts after every migration an existing database has applied (the migrator
/// refuses one that would land before an applied one). Which release added each, and which release
/// may serve beside each release's schema: `TollgateReleases`.
public enum TollgateMigrations {
    /// The service's migrations, oldest first.
    public static let all: [Migration] = ordered([MailMigrations.all, DomainMigrations.all])

    /// The modules' lists merged in id order.
    public static func ordered(_ lists: [[Migration]]) -> [Migration] {
        lists.joined().sorted { $0.id < $1.id }
    }
}
