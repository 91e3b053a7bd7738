import Foundation
import Testing

@testable import TollgateClient

@Suite("Reading API.md's shapes and headers without a server")
struct WireFormatTests {
    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONCoding.decode(T.self, from: APIResponse(status: 200, body: Data(json.utf8), requestID: nil))
    }

    static let info = #"""
        {"purchaser_info": {"app_user_id": "u1", "email": "a@b.c", "stripe_customer_id": "cus_1"},
         "purchase": {"platform": "stripe", "product_id": "price_1", "subscription_id": "sub_1", "status": "canceled", "expires_at": "2026-11-21T18:00:00Z"},
         "entitlements": [{"id": "premium", "expires_at": "2026-11-21T18:00:00.250Z", "active": false}]}
        """#

    @Test("The statuses the live tests do not reach: expired_subscription, error; an unknown one is an invalid_response error")
    func otherStatuses() throws {
        let expired = try Self.decode(
            RedemptionResult.self, #"{"status": "expired_subscription", "code": "K7P2-9QXM-4D8R-2WTF", "redemption_info": \#(Self.info)}"#)
        guard case .expiredSubscription(let code, let info) = expired else {
            Issue.record("got \(expired)")
            return
        }
        #expect(code == "K7P2-9QXM-4D8R-2WTF")
        #expect(info.purchase.expiresAt == Date(timeIntervalSince1970: 1_795_284_000))
        #expect(info.entitlements.first?.expiresAt == Date(timeIntervalSince1970: 1_795_284_000.25), "fractional seconds are read too")
        #expect(info.purchaserInfo.stripeCustomerID == "cus_1")
        let failed = try Self.decode(RedemptionResult.self, #"{"status": "error", "code": "X", "error": {"message": "Try later."}}"#)
        #expect(failed == .error(code: "X", message: "Try later."))
        let unknown = #expect(throws: TollgateClientError.self) { try Self.decode(RedemptionResult.self, #"{"status": "maybe"}"#) }
        #expect(unknown?.code == .invalidResponse)
    }

    @Test("Checkout status: pending with poll_after_seconds, failed")
    func checkoutStatuses() throws {
        let pending = try Self.decode(CheckoutStatus.Wire.self, #"{"status": "pending", "poll_after_seconds": 5}"#)
        #expect(try pending.status(requestID: nil) == .pending(pollAfter: .seconds(5)))
        #expect(try Self.decode(CheckoutStatus.Wire.self, #"{"status": "failed"}"#).status(requestID: nil) == .failed)
    }

    @Test("Error bodies: API.md's object, or the status alone when a proxy answered")
    func errors() {
        let api = HTTPTransport.error(
            status: 503, body: Data(#"{"error": {"code": "not_configured", "message": "Stripe is not set up.", "retryable": false}}"#.utf8),
            retryAfter: nil, requestID: "r1")
        #expect(api == TollgateClientError(code: .notConfigured, message: "Stripe is not set up.", retryable: false, status: 503, requestID: "r1"))
        let bare = HTTPTransport.error(status: 502, body: Data("<html>Bad gateway</html>".utf8), retryAfter: "7", requestID: nil)
        #expect(bare.code == .upstreamUnavailable && bare.retryable && bare.retryAfter == .seconds(7))
    }

    @Test("Retry-After as seconds or an HTTP-date; backoff doubles within its bounds")
    func retryTiming() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
        #expect(RetryPolicy.parseRetryAfter("12") == .seconds(12))
        #expect(RetryPolicy.parseRetryAfter("soon") == nil)
        let policy = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(4), maxRetryAfter: .seconds(10))
        for (attempt, expected) in [(1, 1.0), (2, 2.0), (3, 4.0), (9, 4.0)] {
            let delay = policy.delay(afterAttempt: attempt, retryAfter: nil) ?? .zero
            #expect(delay >= .seconds(expected * 0.75) && delay <= .seconds(expected * 1.25))
        }
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(9)) == .seconds(9))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(11)) == nil)
    }
}
