import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

/// The state and request handling behind `FakeGooglePlay` (shared with the server's closure).
final class FakeGooglePlayCore: Sendable {
    struct SubscriptionRecord {
        var state: FakeGooglePlay.SubscriptionState
        var productID: String
        var expiry: Date
        var acknowledged: Bool
        var linkedPurchaseToken: String?
        var obfuscatedAccountID: String?
        var testPurchase: Bool
        var startTime: Date
        var orderID: String
        /// `offerDetails.offerId`: the offer it was bought with (an intro price, a trial).
        var offerID: String? = nil
        /// `deferredItemReplacement.productId`: a downgrade that takes effect at the next renewal.
        var deferredReplacementProductID: String? = nil
    }

    struct ProductRecord {
        var productID: String
        var state: FakeGooglePlay.ProductState
        var acknowledged: Bool
        var consumed: Bool
        var obfuscatedAccountID: String?
        var purchaseTime: Date
        var testPurchase: Bool
        var orderID: String
    }

    /// One voided order, as `purchases.voidedpurchases.list` returns it.
    struct VoidedRecord {
        var purchaseToken: String
        var orderID: String
        /// Subscriptions are listed only with `type=1`.
        var isSubscription: Bool
        var purchaseTime: Date
        /// `voidedTimeMillis`: when the purchase was refunded, canceled or charged back.
        var voidedTime: Date
        /// When Google's systems saw it voided: what `startTime`/`endTime` filter on.
        var seenAt: Date
        var source: Int
        var reason: Int
        /// Set for a quantity-based partial refund (listed only with `includeQuantityBasedPartialRefund`).
        var voidedQuantity: Int?
    }

    struct IssuedToken {
        var value: String
        var expiresAt: Date
    }

    struct State {
        var tokenURL = ""
        var subscriptions: [String: SubscriptionRecord] = [:]
        var products: [String: ProductRecord] = [:]
        var voided: [VoidedRecord] = []
        /// `voidedpurchases.list` page size when `maxResults` is absent.
        var voidedPageSize = 1000
        var issued: [IssuedToken] = []
        /// Tokens at indexes below this were revoked.
        var revokedBefore = 0
        var rejectAllBearers = false
        var outage = false
        var tokenLifetime = 3599
        var tokenLifetimeAsString = false
        var tokenDelay: Duration = .zero
        /// How long each Play Developer API call waits before it is answered.
        var apiDelay: Duration = .zero
        var tokenRequests = 0
        var tokenRejections: [String] = []
        var apiRequests = 0
        var acknowledgements: [FakeGooglePlay.Acknowledgement] = []
    }

    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let scope = "https://www.googleapis.com/auth/androidpublisher"

    let packageName: String
    let clientEmail: String
    let privateKeyID: String
    let publicKey: VerificationKey
    let now: @Sendable () -> Date
    let state = Mutex(State())
    /// The external transactions (`FakeGooglePlayCore+ExternalTransactions.swift`).
    let external = Mutex(ExternalState())

    init(packageName: String, clientEmail: String, privateKeyID: String, publicKey: VerificationKey, now: @escaping @Sendable () -> Date) {
        self.packageName = packageName
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.publicKey = publicKey
        self.now = now
    }

    func setTokenURL(_ url: String) { state.withLock { $0.tokenURL = url } }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let isToken = request.path == "/token"
        let isAPI = request.path.hasPrefix("/androidpublisher/v3/applications/")
        let (outage, delay, apiDelay) = state.withLock { state in
            if isToken { state.tokenRequests += 1 }
            if isAPI { state.apiRequests += 1 }
            return (state.outage, state.tokenDelay, state.apiDelay)
        }
        if outage {
            return Self.googleError(503, "The service is currently unavailable.", reason: "backendError", status: "UNAVAILABLE")
        }
        if isToken {
            if delay > .zero { try? await Task.sleep(for: delay) }
            return tokenEndpoint(request)
        }
        if isAPI {
            if apiDelay > .zero { try? await Task.sleep(for: apiDelay) }
            guard isAuthorized(request) else {
                var response = Self.googleError(
                    401,
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                    reason: "authError", status: "UNAUTHENTICATED")
                response.headers.set("WWW-Authenticate", #"Bearer realm="https://accounts.google.com/", error="invalid_token""#)
                return response
            }
            return purchasesEndpoint(request)
        }
        return Self.googleError(404, "Not Found", reason: "notFound", status: "NOT_FOUND")
    }

    // MARK: OAuth token endpoint

    /// Verifies the assertion as Google does and issues a token.
    private func tokenEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == .post else { return oauthError(405, "invalid_request", "Method not allowed.") }
        guard let contentType = request.headers["Content-Type"], contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") else {
            return oauthError(400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded.")
        }
        let form = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
        let grantType = form.first { $0.name == "grant_type" }?.value ?? ""
        guard grantType == Self.jwtBearerGrant else { return oauthError(400, "unsupported_grant_type", "Invalid grant_type: \(grantType)") }
        guard let assertion = form.first(where: { $0.name == "assertion" })?.value, !assertion.isEmpty else {
            return oauthError(400, "invalid_request", "Missing required parameter: assertion")
        }
        guard let jws = try? CompactJWS(parsing: assertion),
            let header = try? JSONSerialization.jsonObject(with: Data(jws.header)) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any]
        else {
            return oauthError(400, "invalid_grant", "Invalid JWT: not a signed JWT.")
        }
        guard jws.algorithm == "RS256", header["kid"] as? String == privateKeyID, (try? jws.verify(with: publicKey)) != nil else {
            return oauthError(400, "invalid_grant", "Invalid JWT Signature.")
        }
        guard claims["iss"] as? String == clientEmail else {
            return oauthError(400, "invalid_grant", "Invalid grant: account not found")
        }
        let tokenURL = state.withLock { $0.tokenURL }
        guard claims["aud"] as? String == tokenURL else {
            return oauthError(400, "invalid_grant", "Invalid JWT: Failed audience check. The right audience is \(tokenURL)")
        }
        let scopes = ((claims["scope"] as? String) ?? "").split(separator: " ")
        guard scopes.contains(where: { $0 == Self.scope }) else {
            return oauthError(400, "invalid_scope", "Invalid OAuth scope or ID token audience provided.")
        }
        let current = now().timeIntervalSince1970
        guard let iat = Self.integer(claims["iat"]), let exp = Self.integer(claims["exp"]), exp > iat, exp - iat <= 3600,
            abs(Double(iat) - current) <= 300, Double(exp) > current
        else {
            return oauthError(
                400, "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
            )
        }
        let (token, lifetime, asString) = state.withLock { state -> (String, Int, Bool) in
            let random = (try? SecureRandom.bytes(count: 12)).map { Hex.encode($0) } ?? "0"
            let value = "ya29.fake-\(state.issued.count + 1)-\(random)"
            state.issued.append(IssuedToken(value: value, expiresAt: now().addingTimeInterval(Double(state.tokenLifetime))))
            return (value, state.tokenLifetime, state.tokenLifetimeAsString)
        }
        let expiresIn: Any = asString ? String(lifetime) : lifetime
        var response = HTTPResponse.fakeJSON(["access_token": token, "expires_in": expiresIn, "token_type": "Bearer"])
        response.headers.set("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")
        return response
    }

    private func oauthError(_ status: Int, _ error: String, _ description: String) -> HTTPResponse {
        state.withLock { $0.tokenRejections.append(description) }
        return HTTPResponse.fakeJSON(["error": error, "error_description": description], status: HTTPStatus(code: status))
    }

    private func isAuthorized(_ request: HTTPRequest) -> Bool {
        guard let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer ") else { return false }
        let token = String(authorization.dropFirst("Bearer ".count))
        let instant = now()
        return state.withLock { state in
            guard !state.rejectAllBearers, let index = state.issued.firstIndex(where: { $0.value == token }) else { return false }
            return index >= state.revokedBefore && state.issued[index].expiresAt > instant
        }
    }

    static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, !(value is String) else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double.rounded() == double else { return nil }
        return number.int64Value
    }

    /// Google's API error body: `{"error": {"code", "message", "errors": [{"message", "domain", "reason"}], "status"}}`.
    static func googleError(_ code: Int, _ message: String, reason: String, status: String) -> HTTPResponse {
        HTTPResponse.fakeJSON(
            [
                "error": [
                    "code": code, "message": message, "errors": [["message": message, "domain": "androidpublisher", "reason": reason]],
                    "status": status
                ]
            ],
            status: HTTPStatus(code: code))
    }
}
