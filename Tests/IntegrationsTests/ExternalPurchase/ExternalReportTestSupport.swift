import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

/// A fake External Purchase Server API and a client for it, signing with a fresh key.
struct AppleReportHarness {
    let fake: FakeAppleExternalPurchase
    let client: ExternalPurchaseReportClient
    let now: Date

    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    static let keyID = "2X9R4HXF34"

    /// - Parameter clientKey: a key other than the one the fake trusts, to provoke 401s.
    init(clientKey: SigningKey? = nil, refusedAt refusing: RefusingPort? = nil) async throws {
        let pki = try await FakeApplePKI.shared()
        let key = try SigningKey.generateES256()
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        self.now = now
        fake = try FakeAppleExternalPurchase(
            credentials: .init(issuerID: Self.issuerID, keyID: Self.keyID, bundleID: AppStoreTests.bundleID, publicKey: try key.verificationKey()),
            clock: { now })
        let api = AppStoreServerAPIClient(
            issuerID: Self.issuerID, keyID: Self.keyID, privateKey: clientKey ?? key, bundleID: AppStoreTests.bundleID,
            productionBaseURL: fake.productionBaseURL, sandboxBaseURL: fake.sandboxBaseURL, http: URLSessionHTTPClient(service: "app_store"),
            verifier: AppStoreTests.verifier(pki, environment: .production), clock: { now })
        let production = try refusing.map { try #require(URL(string: "http://127.0.0.1:\($0.port)/production/externalPurchase")) }
        client = ExternalPurchaseReportClient(
            api: api, productionBaseURL: production ?? fake.productionBaseURL, sandboxBaseURL: fake.sandboxBaseURL)
    }

    func stop() async { await fake.stop() }
}

/// Builders of neutral events for the report tests.
enum Events {
    static let day: TimeInterval = 86_400

    static func id(_ text: String) throws -> ExternalReportID { try ExternalReportID(text) }

    static func amount(_ preTax: Int64, _ tax: Int64, _ currency: String = "EUR") throws -> ExternalReportAmount {
        try ExternalReportAmount(currency: currency, preTaxMinorUnits: preTax, taxMinorUnits: tax)
    }

    static func country(_ code: String) throws -> ISOCountry { try #require(ISOCountry(code: code)) }

    static func oneTime(
        _ id: String, at time: Date, preTax: Int64 = 800, tax: Int64 = 200, currency: String = "EUR", country: String = "ESP",
        quantity: Int = 1, area: String? = nil
    ) throws -> ExternalPurchaseEvent {
        try ExternalPurchaseEvent(
            id: Self.id(id), productID: "com.example.lifetime", kind: .oneTimeBuy(quantity: quantity), time: time,
            amount: amount(preTax, tax, currency), taxCountry: Self.country(country), taxAdministrativeArea: area)
    }

    static func start(_ id: String, at time: Date, preTax: Int64 = 800, tax: Int64 = 200, country: String = "ESP") throws -> ExternalPurchaseEvent {
        try ExternalPurchaseEvent(
            id: Self.id(id), productID: "com.example.monthly", kind: .subscriptionStart(periodStart: time, periodEnd: time + 30 * day),
            time: time, amount: amount(preTax, tax), taxCountry: Self.country(country))
    }

    static func renewal(_ id: String, of initial: String, at time: Date, paidDaysBefore: Int = 30, country: String = "ESP") throws
        -> ExternalPurchaseEvent
    {
        try ExternalPurchaseEvent(
            id: Self.id(id), productID: "com.example.monthly",
            kind: .subscriptionRenewal(initial: Self.id(initial), periodStart: time, periodEnd: time + 30 * day, paidDaysBefore: paidDaysBefore),
            time: time, amount: amount(800, 200), taxCountry: Self.country(country))
    }

    static func refund(
        _ id: String, of refunded: String, at time: Date, preTax: Int64, tax: Int64, remaining: Int64, country: String = "ESP",
        productID: String = "com.example.lifetime"
    ) throws -> ExternalPurchaseEvent {
        try ExternalPurchaseEvent(
            id: Self.id(id), productID: productID, kind: .refund(refunded: Self.id(refunded), remainingPreTaxMinorUnits: remaining),
            time: time, amount: amount(preTax, tax), taxCountry: Self.country(country))
    }
}

/// Expects `body` to throw an `UpstreamError.report` of `kind`; returns it.
@discardableResult
func expectReportError(
    _ kind: UpstreamError.Report.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> UpstreamError.Report? {
    do {
        try await body()
        Issue.record("expected UpstreamError.report(\(kind)), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as UpstreamError {
        #expect(error.reportError?.kind == kind, "got \(error)", sourceLocation: sourceLocation)
        #expect(!error.retryable, sourceLocation: sourceLocation)
        #expect(error.description == error.reportError?.description, sourceLocation: sourceLocation)
        return error.reportError
    } catch {
        Issue.record("expected UpstreamError.report(\(kind)), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
