import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("App Store Server API: Get All Subscription Statuses")
struct AppStoreSubscriptionStatusTests {
    typealias Setup = AppStoreServerAPIClientTests.Setup

    static func subscriber(_ setup: Setup, months: Int = 10, environment: FakeAppStoreServer.Environment = .production) throws
        -> [FakeAppStoreTransaction]
    {
        // Bought ten months ago, renewed every month since: the last period runs until 20 days from now.
        let start = setup.clock.now.addingTimeInterval(-Double(months) * 30 * 86400 + 10 * 86400)
        return try setup.fake.addSubscription(
            originalTransactionID: "2000000000004000", bundleID: AppStoreTests.bundleID, start: start, periods: months,
            environment: environment, signer: setup.pki.signer())
    }

    @Test("Named by its original id or any renewal's id, a ten-month subscription is its latest period, not its first")
    func latestPeriod() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        defer { Task { await setup.fake.stop() } }
        let periods = try Self.subscriber(setup)
        let latest = try #require(periods.last)
        // Another subscription of the same customer, listed in the same answer.
        try setup.fake.addSubscription(
            originalTransactionID: "2000000000009000", productID: "com.example.yearly", bundleID: AppStoreTests.bundleID,
            start: setup.clock.now.addingTimeInterval(-86400), periods: 1, periodLength: 365 * 86400, environment: .production,
            signer: setup.pki.signer())

        // What the old lookup answered: Get Transaction Info of the original id is the first period, long expired.
        let first = try await setup.client.transaction(id: "2000000000004000")
        #expect(first.expiresDate == periods[0].expiresDate)
        #expect(try first.snapshot(now: setup.clock.now).status == .expired)

        for id in ["2000000000004000", periods[4].transactionID, latest.transactionID] {
            let status = try await setup.client.subscriptionStatus(transactionID: id)
            #expect(status.originalTransactionID == "2000000000004000")
            #expect(status.status == 1)
            #expect(status.environment == .production)
            #expect(status.transaction.transactionID == latest.transactionID)
            #expect(status.transaction.expiresDate == latest.expiresDate)
            #expect(status.transaction.originalPurchaseDate == periods[0].purchaseDate)
            #expect(status.transaction.signedDate == setup.clock.now, "Apple signs the answer when it answers")
            #expect(status.renewalInfo?.autoRenewStatus == 1)
            let snapshot = try status.snapshot(now: setup.clock.now)
            #expect(snapshot.status == .active)
            #expect(snapshot.expiresAt == latest.expiresDate)
            #expect(snapshot.willRenew == true)
        }
        let paths = setup.fake.requests.map(\.path)
        #expect(paths.contains("/production/inApps/v1/subscriptions/2000000000004000"))
        #expect(setup.fake.authenticationFailures.isEmpty)
    }

    @Test("Status and renewal info decide: billing retry, grace period, revoked")
    func statuses() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        defer { Task { await setup.fake.stop() } }
        let periods = try Self.subscriber(setup, months: 3)
        let graceEnd = setup.clock.now.addingTimeInterval(3 * 86400)
        setup.fake.setRenewalInfo(
            FakeAppStoreRenewalInfo(
                originalTransactionID: "2000000000004000", gracePeriodExpiresDate: graceEnd, isInBillingRetryPeriod: true,
                environment: "Production"),
            signer: setup.pki.signer(), environment: .production)
        setup.fake.setSubscriptionStatus(4, originalTransactionID: "2000000000004000", environment: .production)
        let grace = try await setup.client.subscriptionStatus(transactionID: "2000000000004000")
        #expect(grace.status == 4)
        let snapshot = try grace.snapshot(now: setup.clock.now)
        #expect(snapshot.status == .inGracePeriod)
        #expect(snapshot.expiresAt == graceEnd)
        setup.fake.setSubscriptionStatus(3, originalTransactionID: "2000000000004000", environment: .production)
        #expect(
            try await setup.client.subscriptionStatus(transactionID: periods[1].transactionID).snapshot(now: setup.clock.now).status == .billingRetry)
    }

    @Test("A non-subscription id: Apple lists the customer's subscriptions, none is it, so it is not_a_subscription")
    func nonSubscription() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        defer { Task { await setup.fake.stop() } }
        _ = try Self.subscriber(setup)
        try setup.fake.addTransaction(
            FakeAppStoreTransaction(
                transactionID: "2000000000005000", originalTransactionID: "2000000000005000", bundleID: AppStoreTests.bundleID,
                productID: "com.example.lifetime", type: "Non-Consumable", environment: "Production"),
            signer: setup.pki.signer(), environment: .production)
        await #expect {
            _ = try await setup.client.subscriptionStatus(transactionID: "2000000000005000")
        } throws: { error in
            (error as? AppStoreError)?.apiError?.kind == .notASubscription
        }
        // The fake answered the statuses call with the customer's one subscription, as Apple does.
        #expect(setup.fake.requests.map(\.path).contains("/production/inApps/v1/subscriptions/2000000000005000"))
    }

    @Test("A sandbox subscription is found on the sandbox host after production's 404; unknown everywhere is transaction_not_found")
    func sandboxFallback() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        defer { Task { await setup.fake.stop() } }
        _ = try Self.subscriber(setup, environment: .sandbox)
        let status = try await setup.client.subscriptionStatus(transactionID: "2000000000004000")
        #expect(status.environment == .sandbox)
        #expect(status.transaction.environment == "Sandbox")
        await #expect {
            _ = try await setup.client.subscriptionStatus(transactionID: "2999999999999999")
        } throws: { error in
            (error as? AppStoreError)?.apiError?.kind == .transactionNotFound
        }
    }
}
