import Foundation
import Testing
import TollgateClient

extension LiveServiceTests {
    @Suite("Retries through a proxy that drops connections and answers 503 / 429")
    struct RetryTests {
        @Test("Dropped answers and a 503 are retried with one Idempotency-Key; the service redeemed once and replayed the rest")
        func droppedAndUnavailable() async throws {
            try await LiveTollgate.run { live in
                let code = try await live.paidCode()
                // 1: the service redeems but the answer is lost; 2: dropped unseen; 3: 503; 4: through.
                let proxy = try live.proxy([.forwardThenDrop, .drop, .answer(status: 503, headers: [:]), .forward])
                defer { proxy.stop() }
                let client = live.client(through: proxy)
                let result = try await client.redeem(code: code, appUserID: "user-1", deviceID: "device-1")
                guard case .success = result else {
                    Issue.record("expected success, got \(result)")
                    return
                }
                let attempts = proxy.received
                #expect(attempts.count == 4)
                let keys = Set(attempts.map { $0.headers["idempotency-key"] ?? "" })
                #expect(keys.count == 1 && UUID(uuidString: keys.first ?? "") != nil, "one UUID key on every attempt: \(keys)")
                #expect(attempts.allSatisfy { $0.headers["x-api-key"] == LiveTollgate.apiKey })
                #expect(attempts[0].upstreamHead?.hasPrefix("HTTP/1.1 200") == true)
                #expect(attempts[0].upstreamHead?.lowercased().contains("idempotent-replayed") == false, "the first attempt did the work")
                #expect(attempts[3].upstreamHead?.lowercased().contains("idempotent-replayed: true") == true, "the last got the stored answer")
                #expect(try await live.count("SELECT count(*) FROM accounts") == 1)
                #expect(try await live.count("SELECT count(*) FROM idempotency_keys") == 1)

                // The next logical call has a key of its own.
                _ = try await client.redeem(code: code, appUserID: "user-1", deviceID: "device-1")
                #expect(proxy.received.count == 5)
                #expect(proxy.received[4].headers["idempotency-key"] != keys.first)
            }
        }

        @Test("A 429's Retry-After is waited out before the retry")
        func retryAfter() async throws {
            try await LiveTollgate.run { live in
                let proxy = try live.proxy([.answer(status: 429, headers: ["Retry-After": "1"]), .forward])
                defer { proxy.stop() }
                let result = try await live.client(through: proxy).redeem(code: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "user-1")
                #expect(result == .invalidCode(code: "ZZZZ-ZZZZ-ZZZZ-ZZZZ"))
                let attempts = proxy.received
                #expect(attempts.count == 2)
                #expect(attempts[1].receivedAt - attempts[0].receivedAt >= .seconds(1), "the backoff alone is 20 ms")
                #expect(attempts[0].headers["idempotency-key"] == attempts[1].headers["idempotency-key"])
            }
        }

        @Test("A Retry-After beyond the policy's limit ends the call at once with a typed rate_limited error")
        func retryAfterTooLong() async throws {
            try await LiveTollgate.run { live in
                let proxy = try live.proxy([.answer(status: 429, headers: ["Retry-After": "120"])])
                defer { proxy.stop() }
                let error = await #expect(throws: TollgateClientError.self) {
                    try await live.client(through: proxy).redeem(code: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "user-1")
                }
                #expect(error?.code == .rateLimited && error?.status == 429 && error?.retryable == true)
                #expect(error?.retryAfter == .seconds(120))
                #expect(proxy.received.count == 1)
            }
        }

        @Test("Seven dropped connections: the first attempt and API.md's 6 retries, then a retryable network error")
        func givesUp() async throws {
            #expect(RetryPolicy.standard.maxAttempts - 1 == 6, "API.md: SDKs retry up to 6 times")
            try await LiveTollgate.run { live in
                let proxy = try live.proxy(Array(repeating: .drop, count: 7))
                defer { proxy.stop() }
                let error = await #expect(throws: TollgateClientError.self) {
                    try await live.client(through: proxy).redeem(code: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "user-1")
                }
                #expect(error?.code == .network && error?.retryable == true && error?.status == nil)
                #expect(proxy.received.count == 7)
            }
        }

        @Test("A refresh whose answer was lost is not sent again: a rotated refresh token used twice revokes the sign-in")
        func refreshIsNotRetriedAfterSending() async throws {
            try await LiveTollgate.run { live in
                let storage = InMemoryTokenStorage()
                _ = try await live.client(storage: storage).redeem(code: try await live.paidCode(), appUserID: "user-1")
                let proxy = try live.proxy([.forwardThenDrop])
                defer { proxy.stop() }
                let error = await #expect(throws: TollgateClientError.self) {
                    try await live.client(storage: storage, through: proxy).refreshSession()
                }
                #expect(error?.code == .network)
                #expect(proxy.received.count == 1)
            }
        }
    }
}
