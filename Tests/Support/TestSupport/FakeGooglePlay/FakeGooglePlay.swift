import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

/// A fake Google Play on loopback: Google's OAuth token endpoint (verifying service-account
/// assertions as Google does) and the Play Developer API's purchase endpoints, with purchase
/// state set by the test.
///
/// Usage: create it, write `serviceAccountJSON()` (its `token_uri` points here) or
/// `writeServiceAccountFile(in:)`, point the client's API base at `baseURL`, then
/// `setSubscription(...)` / `setProduct(...)` / `voidPurchase(...)`. Inspect `tokenRequestCount`,
/// `acknowledgements`, `tokenRejections` and `requests`. Switches: `setOutage(_:)`,
/// `revokeIssuedTokens()`, `setRejectAllBearerTokens(_:)`, `setTokenLifetime(seconds:asString:)`,
/// `setTokenEndpointDelay(_:)`.
///
/// Wire details (from the discovery document and Google's documented errors): tokens are
/// `POST /token` (form `grant_type`, `assertion`); unknown/expired bearer → 401
/// `UNAUTHENTICATED`; unknown purchase token → 404; acknowledging an acknowledged (or
/// unpaid) purchase → 400 `invalidPurchaseState` — the API reference does not document this,
/// but Google answers so in practice (reported in googleapis client issues).
public final class FakeGooglePlay: Sendable {
    /// `purchases.subscriptionsv2` states, with their wire values.
    public enum SubscriptionState: String, Sendable, CaseIterable {
        case pending = "SUBSCRIPTION_STATE_PENDING"
        case active = "SUBSCRIPTION_STATE_ACTIVE"
        case paused = "SUBSCRIPTION_STATE_PAUSED"
        case inGracePeriod = "SUBSCRIPTION_STATE_IN_GRACE_PERIOD"
        case onHold = "SUBSCRIPTION_STATE_ON_HOLD"
        case canceled = "SUBSCRIPTION_STATE_CANCELED"
        case expired = "SUBSCRIPTION_STATE_EXPIRED"
        case pendingPurchaseCanceled = "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED"
    }

    /// `purchases.products` `purchaseState` values.
    public enum ProductState: Int, Sendable, CaseIterable {
        case purchased = 0, canceled = 1, pending = 2
    }

    /// One successful acknowledgement call.
    public struct Acknowledgement: Sendable, Equatable {
        /// `subscriptions` or `products`.
        public var kind: String
        /// The `{subscriptionId}` / `{productId}` path segment.
        public var productID: String
        public var purchaseToken: String

        /// Creates a record (tests compare with `acknowledgements`).
        public init(kind: String, productID: String, purchaseToken: String) {
            self.kind = kind
            self.productID = productID
            self.purchaseToken = purchaseToken
        }
    }

    /// The package name the API serves; others get 404.
    public let packageName: String
    /// The service account's email, key and key id the token endpoint accepts.
    public let clientEmail: String
    public let privateKeyID: String
    /// The PEM private key of the test service account (google-auth-testdata's key).
    public let privateKeyPEM: String

    let core: FakeGooglePlayCore
    private let server: FakeHTTPServer

    /// `http://127.0.0.1:PORT`: the API base for `GooglePlayClient`.
    public var baseURL: String { server.baseURL }
    /// The token endpoint (`baseURL/token`): the service account's `token_uri`.
    public var tokenURL: String { server.baseURL + "/token" }
    /// Every request received, in order.
    public var requests: [HTTPRequest] { server.requests }

    /// Starts the fake on a free loopback port.
    /// - Parameters:
    ///   - now: the fake's clock (token expiry, assertion `iat` checks); share it with the client's.
    /// - Throws: if the vector key cannot be read or no port can be bound.
    public init(
        packageName: String = "com.example.app", clientEmail: String = "tollgate-test@fake-project.iam.gserviceaccount.com",
        privateKeyID: String = "fake-key-1", now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        let pem = try String(contentsOf: SharedVectors.url("google/google-auth-testdata/privatekey.pem"), encoding: .utf8)
        let publicKey = try SigningKey(pem: pem).verificationKey()
        self.packageName = packageName
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.privateKeyPEM = pem
        let core = FakeGooglePlayCore(
            packageName: packageName, clientEmail: clientEmail, privateKeyID: privateKeyID, publicKey: publicKey, now: now)
        self.core = core
        server = try FakeHTTPServer { request in await core.handle(request) }
        core.setTokenURL(server.baseURL + "/token")
    }

    /// Stops the server.
    public func stop() async { await server.stop() }

    // MARK: Service account

    /// A service-account JSON key file whose `token_uri` is this fake's token endpoint, or `tokenURL`.
    public func serviceAccountJSON(clientEmail: String? = nil, privateKeyID: String? = nil, tokenURL: String? = nil) -> [UInt8] {
        let object: [String: Any] = [
            "type": "service_account", "project_id": "fake-project", "private_key_id": privateKeyID ?? self.privateKeyID,
            "private_key": privateKeyPEM, "client_email": clientEmail ?? self.clientEmail, "client_id": "1234",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURL ?? self.tokenURL
        ]
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// Writes `serviceAccountJSON()` to `play-service-account.json` in `directory` and returns its URL.
    /// - Throws: if the file cannot be written.
    public func writeServiceAccountFile(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("play-service-account.json")
        try Data(serviceAccountJSON()).write(to: url)
        return url
    }

    // MARK: Purchase state

    /// Makes `token` a subscription purchase in `state` whose single line item is `productID`
    /// expiring at `expiry`.
    public func setSubscription(
        token: String, state: SubscriptionState, productID: String, expiry: Date, acknowledged: Bool = false,
        linkedPurchaseToken: String? = nil, obfuscatedAccountID: String? = nil, testPurchase: Bool = false,
        startTime: Date? = nil, orderID: String? = nil, offerID: String? = nil, deferredReplacementProductID: String? = nil
    ) {
        core.state.withLock {
            $0.subscriptions[token] = FakeGooglePlayCore.SubscriptionRecord(
                state: state, productID: productID, expiry: expiry, acknowledged: acknowledged,
                linkedPurchaseToken: linkedPurchaseToken, obfuscatedAccountID: obfuscatedAccountID, testPurchase: testPurchase,
                startTime: startTime ?? expiry.addingTimeInterval(-30 * 86_400), orderID: orderID ?? "GPA.0000-0000-0000-\(Self.digits(token))",
                offerID: offerID, deferredReplacementProductID: deferredReplacementProductID)
        }
    }

    /// Makes `token` a one-time purchase of `productID`.
    public func setProduct(
        token: String, productID: String, state: ProductState = .purchased, acknowledged: Bool = false, consumed: Bool = false,
        obfuscatedAccountID: String? = nil, purchaseTime: Date = Date(timeIntervalSince1970: 1_700_000_000),
        testPurchase: Bool = false, orderID: String? = nil
    ) {
        core.state.withLock {
            $0.products[token] = FakeGooglePlayCore.ProductRecord(
                productID: productID, state: state, acknowledged: acknowledged, consumed: consumed,
                obfuscatedAccountID: obfuscatedAccountID, purchaseTime: purchaseTime, testPurchase: testPurchase,
                orderID: orderID ?? "GPA.1111-2222-3333-\(Self.digits(token))")
        }
    }

    /// Voids the purchase `token` (set before with `setSubscription` or `setProduct`) as Google does
    /// on a refund, chargeback or revocation: `voidedpurchases.list` lists the order (its
    /// `purchaseTimeMillis` the purchase's own time, its `orderId` the purchase's unless given: a
    /// subscription renewal has its own), and, for a full void, a one-time product reads
    /// `purchaseState` 1 (canceled) and a revoked subscription `SUBSCRIPTION_STATE_EXPIRED`, its
    /// expiry no later than the void. A quantity-based partial refund (`voidedQuantity`) changes
    /// neither.
    /// - Parameters:
    ///   - voidedTime: `voidedTimeMillis`.
    ///   - seenAt: when Google's systems saw it voided (what `startTime`/`endTime` filter on);
    ///     `voidedTime` when nil.
    ///   - source: `voidedSource` (0 user, 1 developer, 2 Google); `reason`: `voidedReason`.
    ///   - revokesSubscription: false for a refund that leaves the subscription running.
    /// - Returns: false when the fake knows no purchase `token` (nothing is listed).
    @discardableResult
    public func voidPurchase(
        token: String, voidedTime: Date, seenAt: Date? = nil, orderID: String? = nil, source: Int = 0, reason: Int = 1,
        voidedQuantity: Int? = nil, revokesSubscription: Bool = true
    ) -> Bool {
        core.state.withLock { state in
            let record: FakeGooglePlayCore.VoidedRecord
            if var subscription = state.subscriptions[token] {
                record = .init(
                    purchaseToken: token, orderID: orderID ?? subscription.orderID, isSubscription: true, purchaseTime: subscription.startTime,
                    voidedTime: voidedTime, seenAt: seenAt ?? voidedTime, source: source, reason: reason, voidedQuantity: voidedQuantity)
                if revokesSubscription, voidedQuantity == nil {
                    subscription.state = .expired
                    subscription.expiry = min(subscription.expiry, voidedTime)
                    state.subscriptions[token] = subscription
                }
            } else if var product = state.products[token] {
                record = .init(
                    purchaseToken: token, orderID: orderID ?? product.orderID, isSubscription: false, purchaseTime: product.purchaseTime,
                    voidedTime: voidedTime, seenAt: seenAt ?? voidedTime, source: source, reason: reason, voidedQuantity: voidedQuantity)
                if voidedQuantity == nil {
                    product.state = .canceled
                    state.products[token] = product
                }
            } else {
                return false
            }
            state.voided.append(record)
            return true
        }
    }

    /// Five digits derived from `token`, for readable deterministic order ids.
    private static func digits(_ token: String) -> String {
        let value = token.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) % 100_000 }
        return String(value + 100_000).dropFirst().description
    }

    /// Forgets `token` (subscription or product): the API answers 404 for it.
    public func removePurchase(token: String) {
        core.state.withLock {
            $0.subscriptions[token] = nil
            $0.products[token] = nil
        }
    }

    /// Whether the purchase `token` is acknowledged; nil when unknown.
    public func isAcknowledged(token: String) -> Bool? {
        core.state.withLock { $0.subscriptions[token]?.acknowledged ?? $0.products[token]?.acknowledged }
    }

    // MARK: Inspection

    /// Requests to the token endpoint, accepted or not.
    public var tokenRequestCount: Int { core.state.withLock { $0.tokenRequests } }
    /// Tokens issued so far.
    public var issuedTokenCount: Int { core.state.withLock { $0.issued.count } }
    /// The `error_description` of every refused token request, in order.
    public var tokenRejections: [String] { core.state.withLock { $0.tokenRejections } }
    /// Successful acknowledgement calls, in order.
    public var acknowledgements: [Acknowledgement] { core.state.withLock { $0.acknowledgements } }
    /// Calls to the androidpublisher endpoints (any outcome).
    public var apiRequestCount: Int { core.state.withLock { $0.apiRequests } }

    // MARK: Switches

    /// With `true`, every endpoint answers 503.
    public func setOutage(_ on: Bool) { core.state.withLock { $0.outage = on } }
    /// The `expires_in` of tokens issued from now on, as a JSON number or (`asString`) a string.
    public func setTokenLifetime(seconds: Int, asString: Bool = false) {
        core.state.withLock {
            $0.tokenLifetime = seconds
            $0.tokenLifetimeAsString = asString
        }
    }
    /// The `voidedpurchases.list` page size when the request sets no `maxResults` (Google leaves
    /// its default unpublished; the fake's is 1000).
    public func setVoidedPageSize(_ size: Int) { core.state.withLock { $0.voidedPageSize = max(1, size) } }
    /// Makes every token issued so far invalid (the API answers 401 to them).
    public func revokeIssuedTokens() { core.state.withLock { $0.revokedBefore = $0.issued.count } }
    /// With `true`, the API answers 401 to every bearer token, even fresh ones.
    public func setRejectAllBearerTokens(_ on: Bool) { core.state.withLock { $0.rejectAllBearers = on } }
    /// Delays every token endpoint answer (to exercise concurrent callers).
    public func setTokenEndpointDelay(_ delay: Duration) { core.state.withLock { $0.tokenDelay = delay } }

    /// Makes every Play Developer API call wait `delay` before it is answered (a slow Google).
    public func setAPIDelay(_ delay: Duration) { core.state.withLock { $0.apiDelay = delay } }
}
