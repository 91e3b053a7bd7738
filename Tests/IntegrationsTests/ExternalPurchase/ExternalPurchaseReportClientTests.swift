import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("External Purchase Server API client ↔ fake Apple")
struct ExternalPurchaseReportClientTests {
    @Test("A one-time buy is reported with Apple's JWT and fields, and can be read back")
    func oneTimeBuy() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let id = UUID()
        let report = try ExternalPurchaseReport.lineItems(
            requestIdentifier: id, externalPurchaseID: "2924c319-5205-4188-831a-1ca2c00326b4",
            events: [Events.oneTime("p_1_buy", at: harness.now - 60, preTax: 799, tax: 168, quantity: 2)])
        #expect(try await harness.client.send(report) == .accepted)
        #expect(harness.fake.authenticationFailures.isEmpty)
        let item = try #require(harness.fake.acceptedLineItems().first)
        #expect(item["amountTaxExclusive"] as? Int == 7990)
        #expect(item["taxAmount"] as? Int == 1680)
        #expect(item["amountTaxInclusive"] as? Int == 9670)
        #expect(item["netAmountTaxExclusive"] as? Int == 7990)
        #expect(item["taxCountry"] as? String == "ESP")
        #expect(item["quantity"] as? Int == 2)
        #expect(item["productType"] as? String == "ONE_TIME_BUY")
        let request = try #require(harness.fake.requests.last)
        #expect(request.method.rawValue == "PUT")
        #expect(request.path == "/production/externalPurchase/v1/reports")
        let stored = try #require(try await harness.client.retrieve(requestIdentifier: id, sandbox: false))
        #expect(stored.requestIdentifier == id.uuidString.lowercased())
        #expect(stored.lineItemIDs == ["p_1_buy"])
        #expect(stored.status == "LINE_ITEM")
    }

    @Test("A subscription start, its renewal and a refund of the renewal are accepted in turn (Apple's reference rules)")
    func subscriptionLifeCycle() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let token = "59908800-c9d3-40c3-b638-8a9c5a535654"
        let start = harness.now - 40 * Events.day
        let reports = [
            try ExternalPurchaseReport.lineItems(requestIdentifier: UUID(), externalPurchaseID: token, events: [Events.start("s_1", at: start)]),
            try ExternalPurchaseReport.lineItems(
                requestIdentifier: UUID(), externalPurchaseID: token, events: [Events.renewal("s_1_r1", of: "s_1", at: start + 30 * Events.day)]),
            try ExternalPurchaseReport.lineItems(
                requestIdentifier: UUID(), externalPurchaseID: token,
                events: [
                    Events.refund(
                        "s_1_r1_refund", of: "s_1_r1", at: harness.now - 60, preTax: 300, tax: 75, remaining: 500,
                        productID: "com.example.monthly")
                ])
        ]
        for report in reports { #expect(try await harness.client.send(report) == .accepted) }
        let items = harness.fake.acceptedLineItems()
        #expect(items.map { $0["lineItemId"] as? String } == ["s_1", "s_1_r1", "s_1_r1_refund"])
        #expect(items[0]["subscriptionEvent"] as? String == "SUBSCRIPTION_START")
        #expect(items[0]["subscriptionDaysOfPaidService"] as? Int == 0)
        #expect(items[1]["subscriptionEvent"] as? String == "RENEWAL")
        #expect(items[1]["referenceLineItemId"] as? String == "s_1")
        #expect(items[1]["subscriptionDaysOfPaidService"] as? Int == 30)
        #expect(items[2]["eventType"] as? String == "REFUND")
        #expect(items[2]["netAmountTaxExclusive"] as? Int == 5000)
        #expect(items[2]["productIdentifier"] == nil)
    }

    @Test("A token without a purchase and an unrecognized token are reported without line items")
    func withoutLineItems() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        #expect(try await harness.client.send(.noLineItem(requestIdentifier: UUID(), externalPurchaseID: "168f34da-19a5-465d")) == .accepted)
        #expect(try await harness.client.send(.unrecognizedToken(requestIdentifier: UUID(), externalPurchaseID: "b2158121-7af9")) == .accepted)
        let reports = harness.fake.acceptedReports()
        #expect(reports.map { $0["status"] as? String } == ["NO_LINE_ITEM", "UNRECOGNIZED_TOKEN"])
        #expect(reports.allSatisfy { $0["lineItems"] == nil })
    }

    @Test("A sandbox token's report goes to the sandbox host")
    func sandbox() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let id = UUID()
        #expect(try await harness.client.send(.noLineItem(requestIdentifier: id, externalPurchaseID: "SANDBOX_0000-1")) == .accepted)
        #expect(harness.fake.acceptedReports(.sandbox).count == 1)
        #expect(harness.fake.acceptedReports(.production).isEmpty)
        #expect(try await harness.client.retrieve(requestIdentifier: id, sandbox: true) != nil)
        #expect(try await harness.client.retrieve(requestIdentifier: id, sandbox: false) == nil)
    }

    @Test("Resending a report Apple kept but whose answer was lost is safe: Apple's duplicate 400 becomes alreadyReported")
    func resendAfterLostAnswer() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let report = try ExternalPurchaseReport.lineItems(
            requestIdentifier: UUID(), externalPurchaseID: "token-1", events: [Events.oneTime("p_2_buy", at: harness.now - 5)])
        harness.fake.failAfterAccepting(1)
        let lost = try await expectUpstreamAppStore { _ = try await harness.client.send(report) }
        #expect(lost?.retryable == true)
        let outcome = try await harness.client.send(report)
        guard case .alreadyReported(let stored) = outcome else {
            Issue.record("expected alreadyReported, got \(outcome)")
            return
        }
        #expect(stored.lineItemIDs == ["p_2_buy"])
        #expect(harness.fake.acceptedReports().count == 1)
        #expect(harness.fake.received.map(\.status) == [500, 400])
        #expect(harness.fake.received.last?.errorCodes == [1])
    }

    @Test("A requestIdentifier reused for another token is refused, not taken as already reported")
    func reusedRequestIdentifier() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let id = UUID()
        #expect(try await harness.client.send(.noLineItem(requestIdentifier: id, externalPurchaseID: "token-a")) == .accepted)
        let error = await expectReportError(.rejected) {
            _ = try await harness.client.send(.noLineItem(requestIdentifier: id, externalPurchaseID: "token-b"))
        }
        #expect(error?.message.contains("another token") == true)
    }

    @Test("Apple's line-item errors come back with their errorCode, fieldName and lineItemId; nothing is kept")
    func rejection() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let report = try ExternalPurchaseReport.lineItems(
            requestIdentifier: UUID(), externalPurchaseID: "token-2", events: [Events.renewal("s_9_r1", of: "s_9", at: harness.now - 10)])
        let error = await expectReportError(.rejected) { _ = try await harness.client.send(report) }
        #expect(error?.httpStatus == 400)
        #expect(
            error?.fieldErrors == [
                .init(errorCode: 3, errorMessage: "The referenced value was not found.", fieldName: "referenceLineItemId", lineItemID: "s_9_r1")
            ])
        #expect(harness.fake.acceptedReports().isEmpty)
        let future = try ExternalPurchaseReport.lineItems(
            requestIdentifier: UUID(), externalPurchaseID: "token-2", events: [Events.oneTime("p_9", at: harness.now + 3600)])
        let futureError = await expectReportError(.rejected) { _ = try await harness.client.send(future) }
        #expect(futureError?.fieldErrors.map(\.errorCode) == [6])
    }

    @Test("5xx and 429 are retryable UpstreamErrors; unreachable too; a wrong key is a configuration error")
    func failures() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let report = try ExternalPurchaseReport.noLineItem(requestIdentifier: UUID(), externalPurchaseID: "token-3")
        harness.fake.failNext([503, 429])
        #expect(try await expectUpstreamAppStore { _ = try await harness.client.send(report) }?.kind == .badStatus(503))
        #expect(try await expectUpstreamAppStore { _ = try await harness.client.send(report) }?.kind == .badStatus(429))
        #expect(try await harness.client.send(report) == .accepted)

        let refusing = try RefusingPort()
        let unreachable = try await AppleReportHarness(refusedAt: refusing)
        defer { Task { await unreachable.stop() } }
        let error = try await expectUpstreamAppStore { _ = try await unreachable.client.send(report) }
        #expect(error?.retryable == true)

        let wrongKey = try await AppleReportHarness(clientKey: try SigningKey.generateES256())
        defer { Task { await wrongKey.stop() } }
        await #expect { _ = try await wrongKey.client.send(report) } throws: { ($0 as? AppStoreError)?.configurationError != nil }
        #expect(wrongKey.fake.authenticationFailures.count == 1)
    }

    @Test("A currency Apple does not report in is refused before anything is sent")
    func unsupportedCurrency() async throws {
        let harness = try await AppleReportHarness()
        defer { Task { await harness.stop() } }
        let error = await expectReportError(.invalidReport) {
            _ = try ExternalPurchaseReport.lineItems(
                requestIdentifier: UUID(), externalPurchaseID: "token-4", events: [Events.oneTime("p_4", at: harness.now, currency: "ISK")])
        }
        #expect(error?.message.contains("ISK") == true)
        #expect(harness.fake.requests.isEmpty)
    }
}

/// Expects `body` to throw an `UpstreamError` for `app_store`; returns it.
@discardableResult
func expectUpstreamAppStore(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async throws -> UpstreamError? {
    do {
        try await body()
        Issue.record("expected UpstreamError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as UpstreamError {
        #expect(error.service == "app_store", sourceLocation: sourceLocation)
        #expect(error.reportError == nil, "a refused report, not an outage: \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected UpstreamError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
