import Domain
import Foundation
import Postgres
@testable import Storage
import Testing

/// `SQLConnection.executeDeferred` on the PostgreSQL backend: an error of a deferred statement is
/// the `StorageError` the statement would have thrown, the transaction rolls back, and the write
/// paths that defer what they do not read take fewer round trips.
@Suite struct PostgresDeferredWriteTests {
    static let table = Migration(id: "1", sql: "CREATE TABLE d (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)")

    @Test("A deferred statement's error is its own StorageError, at the next statement, and nothing is written")
    func deferredErrorAtTheNextStatement() async throws {
        let (database, _) = try await PostgresDatabaseTests.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: [Self.table]).migrate(database)
        try database.writeSync { try $0.execute("INSERT INTO d VALUES (?, ?)", [1, 0]) }

        let duplicate = "INSERT INTO d (id, n) VALUES (?, ?)"
        let error = #expect(throws: StorageError.self) {
            try database.writeSync { connection in
                try connection.executeDeferred("UPDATE d SET n = n + 1 WHERE id = ?", [1])
                try connection.executeDeferred(duplicate, [1, 5])
                _ = try connection.queryOne("SELECT n FROM d WHERE id = ?", [1])
            }
        }
        #expect(error?.sqlState == "23505")
        #expect(error?.sql == duplicate, "the error names the deferred statement that failed")
        #expect(try database.readSync { try $0.queryOne("SELECT n FROM d WHERE id = 1")?.int("n") } == 0, "the UPDATE rolled back")
    }

    @Test("A deferred statement's error at COMMIT is its own StorageError, and nothing is committed")
    func deferredErrorAtCommit() async throws {
        let (database, _) = try await PostgresDatabaseTests.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: [Self.table]).migrate(database)

        let refused = "INSERT INTO d (id, n) VALUES (?, NULL)"
        let error = #expect(throws: StorageError.self) {
            try database.writeSync { connection in
                try connection.executeDeferred("INSERT INTO d (id, n) VALUES (?, ?)", [2, 1])
                try connection.executeDeferred(refused, [3])
            }
        }
        #expect(error?.sqlState == "23502", "not-null violation")
        #expect(error?.sql == refused)
        #expect(try database.readSync { try $0.queryOne("SELECT count(*) AS n FROM d")?.int("n") } == 0)
        // The connections are usable afterwards.
        try database.writeSync { connection in try connection.executeDeferred("INSERT INTO d (id, n) VALUES (?, ?)", [4, 4]) }
        #expect(try database.readSync { try $0.queryOne("SELECT n FROM d WHERE id = 4")?.int("n") } == 4)
    }

    @Test("Two thirds of the connections serve writes: 8 writers and 4 readers of 12, 1 and 1 of 2")
    func writerShare() async throws {
        for (total, writers, readers) in [(12, 8, 4), (10, 6, 4), (3, 2, 1), (2, 1, 1)] {
            let (database, _) = try await PostgresDatabaseTests.freshDatabase(maxConnections: total)
            defer { database.close() }
            #expect(database.writerConnections == writers && database.readerConnections == readers, "max_connections \(total)")
        }
    }

    /// The transaction of a `customer.subscription.updated` webhook (`WebhookEvents.once` with
    /// `ApplyStripeEvent`'s effects): the event id's claim, then `PurchaseRepository.apply`, which
    /// tells the vouching check whether the purchase is stored from its own read. The claim and the
    /// key lock ride with that read (`FOR UPDATE`), its UPDATEs with COMMIT: the purchase's lock is
    /// held for two round trips. A repeated event is refused at that read and keeps nothing.
    @Test(
        "A subscription webhook's transaction takes 2 round trips (8 before statements were deferred, 5 with the read back, 4 with a lookup of its own for the vouching check, 3 with the event's insert a round trip of its own)"
    )
    func webhookTransactionRoundTrips() async throws {
        let (database, _) = try await PostgresDatabaseTests.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: DomainMigrations.all).migrate(database)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        func snapshot(_ status: PurchaseStatus, at date: Date) -> PurchaseSnapshot {
            PurchaseSnapshot(
                platform: .stripe, externalID: "sub_rt", productID: "price_monthly", status: status,
                expiresAt: date.addingTimeInterval(30 * 86400), observedAt: date, purchaserEmail: "jane@example.com")
        }
        func webhook(_ id: String, _ snapshot: PurchaseSnapshot) throws -> Int {
            let before = database.writeRoundTrips
            try database.writeSync(isolation: .readCommitted) { connection in
                try WebhookEventLog.claim(source: "stripe", eventID: id, type: "customer.subscription.updated", on: connection, now: t0)
                _ = try PurchaseRepository.apply(snapshot, on: connection, now: t0) { known in
                    try StripeVouching(prices: ["price_monthly"]).require(objectID: snapshot.externalID, priceID: snapshot.productID, known: known)
                }
            }
            return database.writeRoundTrips - before
        }
        _ = try webhook("evt_1", snapshot(.active, at: t0))
        let update = try webhook("evt_2", snapshot(.billingRetry, at: t0.addingTimeInterval(60)))
        #expect(update == 2, "event claim + lock + read, UPDATEs + COMMIT")
        let stored = try database.readSync { try PurchaseRepository.find(platform: .stripe, reference: "sub_rt", on: $0) }
        #expect(stored?.status == .billingRetry, "the deferred UPDATEs were committed")
        let repeated = #expect(throws: StorageError.self) { _ = try webhook("evt_2", snapshot(.expired, at: t0.addingTimeInterval(120))) }
        #expect(repeated.map(WebhookEventLog.isDuplicate) == true)
        let after = try database.readSync { try PurchaseRepository.find(platform: .stripe, reference: "sub_rt", on: $0) }
        #expect(after?.status == .billingRetry, "the repeat changed nothing")
    }
}
