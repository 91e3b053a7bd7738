import Integrations

/// Maps what the store clients throw to the API.md errors of the purchase use cases.
///
/// | thrown | answer |
/// | --- | --- |
/// | `UpstreamError` (unreachable, timeout, 5xx, 429, unreadable) | `502 upstream_unavailable` (retryable) |
/// | `AppStoreError.verification`, `AppStoreError.api`, `AppStoreError.receipt` | `422 invalid_receipt` (data that verifies but lacks its ids says what is missing) |
/// | `GooglePlayError` about the purchase (`purchase_not_found`, `request_rejected`) | `422 invalid_receipt` |
/// | `StripeError.api` (not an authentication failure), `StripeError.request` (bad id) | `422 invalid_receipt` |
/// | the store refusing our credentials (`AppStoreError.configuration`, Google configuration errors, Stripe 401/403) | `503 not_configured`, naming the keys |
/// | anything else | rethrown (a 500 without details) |
enum StoreErrors {
    /// Runs `body`, mapping store errors as in the table.
    /// - Throws: `UseCaseError`, or whatever `body` throws that is not a store error.
    static func mapping<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw apiError(for: error)
        }
    }

    /// The API error for `error`, or `error` itself when it is not a store error.
    static func apiError(for error: any Error) -> any Error {
        switch error {
        case let error as UseCaseError:
            return error
        case let error as UpstreamError where error.reportError == nil:
            return UseCaseError.upstreamUnavailable("\(storeName(error.service)) could not be reached; retry later.")
        case AppStoreError.verification(let error) where error.kind == .missingField:
            return invalidReceipt("The App Store data cannot be recorded (\(error.kind.rawValue)): \(error.message).")
        case AppStoreError.verification(let error):
            return invalidReceipt("The App Store data does not verify (\(error.kind.rawValue)): \(error.message).")
        case AppStoreError.api(let error):
            return invalidReceipt("The App Store does not know this transaction (\(error.kind.rawValue)): \(error.message).")
        case AppStoreError.receipt(let error):
            return invalidReceipt("The App Store refused the receipt (\(error.kind.rawValue)): \(error.message).")
        case AppStoreError.configuration(let error):
            return notConfigured(
                "The App Store refused this server's credentials (apple.api.issuer_id, apple.api.key_id, apple.api.private_key_path, app.ios.bundle_id): \(error.message)"
            )
        case let error as GooglePlayError:
            if error.isConfigurationError {
                return notConfigured(
                    "Google Play refused this server's access (google.service_account_path, Play Console API access): \(error.message)")
            }
            return invalidReceipt("Google Play refused the purchase (\(error.kind.rawValue)): \(error.message).")
        case StripeError.api(let error):
            if error.isAuthenticationFailure {
                return notConfigured("Stripe refused this server's key (stripe.secret_key).")
            }
            return invalidReceipt("Stripe refused the object: \(error.message)")
        case StripeError.request(let error):
            return invalidReceipt("Not a Stripe object this server can read: \(error)")
        default:
            return error
        }
    }

    /// `422 invalid_receipt`.
    static func invalidReceipt(_ message: String) -> UseCaseError {
        UseCaseError.unprocessable(message, code: "invalid_receipt")
    }

    /// `503 not_configured` (not retryable) for a store this server cannot use as configured.
    static func notConfigured(_ message: String) -> UseCaseError {
        UseCaseError.notConfigured(message)
    }

    private static func storeName(_ service: String) -> String {
        switch service {
        case "app_store": "The App Store"
        case GooglePlayClient.service: "Google Play"
        case "stripe": "Stripe"
        default: "The store"
        }
    }
}
