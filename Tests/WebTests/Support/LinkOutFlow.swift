import Domain
import Foundation
import HTTPCore
import Storage
import TestSupport

@testable import App
@testable import UseCases

/// Drives a purchase made under a link-out token through `StoresHarness`, as the app, the buyer
/// and Stripe would: eligibility, `/checkout/start` with the token, payment at the fake Stripe,
/// its webhooks, a renewal, refunds. Every event the fake Stripe records is delivered in order.
final class LinkOutFlow {
    /// Config members the flow needs beside the harness's: a subscription plan and `rules`.
    static func config(rules: [[String: Any]]) -> [String: Any] {
        ["plans": ["monthly": ["price_id": "price_monthly", "mode": "subscription"]], "link_out": ["rules": rules]]
    }

    let harness: StoresHarness
    private var delivered = 0
    private(set) var subscriptionID: String?

    init(_ harness: StoresHarness) { self.harness = harness }

    /// `GET /api/v1/checkout/eligibility`.
    func eligibility(platform: String, storefront: String) async -> [String: Any] {
        await harness.app.send(
            .get, "/api/v1/checkout/eligibility?platform=\(platform)&storefront=\(storefront)", headers: ["X-Api-Key": StoresHarness.apiKey]
        ).jsonObject ?? [:]
    }

    /// Starts a checkout with `query` (platform, storefront, token) and returns the session id.
    func start(_ query: String) async throws -> String {
        let response = await harness.app.send(.get, "/checkout/start?plan=monthly&app_user_id=user-1&" + query)
        guard response.status == .seeOther, let location = response.headers["Location"],
            let id = location.split(separator: "/").last.map(String.init), id.hasPrefix("cs_")
        else { throw HarnessError("start: \(response.status) \(response.text.prefix(300))") }
        return id
    }

    /// Pays the session at the fake Stripe and delivers what Stripe sends.
    func pay(_ sessionID: String) async throws {
        subscriptionID = try harness.stripe.completeSession(id: sessionID, email: "buyer@example.com", paid: true).subscription?.id
        try await deliverNew()
    }

    /// 30 days later, the next period is paid; returns the renewal's invoice id.
    func renew() async throws -> String {
        harness.clock.advance(30 * 86_400)
        let subscriptionID = try subscriptionID ?? { throw HarnessError("no subscription") }()
        let (paid, _) = try harness.stripe.renewSubscription(id: subscriptionID)
        try await deliverNew()
        return try paid.object["id"] as? String ?? { throw HarnessError("invoice.paid without an id") }()
    }

    /// An hour later, `amount` (nil: what is left) of the invoice's charge goes back to the buyer.
    func refund(invoiceID: String, amount: Int?) async throws {
        harness.clock.advance(3600)
        try harness.stripe.refund(invoiceID: invoiceID, amount: amount)
        try await deliverNew()
    }

    /// Delivers every Stripe event not delivered yet, in order; each must be accepted.
    func deliverNew() async throws {
        let events = harness.stripe.events
        for event in events.dropFirst(delivered) {
            let response = await harness.deliver(event)
            guard response.status == .ok else { throw HarnessError("\(event.type): \(response.status) \(response.text.prefix(300))") }
        }
        delivered = events.count
    }

    /// Lets the report worker send until nothing due is left (at most 20 batches).
    func sendReports() async {
        for _ in 0..<20 where await harness.app.app.workers.linkOut.sendDue() > 0 {}
    }

    /// `(kind, status)` of every queued report, oldest first.
    func reports() async throws -> [(kind: String, status: String, requestID: String)] {
        try await harness.app.app.database.read { connection in
            try connection.query("SELECT kind, status, request_id FROM link_out_reports ORDER BY created_at, kind").map {
                (try $0.string("kind"), try $0.string("status"), try $0.string("request_id"))
            }
        }
    }

    /// A process that claimed every due report and died before sending or recording them
    /// (`kill -9`): the reports stay `sending`. The clock then moves past the claim's lease, as
    /// PostgreSQL needs before another instance takes them over.
    func claimAndDie() async throws -> Int {
        let now = harness.clock.now
        let claimed = try await harness.app.app.database.write { try LinkOutReportStore.claim(limit: 100, lease: 120, on: $0, now: now) }
        harness.clock.advance(LinkOutReportWorker.Configuration().lease + 1)
        return claimed.count
    }

    /// A fresh process over the same database: a new worker whose `run()` recovers what the dead
    /// one left and sends it; stopped once `done()` holds (or after 10 s).
    func restartWorker(until done: @escaping @Sendable () -> Bool) async throws {
        let services = harness.app.app.essentials
        let worker = LinkOutReportWorker(
            database: services.database, senders: try LinkOutReportSenders.make(config: services.config, stores: services.stores),
            vault: try LinkOutTokenVault(secrets: services.secrets), now: harness.clock.function)
        let task = Task { await worker.run() }
        for _ in 0..<200 where !done() { try await Task.sleep(for: .milliseconds(50)) }
        worker.stop()
        await task.value
    }
}
