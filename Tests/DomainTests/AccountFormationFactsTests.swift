import Domain
import Foundation
import Storage
import Testing

@Suite("The facts \"Formed by\" is judged on, read from the database")
struct AccountFormationFactsTests {
    /// The facts of `accountID` read whole, after checking that a caller holding the account's row
    /// (a repeat redemption's state query) reads the same from it and the rest.
    static func facts(_ db: TestDatabase, _ accountID: String) throws -> AccountFormation.Facts {
        try db.database.readSync { connection in
            let whole = try AccountFormation.Facts.read(accountID: accountID, on: connection)
            let names = AccountFormation.Facts.OwnRow.Names(alias: "a", prefix: "mine_")
            let row = try #require(try connection.queryOne("SELECT \(names.selectList) FROM accounts a WHERE a.id = ?", [accountID]))
            let fromRow = try AccountFormation.Facts.read(
                accountID: accountID, ownRow: AccountFormation.Facts.OwnRow(row: row, names: names), on: connection)
            #expect(fromRow == whole)
            return whole
        }
    }

    @Test("An account's row, purchases, members and grant come back whole, read alone or beside the row; an unknown account is not found")
    func readsEveryFact() throws {
        let db = try TestDatabase()
        let account = try db.write { try AccountRepository.findOrCreate(appUserID: "u1", secrets: Fixtures.secrets, on: $0, now: Fixtures.t0).0 }
        let first = try db.write { try PurchaseRepository.apply(Fixtures.snapshot("sub_1"), on: $0, now: Fixtures.t0).purchase }
        let second = try db.write { try PurchaseRepository.apply(Fixtures.snapshot("sub_2"), on: $0, now: Fixtures.t0).purchase }
        try db.write { connection in
            try connection.execute("UPDATE purchases SET account_id = ? WHERE id IN (?, ?)", [account.id, first.id, second.id])
            try connection.execute("UPDATE purchases SET linked_without_proof = 1 WHERE id = ?", [second.id])
            try connection.execute("UPDATE app_users SET joined_through_purchase_id = ? WHERE app_user_id = 'u1'", [first.id])
        }
        _ = try db.write { try AccountRepository.findOrCreate(appUserID: "u2", secrets: Fixtures.secrets, on: $0, now: Fixtures.t0) }
        try db.write { try $0.execute("UPDATE app_users SET account_id = ? WHERE app_user_id = 'u2'", [account.id]) }

        let facts = try Self.facts(db, account.id)
        #expect(
            facts.purchases.sorted { $0.id < $1.id }
                == [
                    .init(id: first.id, platform: .stripe, customerID: "cus_1", linkedWithoutProof: false),
                    .init(id: second.id, platform: .stripe, customerID: "cus_1", linkedWithoutProof: true)
                ].sorted { $0.id < $1.id })
        #expect(
            facts.members.sorted { $0.appUserID < $1.appUserID }
                == [.init(appUserID: "u1", joinedThroughPurchaseID: first.id), .init(appUserID: "u2", joinedThroughPurchaseID: nil)])
        #expect(!facts.hasConfirmedAddress && !facts.hasChosenPassword && !facts.isDeleted && !facts.hasManualGrant)

        try db.write { connection in
            try connection.execute(
                "INSERT INTO manual_entitlements (id, account_id, entitlement, ends_at, granted_by, reason, created_at) VALUES ('g1', ?, 'pro', 1, 'op', 'test', 1)",
                [account.id])
            try connection.execute(
                "UPDATE accounts SET email = 'a@example.com', email_verified = 1, password_hash = 'h', password_generated = 1, deleted_at = 5 WHERE id = ?",
                [account.id])
        }
        let changed = try Self.facts(db, account.id)
        #expect(changed.hasManualGrant && changed.hasConfirmedAddress && changed.isDeleted)
        #expect(!changed.hasChosenPassword, "a generated password is nobody's choice")
        try db.write { try $0.execute("UPDATE accounts SET password_generated = NULL WHERE id = ?", [account.id]) }
        #expect(try Self.facts(db, account.id).hasChosenPassword)

        #expect(throws: DomainError.self) { try db.database.readSync { try AccountFormation.Facts.read(accountID: "acct_none", on: $0) } }
    }
}
