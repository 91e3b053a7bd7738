import App
import Domain
import Foundation
import Logging
import Mail
import Storage
import Synchronization
import TestSupport
@testable import UseCases

/// A migrated database in a temp folder and the parts use cases are built from, with a clock
/// the test moves. No HTTP anywhere.
final class UseCaseBench: Sendable {
    let database: Database
    let path: String
    let secrets = try! DomainSecrets(secretKey: "use-case-test-secret-0123456789abcdef")
    let clock = TestClock()
    let wakes = WakeCounter()

    /// - Parameter connections: on PostgreSQL, the most connections open at once (half of them
    ///   writers), for tests of concurrent writers; nil for the suites' usual few.
    init(connections: Int? = nil) throws {
        path = NSTemporaryDirectory() + "tollgate-usecases-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if let connections, let url = try TestDatabaseBackend.freshPostgresURL() {
            database = try PostgresDatabase(url: url, maxConnections: connections)
            _ = try Migrator(migrations: TollgateMigrations.all).migrate(database)
        } else {
            database = try TestDatabaseBackend.makeMigrated(Migrator(migrations: TollgateMigrations.all), sqlitePath: path + "/test.sqlite")
        }
    }

    deinit {
        database.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    var now: Date { clock.now }
    func advance(_ seconds: TimeInterval) { clock.advance(seconds) }
    var nowFunction: @Sendable () -> Date { { [clock] in clock.now } }

    var vault: CodeVault { try! CodeVault(secrets: secrets) }
    var policy: RedemptionPolicy { RedemptionPolicy(codeTTL: 3600, resendInterval: 600) }
    var resend: CodeResend { CodeResend(policy: policy, vault: vault) }
    var links: Links { Links(baseURL: "https://pay.example.test", appScheme: "exampleapp") }

    var mail: MailQueue {
        MailQueue(
            cipher: try! OutboxCipher(key: secrets.mailParameterKey), messageIDDomain: "pay.example.test", now: nowFunction,
            wake: { [wakes] in wakes.count.wrappingAdd(1, ordering: .relaxed) })
    }

    var codeMail: CodeMail {
        CodeMail(mail: mail, links: links, products: ProductNames(entitlements: ["premium": ["price_monthly"]], planPrices: [:]))
    }

    var redeem: RedeemCode { redeemCode() }

    /// `RedeemCode` under `policy` (the bench's when nil).
    func redeemCode(policy: RedemptionPolicy? = nil) -> RedeemCode {
        RedeemCode(
            database: database, policy: policy ?? self.policy, vault: vault, secrets: secrets, recentRepeats: RecentRepeats(),
            catalog: EntitlementCatalog(["premium": ["price_monthly"]]), codeMail: codeMail, logger: .disabled)
    }

    /// Redeems `codeText` by `RedeemCode`'s full path in one write (as a first redemption runs),
    /// under `policy` (the bench's when nil), at `now` (the bench's when nil).
    func redeemInWrite(
        _ codeText: String, appUserID: String, secret: InstallSecret? = nil, deviceID: String?, bearerAccountID: String? = nil,
        policy: RedemptionPolicy? = nil, now: Date? = nil
    ) throws -> RedeemOutcome {
        let redeem = redeemCode(policy: policy)
        let now = now ?? self.now
        guard let key = try CodeKey(normalizing: codeText, vault: vault) else { return .invalidCode }
        let session = try SessionRepository.draft(at: now)
        return try database.writeSync {
            try redeem.redemption(
                of: key, appUserID: appUserID, secret: secret, deviceID: deviceID, bearerAccountID: bearerAccountID, session: session, on: $0,
                now: now)
        }
    }

    /// `CompleteCheckout` over no Stripe (only what it is handed), vouching for `price_monthly`.
    func completeCheckout(reminders: ReminderSchedule = .off, codeTTL: TimeInterval? = nil) -> CompleteCheckout {
        CompleteCheckout(
            database: database, stripe: nil, codeTTL: codeTTL ?? policy.codeTTL, vault: vault, secrets: secrets, reminders: reminders,
            codeMail: codeMail, vouching: StripeVouching(prices: ["price_monthly"]))
    }

    /// Completes `paid` in one write as a paid checkout does (its checkout row read there, once), at
    /// `now` (the bench's when nil).
    func complete(
        _ paid: CompleteCheckout.PaidCheckout, reminders: ReminderSchedule = .off, codeTTL: TimeInterval? = nil, now: Date? = nil
    ) throws -> CompleteCheckout.Completed {
        let completion = completeCheckout(reminders: reminders, codeTTL: codeTTL)
        let now = now ?? self.now
        return try database.writeSync { connection in
            try completion.completePaid(paid, checkout: CheckoutRepository.find(sessionID: paid.sessionID, on: connection), on: connection, now: now)
        }
    }

    /// A paid web purchase with its first code, as a completed checkout leaves it (with its
    /// reminders scheduled by `reminders`).
    func paidPurchase(
        _ subscription: String = "sub_1", email: String? = "buyer@example.com", reminders: ReminderSchedule = .off
    ) throws -> (Purchase, RedemptionCode) {
        let snapshot = PurchaseSnapshot(
            platform: .stripe, externalID: subscription, productID: "price_monthly", status: .active,
            expiresAt: now.addingTimeInterval(30 * 86400), observedAt: now, purchaserEmail: email, customerID: "cus_1")
        let paid = CompleteCheckout.PaidCheckout(
            sessionID: "cs_" + subscription, snapshot: snapshot, aliases: [], email: email, clientReferenceID: nil, metadata: [:])
        let completed = try complete(paid, reminders: reminders)
        return (completed.purchase, try require(completed.issued).code)
    }

    /// A store purchase held by the account of `appUserID` (made now), as a claim by the app
    /// leaves it; returns that account's id.
    @discardableResult
    func heldPurchase(appUserID: String, platform: Platform, externalID: String, productID: String) throws -> String {
        let now = self.now
        let secrets = self.secrets
        return try database.writeSync { connection in
            let (account, _) = try AccountRepository.findOrCreate(appUserID: appUserID, secrets: secrets, on: connection, now: now)
            let applied = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: platform, externalID: externalID, productID: productID, status: .active,
                    expiresAt: now.addingTimeInterval(86_400), observedAt: now),
                on: connection, now: now)
            try PurchaseRepository.link(purchaseID: applied.purchase.id, to: account.id, on: connection, now: now)
            return account.id
        }
    }

    /// Every table's name.
    func tables() throws -> [String] {
        try database.readSync { connection in
            try TableNames.all(connection)
        }
    }

    /// Rows of `table` as text, every column joined (for scans of what is stored).
    func dump(_ table: String) throws -> [String] {
        try database.readSync { connection in
            try connection.query("SELECT * FROM \(table)").map { row in
                (0..<row.count).map { index -> String in
                    switch row[index] {
                    case .null: "NULL"
                    case .integer(let value): String(value)
                    case .real(let value): String(value)
                    case .text(let value): value
                    case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
                    }
                }.joined(separator: "|")
            }
        }
    }

    func pendingMail() throws -> Int {
        try database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM mail_outbox WHERE status = 'pending'")?.int("n") ?? 0 }
    }
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// How often delivery was woken.
final class WakeCounter: Sendable {
    let count = Atomic<Int>(0)
}

struct Missing: Error {}

/// `#require` outside a test body.
func require<T>(_ value: T?) throws -> T {
    guard let value else { throw Missing() }
    return value
}
