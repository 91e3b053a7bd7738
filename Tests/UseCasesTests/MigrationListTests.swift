import App
import Crypto
import Foundation
import Storage
import Testing
import UseCases

/// The service's migration list is what every database has applied: moving where it is assembled,
/// or adding migrations, never changes the ones shipped. The shipped ones (up to `lastShipped`)
/// are pinned here by their ids, in order, and by a checksum of the schema they build on SQLite.
@Suite("Migrations: the shipped list is unchanged")
struct MigrationListTests {
    /// The newest migration when this test was written; later ones are checked by `MigrationUpgradeTests`.
    static let lastShipped = "0463"
    /// The shipped migrations' ids, in the order they are applied.
    static let shippedIDs = [
        "0100_mail_outbox", "0200_accounts", "0210_purchases", "0220_redemption_codes", "0230_operations", "0240_auth_tokens",
        "0250_session_selectors", "0260_session_generations", "0270_idempotency_replies_sealed", "0300_events",
        "0310_deletion_and_retention", "0320_web_sessions", "0330_purchase_renewal", "0340_reconcile", "0350_sign_in_codes",
        "0360_link_out", "0361_link_out_token_lookups", "0380_buyer_locale", "0400_install_secrets", "0410_address_requests",
        "0430_console", "0431_mail_recipient", "0440_buyer_journeys", "0441_duplicate_subscriptions", "0442_consumption_requests",
        "0450_app_store_receipts", "0460_code_sha256", "0461_sign_in_code_key_id", "0462_mail_parameters_key_id", "0463_sealed_key_ids"
    ]
    /// SHA-256 of `sqlite_master` (type, name, table, SQL; by type and name) after the shipped migrations.
    static let schemaChecksum = "bdb0542384bc1e74d58f911def559fcbcde93e844b78fae4b59797b376055de7"

    static func checksum(_ text: String) throws -> String { Hex.encode(try SHA256.hash(Array(text.utf8))) }

    @Test("The shipped migrations keep their ids, order and SQL")
    func shippedListUnchanged() throws {
        let shipped = TollgateMigrations.all.filter { String($0.id.prefix(4)) <= Self.lastShipped }
        let ids = shipped.map(\.id)
        #expect(ids == Self.shippedIDs)
        #expect(TollgateMigrations.all.prefix(ids.count).map(\.id) == ids, "a new migration sorts after every shipped one")
        let path = NSTemporaryDirectory() + "tollgate-migrations-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try SQLiteDatabase(path: path + "/list.sqlite")
        defer { database.close() }
        #expect(try Migrator(migrations: shipped).migrate(database) == ids)
        let schema = try database.readSync { connection in
            try connection.query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
                .map { row in try ["type", "name", "tbl_name", "sql"].map { try row.optionalString($0) ?? "" }.joined(separator: "|") }
        }
        let checksum = try Self.checksum(schema.joined(separator: "\n"))
        #expect(checksum == Self.schemaChecksum, "the shipped migrations now build a schema of checksum \(checksum)")
    }
}
