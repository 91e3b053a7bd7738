import Domain
import Foundation
import Integrations
import Logging
import Storage
import TestSupport
import UseCases

/// Google Play use cases on a `UseCaseBench`, their client pointed at a fake Google Play that
/// shares the bench's clock; events recorded for one endpoint, logs kept.
final class PlayBench: Sendable {
    static let packageName = "com.example.app"
    static let rtdnToken = "rtdn-secret"

    let bench = try! UseCaseBench()
    let google: FakeGooglePlay
    let logs = MemoryLogSink()
    let events = EventQueue(
        subscriptions: [EventSubscription(endpointID: "ep_1", types: ["*"])], catalog: EntitlementCatalog(["premium": ["pro_monthly"]]))
    let notifications: ApplyGoogleNotification

    init() throws {
        let bench = self.bench
        google = try FakeGooglePlay(packageName: Self.packageName, now: bench.nowFunction)
        let account = try GoogleServiceAccount(json: google.serviceAccountJSON())
        let http = URLSessionHTTPClient(service: "play_store")
        let client = GooglePlayClient(
            packageName: Self.packageName, apiBase: URL(string: google.baseURL)!,
            tokens: GoogleAccessTokenProvider(serviceAccount: account, http: http, now: bench.nowFunction), http: http)
        let stores = StoreClients(appleVerifier: nil, appStoreAPI: nil, verifyReceipt: nil, googlePlay: client)
        let verifier = StorePurchaseVerifier(stores: stores, stripe: nil, database: bench.database, now: bench.nowFunction, events: events)
        notifications = ApplyGoogleNotification(
            rtdnToken: Self.rtdnToken, packageName: Self.packageName, verifier: verifier, database: bench.database,
            logger: Logger(sink: logs, minimumLevel: .debug), now: bench.nowFunction, events: events)
    }

    func stop() async { await google.stop() }

    /// Stores `snapshot` as a store path would (no events).
    @discardableResult
    func store(_ snapshot: PurchaseSnapshot) throws -> Purchase {
        let now = bench.now
        return try bench.database.writeSync { try PurchaseRepository.apply(snapshot, on: $0, now: now).purchase }
    }

    /// An active Play subscription `token` observed at `observedAt`, expiring in `days`.
    func activeSubscription(_ token: String, observedAt: Date, days: Double = 20) -> PurchaseSnapshot {
        PurchaseSnapshot(
            platform: .playStore, externalID: token, productID: "pro_monthly", status: .active,
            expiresAt: bench.now.addingTimeInterval(days * 86_400), environment: "production", observedAt: observedAt)
    }

    func purchase(_ token: String) throws -> Purchase? {
        try bench.database.readSync { try PurchaseRepository.find(platform: .playStore, reference: token, on: $0) }
    }

    /// Rows of `table` (matching `condition`).
    func count(_ table: String, where condition: String = "1 = 1") throws -> Int {
        try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM \(table) WHERE \(condition)")?.int("n") ?? -1 }
    }

    /// The `purchase.updated` event bodies, oldest first.
    func purchaseUpdates() throws -> [String] {
        try bench.database.readSync { connection in
            try connection.query("SELECT body FROM events WHERE type = 'purchase.updated' ORDER BY created_at, sequence").map {
                try $0.string("body")
            }
        }
    }

    /// A Pub/Sub push of `notification` at `eventTime`.
    func push(_ notification: FakeGooglePlay.RTDN, messageID: String, eventTime: Date, packageName: String = packageName) -> [UInt8] {
        FakeGooglePlay.rtdnPushBody(notification, packageName: packageName, messageID: messageID, eventTime: eventTime)
    }
}
