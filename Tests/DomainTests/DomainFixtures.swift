import Domain
import Foundation
import Storage
import TestSupport

/// A fresh migrated database in a temp folder (or a fresh schema, when the suites run on
/// PostgreSQL: see `TestDatabaseBackend`), removed on release.
final class TestDatabase: Sendable {
    let database: Database
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "tollgate-domain-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        database = try TestDatabaseBackend.makeMigrated(Migrator(migrations: DomainMigrations.all), sqlitePath: path + "/test.sqlite")
    }

    deinit {
        database.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    func write<T>(_ body: (Connection) throws -> T) throws -> T { try database.writeSync(body) }
}

enum Fixtures {
    static let secrets = try! DomainSecrets(secretKey: "domain-test-secret-0123456789abcdef0123")
    static let vault = try! CodeVault(secrets: secrets)
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func snapshot(
        _ id: String = "sub_1", status: PurchaseStatus = .active, expires: TimeInterval? = 30 * 86400, observed: TimeInterval = 0,
        email: String? = "Buyer@Example.com", product: String = "price_monthly"
    ) -> PurchaseSnapshot {
        PurchaseSnapshot(
            platform: .stripe, externalID: id, productID: product, status: status,
            expiresAt: expires.map { t0.addingTimeInterval($0) }, observedAt: t0.addingTimeInterval(observed),
            purchaserEmail: email, customerID: "cus_1")
    }
}
