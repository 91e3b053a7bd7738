import Integrations
import Testing

@testable import UseCases

/// `StoreErrors` maps what the store clients throw to the API's errors: each case of the unified
/// store errors to the status, code and sentence the purchase routes answer.
@Suite("Store errors map to the API's errors")
struct StoreErrorsTests {
    static let mapped: [(any Error, UseCaseError.Kind, String, String)] = [
        (
            UpstreamError(service: "app_store", kind: .timedOut, message: "slow"), .upstreamUnavailable, "upstream_unavailable",
            "The App Store could not be reached; retry later."
        ),
        (
            UpstreamError(service: "play_store", kind: .badStatus(503), message: "503"), .upstreamUnavailable, "upstream_unavailable",
            "Google Play could not be reached; retry later."
        ),
        (
            AppStoreError.verification(.init(.invalidCertificate, "signed transaction: untrusted root")), .unprocessable, "invalid_receipt",
            "The App Store data does not verify (invalid_certificate): signed transaction: untrusted root."
        ),
        (
            AppStoreError.api(.init(.transactionNotFound, errorCode: 4040010, "unknown")), .unprocessable, "invalid_receipt",
            "The App Store does not know this transaction (transaction_not_found): unknown."
        ),
        (
            AppStoreError.receipt(.init(.invalidReceipt, status: 21002, "malformed")), .unprocessable, "invalid_receipt",
            "The App Store refused the receipt (invalid_receipt): malformed."
        ),
        (
            AppStoreError.configuration(.init("401")), .notConfigured, "not_configured",
            "The App Store refused this server's credentials (apple.api.issuer_id, apple.api.key_id, apple.api.private_key_path, app.ios.bundle_id): 401"
        ),
        (
            GooglePlayError(.permissionDenied, "403"), .notConfigured, "not_configured",
            "Google Play refused this server's access (google.service_account_path, Play Console API access): 403"
        ),
        (GooglePlayError(.purchaseNotFound, "410"), .unprocessable, "invalid_receipt", "Google Play refused the purchase (purchase_not_found): 410."),
        (
            StripeError.api(.init(httpStatus: 401, type: "invalid_request_error", code: nil, message: "bad key", param: nil, requestID: nil)),
            .notConfigured, "not_configured", "Stripe refused this server's key (stripe.secret_key)."
        ),
        (
            StripeError.api(
                .init(
                    httpStatus: 404, type: "invalid_request_error", code: "resource_missing", message: "No such subscription", param: "id",
                    requestID: nil)),
            .unprocessable, "invalid_receipt", "Stripe refused the object: No such subscription"
        ),
        (
            StripeError.request(.init(.invalidID, "not a Stripe subscription id")), .unprocessable, "invalid_receipt",
            "Not a Stripe object this server can read: not a Stripe subscription id"
        )
    ]

    @Test("Each store error answers its status, code and sentence", arguments: 0..<mapped.count)
    func mapping(_ index: Int) throws {
        let (thrown, kind, code, message) = Self.mapped[index]
        let error = try #require(StoreErrors.apiError(for: thrown) as? UseCaseError, "\(thrown)")
        #expect(error.kind == kind && error.code == code, "\(thrown) → \(error)")
        #expect(error.message == message)
    }

    @Test("What is no purchase error goes on unchanged: a webhook's, a Stripe body's, a refused report")
    func others() {
        let untouched: [any Error] = [
            StripeError.webhook(.missingHeader), StripeError.decoding(.init(what: "event", reason: "body is not valid JSON")),
            UpstreamError.invalidReport("event e_1: quantity 0 is below 1")
        ]
        for error in untouched {
            #expect(!(StoreErrors.apiError(for: error) is UseCaseError), "\(error)")
        }
    }
}
