import Foundation

/// Reads and acknowledges purchases through the Google Play Developer API
/// (`androidpublisher/v3`), authenticated with a service account.
///
/// A 401 drops the access token and retries once with a fresh one. Unknown or malformed
/// purchase tokens are `GooglePlayError.purchaseNotFound`; outages are `UpstreamError`.
public struct GooglePlayClient: Sendable {
    /// Names the API in `UpstreamError`s.
    public static let service = "play_store"

    /// The app's package name (`com.example.app`).
    public let packageName: String
    /// `https://androidpublisher.googleapis.com` in production; a fake server in tests.
    public let apiBase: URL
    /// Issues the bearer tokens.
    public let tokens: GoogleAccessTokenProvider
    private let http: any OutboundHTTPClient
    private let timeout: Duration

    /// Creates a client for one app.
    public init(
        packageName: String, apiBase: URL, tokens: GoogleAccessTokenProvider, http: any OutboundHTTPClient,
        timeout: Duration = .seconds(15)
    ) {
        self.packageName = packageName
        self.apiBase = apiBase
        self.tokens = tokens
        self.http = http
        self.timeout = timeout
    }

    /// `GET …/purchases/subscriptionsv2/tokens/{token}`: the subscription's current state.
    /// - Throws: `GooglePlayError` (`.purchaseNotFound` for an unknown token, `.permissionDenied`,
    ///   `.unauthorized`, `.tokenRejected`), `UpstreamError` on outages or an unreadable answer.
    public func subscription(purchaseToken: String) async throws -> GooglePlaySubscription {
        let response = try await call("GET", ["purchases", "subscriptionsv2", "tokens", nonEmpty(purchaseToken, "purchase token")])
        try Self.check(response, what: "subscription purchase")
        return try GooglePlaySubscription(json: response.body)
    }

    /// `GET …/purchases/products/{productId}/tokens/{token}`: a one-time product purchase.
    /// - Throws: as `subscription(purchaseToken:)`.
    public func product(productID: String, purchaseToken: String) async throws -> GooglePlayProductPurchase {
        let response = try await call(
            "GET", ["purchases", "products", nonEmpty(productID, "product id"), "tokens", nonEmpty(purchaseToken, "purchase token")])
        try Self.check(response, what: "product purchase")
        return try GooglePlayProductPurchase(json: response.body)
    }

    /// `POST …/purchases/subscriptions/{sku}/tokens/{token}:acknowledge`. Unacknowledged purchases
    /// are refunded by Google after three days. Acknowledging an acknowledged purchase is refused
    /// (400) by Google: check `needsAcknowledgement` first.
    /// - Throws: `GooglePlayError.requestRejected` when Google refuses (already acknowledged, not
    ///   yet paid), other `GooglePlayError`s and `UpstreamError` as for reads.
    public func acknowledgeSubscription(subscriptionID: String, purchaseToken: String) async throws {
        let response = try await call(
            "POST", ["purchases", "subscriptions", nonEmpty(subscriptionID, "subscription id"), "tokens", nonEmpty(purchaseToken, "purchase token")],
            suffix: ":acknowledge", body: Array("{}".utf8))
        try Self.check(response, what: "subscription acknowledgement", rejectionIsNotFound: false)
    }

    /// `POST …/purchases/products/{sku}/tokens/{token}:acknowledge`.
    /// - Throws: as `acknowledgeSubscription(subscriptionID:purchaseToken:)`.
    public func acknowledgeProduct(productID: String, purchaseToken: String) async throws {
        let response = try await call(
            "POST", ["purchases", "products", nonEmpty(productID, "product id"), "tokens", nonEmpty(purchaseToken, "purchase token")],
            suffix: ":acknowledge", body: Array("{}".utf8))
        try Self.check(response, what: "product acknowledgement", rejectionIsNotFound: false)
    }

    /// `GET …/purchases/voidedpurchases?type=1`: one page of the purchases (one-time products and
    /// subscriptions, one entry per voided order) that were canceled, refunded or charged back and
    /// that Google's systems saw voided in `startTime...endTime` (Google's rule: not the
    /// `voidedTimeMillis` it returns). Google refuses a `startTime` older than 30 days and an
    /// `endTime` in the future, and ignores both when `pageToken` is set.
    /// - Parameters:
    ///   - endTime: nil for "now" (Google's default).
    ///   - pageToken: the previous page's `nextPageToken`; nil for the first page.
    /// - Throws: `GooglePlayError` (`.requestRejected` for a refused window or page token,
    ///   `.permissionDenied`, `.unauthorized`, `.tokenRejected`), `UpstreamError` on outages or an
    ///   unreadable answer.
    public func voidedPurchases(startTime: Date, endTime: Date?, pageToken: String?) async throws -> GooglePlayVoidedPurchasesPage {
        var query = [("startTime", Self.milliseconds(startTime))]
        if let endTime { query.append(("endTime", Self.milliseconds(endTime))) }
        query.append(("type", "1"))
        if let pageToken { query.append(("token", pageToken)) }
        let response = try await call("GET", ["purchases", "voidedpurchases"], query: query)
        try Self.check(response, what: "voided purchases list", rejectionIsNotFound: false)
        return try GooglePlayVoidedPurchasesPage(json: response.body)
    }

    // MARK: - Requests

    /// Unix milliseconds as Google's int64 query parameters take them.
    private static func milliseconds(_ date: Date) -> String {
        String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    private func nonEmpty(_ value: String, _ name: String) throws -> String {
        guard !value.isEmpty else { throw GooglePlayError(.purchaseNotFound, "the \(name) is empty") }
        return value
    }

    /// The URL of `applications/{package}/` + `segments` (each percent-encoded) + `suffix`, then
    /// `query` (names and values percent-encoded).
    func url(_ segments: [String], suffix: String = "", query: [(String, String)] = []) throws -> URL {
        var base = apiBase.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var path = "/androidpublisher/v3/applications/" + Self.percentEncode(packageName)
        for segment in segments { path += "/" + Self.percentEncode(segment) }
        let queryText = query.isEmpty ? "" : "?" + query.map { Self.percentEncode($0.0) + "=" + Self.percentEncode($0.1) }.joined(separator: "&")
        guard !packageName.isEmpty, let url = URL(string: base + path + suffix + queryText) else {
            throw GooglePlayError(
                .invalidConfiguration, "cannot form a Play Developer API URL from base \(base.prefix(200)) and package \(packageName.prefix(200))")
        }
        return url
    }

    /// Sends `method` to `applications/{package}/` + `segments` with a bearer token, once more with a fresh one after a 401.
    func call(
        _ method: String, _ segments: [String], suffix: String = "", query: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> OutboundResponse {
        let url = try url(segments, suffix: suffix, query: query)
        var token = try await tokens.accessToken()
        var response = try await Self.send(request(method, url, token: token, body: body), via: http)
        guard response.status == 401 else { return response }
        await tokens.invalidate(token)
        token = try await tokens.accessToken()
        response = try await Self.send(request(method, url, token: token, body: body), via: http)
        guard response.status == 401 else { return response }
        await tokens.invalidate(token)
        throw GooglePlayError(
            .unauthorized,
            "the Play Developer API refused a freshly issued access token (401): check that the Google Play Android Developer API is enabled for the service account's project"
        )
    }

    private func request(_ method: String, _ url: URL, token: String, body: [UInt8]) -> OutboundRequest {
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer " + token), ("Accept", "application/json")]
        if !body.isEmpty { headers.append(("Content-Type", "application/json")) }
        return OutboundRequest(method: method, url: url, headers: headers, body: body, timeout: timeout)
    }

    /// Sends through `http`, naming the service `play_store` in every failure.
    static func send(_ request: OutboundRequest, via http: any OutboundHTTPClient) async throws -> OutboundResponse {
        do {
            return try await http.send(request)
        } catch let error as UpstreamError {
            throw UpstreamError(service: service, kind: error.kind, message: error.message)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw UpstreamError(service: service, kind: .unreachable, message: "\(request.method) \(request.url.host ?? "") failed")
        }
    }

    /// Maps a non-2xx answer to the right error.
    private static func check(_ response: OutboundResponse, what: String, rejectionIsNotFound: Bool = true) throws {
        let status = response.status
        if (200..<300).contains(status) { return }
        let detail = GoogleJSON.apiErrorSummary(response.body).map { ": \($0)" } ?? ""
        switch status {
        case 404, 410:
            throw GooglePlayError(.purchaseNotFound, "Google Play has no such \(what) (\(status))\(detail)")
        case 400 where rejectionIsNotFound:
            throw GooglePlayError(.purchaseNotFound, "Google Play rejected the purchase token (400)\(detail)")
        case 403:
            throw GooglePlayError(
                .permissionDenied,
                "the service account may not read this app's purchases (403)\(detail). Invite it in Play Console with the financial-data and order-management permissions"
            )
        case 429, 500...:
            throw UpstreamError(service: service, kind: .badStatus(status), message: "the Play Developer API answered \(status) for the \(what)")
        case 400..<500:
            throw GooglePlayError(.requestRejected, "Google Play refused the \(what) (\(status))\(detail)")
        default:
            throw UpstreamError(service: service, kind: .badStatus(status), message: "the Play Developer API answered \(status) for the \(what)")
        }
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters, so a path segment
    /// cannot add segments, a query or a fragment.
    static func percentEncode(_ text: String) -> String {
        // "." and ".." are unreserved but would be read as dot-segments.
        if text == "." { return "%2E" }
        if text == ".." { return "%2E%2E" }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
