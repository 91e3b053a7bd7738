import Crypto
import Foundation
import Testing
import TestSupport

@testable import App

/// API.md "Link-out compliance", end to end per platform: eligibility → checkout with the
/// platform's token → payment at Stripe and its webhooks → a renewal → a partial and a full
/// refund → what the fake Apple or Google received. A lost answer and a process killed while
/// holding claimed reports make nothing reach the platform twice.
@Suite("Link-out reports end to end")
struct LinkOutReportingEndToEndTests {
    static var appleRules: [[String: Any]] { [["platform": "ios", "storefronts": ["DEU"], "program": "apple_external_purchase"]] }
    static var googleRules: [[String: Any]] { [["platform": "android", "storefronts": ["USA"], "program": "google_external_links"]] }

    @Test("Apple: the first period, the renewal and two refunds reach the External Purchase Server API once each, as line items")
    func apple() async throws {
        let harness = try await StoresHarness(extra: LinkOutFlow.config(rules: Self.appleRules))
        let flow = LinkOutFlow(harness)
        let fake = harness.externalPurchase
        #expect(await flow.eligibility(platform: "ios", storefront: "DEU")["token_required"] as? Bool == true)
        #expect(!harness.app.logs.lines.contains { $0.contains("link_out_reporting_unconfigured") }, "both senders are configured")
        harness.stripe.setTax(basisPoints: 1900)
        let token = FakeExternalPurchaseToken.make(externalPurchaseID: "SANDBOX_e2e_apple", createdAt: harness.clock.now)
        try await flow.pay(try await flow.start("platform=ios&storefront=DEU&external_purchase_token=\(token)"))
        await flow.sendReports()
        #expect(fake.acceptedReports(.sandbox).count == 1)

        let renewal = try await flow.renew()
        await flow.sendReports()
        try await flow.refund(invoiceID: renewal, amount: 300)
        fake.failAfterAccepting(1)
        await flow.sendReports()
        #expect(fake.acceptedReports(.sandbox).count == 3, "the renewal, and the partial refund whose answer was lost")
        try await flow.refund(invoiceID: renewal, amount: nil)
        harness.clock.advance(86_400)
        #expect(try await flow.claimAndDie() == 2, "the lost answer's retry and the full refund")
        try await flow.restartWorker { fake.acceptedReports(.sandbox).count == 4 }

        let reports = fake.acceptedReports(.sandbox)
        #expect(reports.count == 4)
        let stored = try await flow.reports()
        #expect(stored.map(\.kind) == ["purchase", "renewal", "refund", "refund"] && stored.allSatisfy { $0.status == "sent" }, "\(stored)")
        #expect(reports.map { $0["requestIdentifier"] as? String } == stored.map(\.requestID), "each report under its stored UUID")
        #expect(Set(reports.compactMap { $0["requestIdentifier"] as? String }).count == 4)
        #expect(reports.allSatisfy { $0["externalPurchaseId"] as? String == "SANDBOX_e2e_apple" && $0["status"] as? String == "LINE_ITEM" })
        let duplicates = fake.received.filter { $0.errorCodes == [1] }
        #expect(duplicates.count == 1, "the resend of the lost answer was refused as a duplicate, and read back")

        let items = fake.acceptedLineItems(.sandbox)
        #expect(items.count == 4)
        let (start, renewed, partial, full) = (items[0], items[1], items[2], items[3])
        #expect(start["subscriptionEvent"] as? String == "SUBSCRIPTION_START" && start["eventType"] as? String == "BUY")
        #expect(start["productIdentifier"] as? String == "price_monthly" && start["taxCountry"] as? String == "DEU")
        #expect(start["amountTaxExclusive"] as? Int == FakeStripe.unitAmount * 10, "milli-units of the pre-tax price")
        #expect((start["taxAmount"] as? Int ?? 0) > 0 && start["reportingCurrency"] as? String == "USD")
        #expect(renewed["subscriptionEvent"] as? String == "RENEWAL" && renewed["referenceLineItemId"] as? String == start["lineItemId"] as? String)
        #expect(renewed["subscriptionDaysOfPaidService"] as? Int == 30)
        #expect(partial["eventType"] as? String == "REFUND" && partial["referenceLineItemId"] as? String == renewed["lineItemId"] as? String)
        #expect(partial["amountTaxInclusive"] as? Int == 3000)
        #expect(full["eventType"] as? String == "REFUND" && full["netAmountTaxExclusive"] as? Int == 0)
        #expect((partial["amountTaxInclusive"] as? Int ?? 0) + (full["amountTaxInclusive"] as? Int ?? 0) == renewed["amountTaxInclusive"] as? Int)
        #expect(fake.personalDataFindings.isEmpty)
        await harness.stop()
    }

    @Test("Google: the first payment with its token, the renewal with the initial id, two refunds through :refund, once each")
    func google() async throws {
        let harness = try await StoresHarness(extra: LinkOutFlow.config(rules: Self.googleRules))
        let flow = LinkOutFlow(harness)
        let google = harness.google
        #expect(await flow.eligibility(platform: "android", storefront: "USA")["link_out"] as? Bool == true)
        let token = google.issueExternalTransactionToken()
        try await flow.pay(try await flow.start("platform=android&storefront=USA&external_transaction_token=\(token)"))
        await flow.sendReports()
        let renewal = try await flow.renew()
        await flow.sendReports()
        try await flow.refund(invoiceID: renewal, amount: 300)
        google.failExternalTransactionsAfterAccepting(1)
        await flow.sendReports()
        try await flow.refund(invoiceID: renewal, amount: nil)
        harness.clock.advance(86_400)
        #expect(try await flow.claimAndDie() == 2)
        try await flow.restartWorker { google.externalTransactionRequests.contains { $0.action == "refund" && $0.status == 200 } }

        let stored = try await flow.reports()
        #expect(stored.map(\.kind) == ["purchase", "renewal", "refund", "refund"] && stored.allSatisfy { $0.status == "sent" }, "\(stored)")
        let ids = google.externalTransactionIDs
        #expect(ids.count == 2 && Set(ids) == Set(stored.prefix(2).map(\.requestID)), "two transactions, named by the stored ids")
        let creates = google.externalTransactionRequests.filter { $0.action == nil && $0.method == "POST" && (200..<300).contains($0.status) }
        #expect(creates.count == 2)
        let first = try #require(creates.first?.json)
        #expect((first["recurringTransaction"] as? [String: Any])?["externalTransactionToken"] as? String == token)
        #expect((first["userTaxAddress"] as? [String: Any])?["regionCode"] as? String == "US")
        #expect((first["externalContentLinkDetails"] as? [String: Any])?["linkType"] as? String == "LINK_TO_DIGITAL_CONTENT_OFFER")
        #expect((first["originalPreTaxAmount"] as? [String: Any])?["priceMicros"] as? String == String(FakeStripe.unitAmount * 10_000))
        let second = try #require(creates.last?.json)
        #expect((second["recurringTransaction"] as? [String: Any])?["initialExternalTransactionId"] as? String == stored[0].requestID)
        let refunded = try #require(google.externalTransaction(id: stored[1].requestID))
        #expect(refunded["transactionState"] as? String == "TRANSACTION_CANCELED", "the renewal was refunded in full")
        #expect(google.externalTransaction(id: stored[0].requestID)?["transactionState"] as? String == "TRANSACTION_REPORTED")
        let refunds = google.externalTransactionRequests.filter { $0.action == "refund" }.map(\.status)
        #expect(
            refunds == [500, 400, 200], "the partial refund kept with its answer lost, its resend refused and read back, the full one: \(refunds)")
        await harness.stop()
    }
}
