import Domain
import Foundation
import Storage
import Testing

/// Migration 0410: every unconfirmed address becomes an address request (nothing lost), and the
/// random password of an account made from a bare purchase goes (issue 43 item 1).
@Suite("Address requests: the migration")
struct AddressRequestMigrationTests {
    @Test("Unconfirmed addresses move to requests, confirmed ones stay; generated passwords go, chosen ones stay")
    func migratesWithoutLoss() throws {
        let path = NSTemporaryDirectory() + "tollgate-address-" + UUID().uuidString + ".sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try SQLiteDatabase(path: path, readers: 1)
        defer { database.close() }
        _ = try Migrator(migrations: DomainMigrations.all.filter { $0.id < "0410" }).migrate(database)
        let rows: [(String, String?, Int, String?, String?, Int)] = [
            // id, email, email_verified, username, password_hash, session_generation
            ("acc_unconfirmed", "pending@example.com", 0, nil, nil, 0),
            ("acc_confirmed", "kept@example.com", 1, nil, "$scrypt$chosen", 0),
            ("acc_generated", nil, 0, "brave-otter-42", "$scrypt$random", 0),
            ("acc_reset", nil, 0, "calm-heron-7", "$scrypt$chosen-later", 1)
        ]
        try database.writeSync { connection in
            for (index, row) in rows.enumerated() {
                try connection.execute(
                    """
                    INSERT INTO accounts (id, obfuscated_id, email, email_verified, username, password_hash, session_generation, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, 1000, ?)
                    """,
                    [row.0, "obf-\(index)", row.1, row.2, row.3, row.4, row.5, 5000 + index])
            }
        }
        _ = try Migrator(migrations: DomainMigrations.all).migrate(database)
        let accounts = try database.readSync { connection in
            try rows.map { try AccountRepository.require(id: $0.0, on: connection) }
        }
        #expect(accounts[0].confirmedEmail == nil && accounts[0].requestedEmail == "pending@example.com")
        #expect(accounts[0].email == "pending@example.com" && !accounts[0].emailVerified, "the API still shows it, unconfirmed")
        #expect(try database.readSync { try AccountRepository.find(confirmedEmail: "pending@example.com", on: $0) } == nil)
        #expect(accounts[1].confirmedEmail == "kept@example.com" && accounts[1].requestedEmail == nil && accounts[1].hasPassword)
        #expect(!accounts[2].hasPassword, "a generated password nobody chose goes")
        #expect(accounts[3].hasPassword, "a password set since (its sessions were ended) may be a person's: it stays")
    }
}
