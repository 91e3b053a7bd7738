import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Play external transactions client ↔ fake Google")
struct GooglePlayExternalTransactionsClientTests {
    /// The Play harness with an external transactions client on top.
    struct Setup {
        let play: PlayHarness
        let client: GooglePlayExternalTransactionsClient
        var fake: FakeGooglePlay { play.fake }
        var now: Date { play.clock.now() }

        init() throws {
            play = try PlayHarness()
            client = GooglePlayExternalTransactionsClient(play: play.client)
        }

        func token(test: Bool = false) throws -> GooglePlayExternalTransactionToken {
            try GooglePlayExternalTransactionToken(fake.issueExternalTransactionToken(testPurchase: test))
        }
    }

    @Test("A one-time buy is created with the token, in micros and RFC 3339, and read back")
    func oneTime() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        let event = try Events.oneTime("p_1_buy", at: setup.now - 60, preTax: 799, tax: 152, country: "DEU")
        let outcome = try await setup.client.create(event, token: setup.token(test: true))
        guard case .reported(let transaction) = outcome else {
            Issue.record("expected reported, got \(outcome)")
            return
        }
        #expect(transaction.externalTransactionID == "p_1_buy")
        #expect(transaction.originalPreTaxAmount == .init(micros: 7_990_000, currency: "EUR"))
        #expect(transaction.originalTaxAmount == .init(micros: 1_520_000, currency: "EUR"))
        #expect(transaction.regionCode == "DE")
        #expect(transaction.isTestPurchase)
        #expect(!transaction.isRecurring)
        let request = try #require(setup.fake.externalTransactionRequests.first)
        #expect(request.externalTransactionID == "p_1_buy")
        let body = try #require(request.json)
        #expect((body["originalPreTaxAmount"] as? [String: Any])?["priceMicros"] as? String == "7990000")
        #expect((body["oneTimeTransaction"] as? [String: Any])?["externalTransactionToken"] is String)
        #expect(try await setup.client.transaction(id: Events.id("p_1_buy")) == transaction)
        #expect(try await setup.client.transaction(id: Events.id("nope")) == nil)
    }

    @Test("A subscription's first payment carries the token, renewals the initial id")
    func recurring() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        let start = setup.now - 40 * Events.day
        _ = try await setup.client.create(Events.start("s_1", at: start, country: "USA"), token: setup.token())
        let renewal = try await setup.client.create(Events.renewal("s_1_r1", of: "s_1", at: start + 30 * Events.day, country: "USA"), token: nil)
        #expect(renewal.transaction.isRecurring)
        #expect(renewal.transaction.initialExternalTransactionID == "s_1")
        let first = try #require(setup.fake.externalTransactionRequests.first?.json?["recurringTransaction"] as? [String: Any])
        #expect(first["externalTransactionToken"] is String)
        #expect(first["initialExternalTransactionId"] == nil)
        #expect((first["externalSubscription"] as? [String: Any])?["subscriptionType"] as? String == "RECURRING")
        let later = try #require(setup.fake.externalTransactionRequests.last?.json?["recurringTransaction"] as? [String: Any])
        #expect(later["externalTransactionToken"] == nil)
        #expect(later["initialExternalTransactionId"] as? String == "s_1")
    }

    @Test("Refunds: partial with our refundId, then full; a resent refund is taken as done once Google shows it")
    func refunds() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        _ = try await setup.client.create(Events.oneTime("p_2", at: setup.now - 600, preTax: 1000, tax: 190, country: "FRA"), token: setup.token())
        let partial = try Events.refund("p_2_rf1", of: "p_2", at: setup.now - 300, preTax: 400, tax: 76, remaining: 600, country: "FRA")
        let afterPartial = try await setup.client.refund(partial)
        #expect(afterPartial == .reported(afterPartial.transaction))
        #expect(afterPartial.transaction.currentPreTaxAmount?.micros == 6_000_000)
        #expect(!afterPartial.transaction.isCanceled)
        let body = try #require(setup.fake.externalTransactionRequests.last?.json)
        #expect((body["partialRefund"] as? [String: Any])?["refundId"] as? String == "p_2_rf1")
        // The same partial refund again: Google refuses the refundId, the read-back shows it done.
        guard case .alreadyReported = try await setup.client.refund(partial) else {
            Issue.record("a resent partial refund should be alreadyReported")
            return
        }
        let full = try Events.refund("p_2_rf2", of: "p_2", at: setup.now - 100, preTax: 600, tax: 114, remaining: 0, country: "FRA")
        #expect(try await setup.client.refund(full).transaction.isCanceled)
        #expect(setup.fake.externalTransactionRequests.last?.json?["fullRefund"] is [String: Any])
        guard case .alreadyReported = try await setup.client.refund(full) else {
            Issue.record("a resent full refund should be alreadyReported")
            return
        }
    }

    @Test("A create Google kept but whose answer was lost: the resend's 409 ALREADY_EXISTS becomes alreadyReported")
    func resendAfterLostAnswer() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        let event = try Events.oneTime("p_3", at: setup.now - 60, country: "USA")
        let token = try setup.token()
        setup.fake.failExternalTransactionsAfterAccepting(1)
        let lost = await expectUpstream { _ = try await setup.client.create(event, token: token) }
        #expect(lost?.retryable == true)
        guard case .alreadyReported(let transaction) = try await setup.client.create(event, token: token) else {
            Issue.record("expected alreadyReported")
            return
        }
        #expect(transaction.externalTransactionID == "p_3")
        #expect(setup.fake.externalTransactionRequests.map(\.status) == [500, 409, 200])
        #expect(setup.fake.externalTransactionIDs == ["p_3"])
    }

    @Test("An id reused for a different purchase is refused, not taken as done")
    func reusedID() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        _ = try await setup.client.create(Events.oneTime("p_4", at: setup.now - 60, preTax: 500, country: "USA"), token: setup.token())
        let error = await expectReportError(.rejected) {
            _ = try await setup.client.create(Events.oneTime("p_4", at: setup.now - 30, preTax: 900, country: "USA"), token: setup.token())
        }
        #expect(error?.httpStatus == 409)
        #expect(error?.code == "ALREADY_EXISTS")
    }

    @Test("Google's 4xx come back with its status and message; 5xx and 429 are retryable; nothing invalid is sent")
    func errors() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        let rejected = await expectReportError(.rejected) {
            _ = try await setup.client.create(
                Events.oneTime("p_5", at: setup.now, country: "USA"), token: GooglePlayExternalTransactionToken("forged"))
        }
        #expect(rejected?.code == "INVALID_ARGUMENT")
        #expect(rejected?.httpStatus == 400)
        let unknown = await expectReportError(.rejected) {
            _ = try await setup.client.refund(Events.refund("x_rf", of: "missing", at: setup.now, preTax: 1, tax: 0, remaining: 0))
        }
        #expect(unknown?.code == "NOT_FOUND")
        setup.fake.failExternalTransactions([503, 429])
        #expect(await expectUpstream { _ = try await setup.client.transaction(id: Events.id("p_5")) }?.kind == .badStatus(503))
        #expect(await expectUpstream { _ = try await setup.client.transaction(id: Events.id("p_5")) }?.retryable == true)
        let before = setup.fake.externalTransactionRequests.count
        await expectReportError(.invalidReport) {
            _ = try await setup.client.create(Events.oneTime("p_6", at: setup.now, country: "IND"), token: setup.token())
        }
        await expectReportError(.invalidReport) {
            _ = try await setup.client.create(Events.start("s_6", at: setup.now), token: nil)
        }
        #expect(setup.fake.externalTransactionRequests.count == before)
        let india = try await setup.client.create(Events.oneTime("p_7", at: setup.now - 1, country: "IND", area: "KARNATAKA"), token: setup.token())
        #expect(india.transaction.regionCode == "IN")
    }

    @Test("An expired access token is refreshed once, as for the other Play calls")
    func refreshedToken() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        _ = try await setup.client.transaction(id: Events.id("warm"))
        setup.fake.revokeIssuedTokens()
        _ = try await setup.client.create(Events.oneTime("p_8", at: setup.now - 1, country: "USA"), token: setup.token())
        #expect(setup.fake.issuedTokenCount == 2)
        #expect(setup.fake.externalTransactionIDs == ["p_8"])
    }

    @Test("Programme details are sent as the schema shapes them")
    func program() async throws {
        let setup = try Setup()
        defer { Task { await setup.play.stop() } }
        let program = try GooglePlayExternalProgram(
            details: .externalContentLink(linkType: .digitalContentOffer, installedAppPackage: nil, appCategory: nil))
        _ = try await setup.client.create(Events.oneTime("p_9", at: setup.now - 1, country: "USA"), token: setup.token(), program: program)
        let details = setup.fake.externalTransactionRequests.last?.json?["externalContentLinkDetails"] as? [String: Any]
        #expect(details?["linkType"] as? String == "LINK_TO_DIGITAL_CONTENT_OFFER")
        #expect {
            try GooglePlayExternalProgram(
                transactionProgramCode: 1,
                details: .externalOffer(
                    linkType: nil, installedAppPackage: nil, appCategory: nil, appDownloadEventExternalTransactionID: nil))
        } throws: { ($0 as? UpstreamError)?.reportError != nil }
    }
}
