import Foundation

/// Web checkout: the `/checkout/start` URL to open, and following the checkout the app started.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
extension Tollgate {
    /// The `/checkout/start` URL for `request`, to open in the browser (Safari, not a web view:
    /// Apple Pay and saved cards work there). With an app user it carries this install's secret,
    /// which the service binds or checks when the checkout is paid (then drops: it never reaches
    /// Stripe), so the poll can sign this install in.
    /// - Throws: whatever the storage throws while reading the install secret.
    public func checkoutURL(for request: CheckoutRequest) async throws -> URL {
        var items = request.queryItems
        if request.appUserID != nil { items.append(URLQueryItem(name: "app_user_secret", value: try await installSecret())) }
        return configuration.url(path: "/checkout/start", query: items) ?? configuration.baseURL
    }

    /// Whether the app may link out to web checkout from `storefront` (StoreKit's
    /// `Storefront.countryCode`, e.g. `USA`) on `platform` (`ios`, the default, or `android`),
    /// and whether it must pass its platform's token.
    /// - Throws: `TollgateClientError` (`bad_request` for a malformed storefront).
    public func checkoutEligibility(storefront: String, platform: String = "ios") async throws -> CheckoutEligibility {
        var request = APIRequest(method: "GET", path: "/api/v1/checkout/eligibility")
        request.query = [URLQueryItem(name: "platform", value: platform), URLQueryItem(name: "storefront", value: storefront)]
        return try JSONCoding.decode(CheckoutEligibility.self, from: try await send(request))
    }

    /// Asks once how the checkout `checkoutContextID` stands. A success result carries the
    /// session, which is stored.
    ///
    /// An id the service has not seen yet is `pending` (API.md): the browser may not have reached
    /// `/checkout/start` yet. Servers before that rule answer `404` for such an id; this client
    /// reads that `404` as `pending` too.
    /// - Throws: `TollgateClientError` when the service cannot be reached or refuses the call.
    public func checkoutStatus(checkoutContextID: UUID, appUserID: String?) async throws -> CheckoutStatus {
        var request = APIRequest(method: "GET", path: "/api/v1/checkout/" + checkoutContextID.uuidString.lowercased())
        if let appUserID {
            request.query = [
                URLQueryItem(name: "app_user_id", value: appUserID), URLQueryItem(name: "app_user_secret", value: try await installSecret())
            ]
        }
        let response: APIResponse
        do {
            response = try await send(request)
        } catch let error as TollgateClientError where error.status == 404 {
            return .pending(pollAfter: nil)
        }
        let wire = try JSONCoding.decode(CheckoutStatus.Wire.self, from: response)
        let status = try wire.status(requestID: response.requestID)
        if case .complete(let result) = status { try await keepSession(of: result) }
        return status
    }

    /// Polls the checkout until it completes or fails, or `timeout` passes (API.md: every
    /// `poll_after_seconds`, default 5 s, for about 60 s). Returns `.pending` when time ran out.
    /// - Parameters:
    ///   - interval: the wait between polls; nil follows the service's `poll_after_seconds`
    ///     (5 s when it does not say).
    ///   - timeout: when to stop asking.
    /// - Throws: `TollgateClientError` when a poll fails after its retries, or `CancellationError`.
    public func waitForCheckout(
        checkoutContextID: UUID, appUserID: String?, interval: Duration? = nil, timeout: Duration = .seconds(60)
    ) async throws -> CheckoutStatus {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let status = try await checkoutStatus(checkoutContextID: checkoutContextID, appUserID: appUserID)
            guard case .pending(let serverInterval) = status else { return status }
            let wait = interval ?? serverInterval ?? .seconds(5)
            guard clock.now + wait < deadline else { return status }
            try await Task.sleep(for: wait)
        }
    }
}
