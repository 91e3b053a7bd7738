import Domain
import Foundation
import Testing
import UseCases

/// `RedeemCode` without HTTP: the statuses, what counts as a failure, and mail queued only
/// after its transaction committed.
@Suite("RedeemCode use case")
struct RedeemCodeTests {
    @Test("A first redemption succeeds; its retries answer the same account; an unknown code is a failure")
    func redeemsAndRepeats() async throws {
        let bench = try UseCaseBench()
        let (purchase, code) = try bench.paidPurchase()
        let redeem = bench.redeem
        let request = RedeemCode.Request(code: code.display.lowercased(), appUserID: "user-1", deviceID: nil, bearer: nil)
        let first = try await redeem.redeem(request, now: bench.now)
        guard case .redeemed(let redeemed, let entitlements) = first.answer else { Issue.record("not redeemed: \(first.answer)"); return }
        #expect(redeemed.purchase.id == purchase.id)
        #expect(entitlements.map(\.id) == ["premium"] && entitlements.allSatisfy(\.active))
        #expect(!first.isFailure)
        for _ in 0..<3 {
            guard case .redeemed(let again, _) = try await redeem.redeem(request, now: bench.now).answer else { Issue.record("retry"); return }
            #expect(again.account.id == redeemed.account.id)
            #expect(again.tokens.accessToken != redeemed.tokens.accessToken, "each retry gets a working session of its own")
        }
        let unknown = try await redeem.redeem(
            RedeemCode.Request(code: "AAAA-BBBB-CCCC-DDDD", appUserID: "user-1", deviceID: nil, bearer: nil), now: bench.now)
        guard case .invalidCode = unknown.answer else { Issue.record("unknown: \(unknown.answer)"); return }
        #expect(unknown.isFailure)
    }

    @Test("An expired code answers expired_code, queues one fresh code and wakes delivery; a second try within the interval does not")
    func expiredCodeResends() async throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase()
        let mailBefore = try bench.pendingMail()
        bench.advance(3601)
        let request = RedeemCode.Request(code: code.display, appUserID: "user-1", deviceID: nil, bearer: nil)
        let result = try await bench.redeem.redeem(request, now: bench.now)
        guard case .expiredCode(let resent, let email) = result.answer else { Issue.record("\(result.answer)"); return }
        #expect(resent && email == "buyer@example.com")
        #expect(try bench.pendingMail() == mailBefore + 1)
        #expect(bench.wakes.count.load(ordering: .relaxed) == 1)
        guard case .expiredCode(false, _) = try await bench.redeem.redeem(request, now: bench.now).answer else { Issue.record("throttle"); return }
        #expect(try bench.pendingMail() == mailBefore + 1)
        #expect(!result.isFailure, "an expired code is not a guess")
    }

    @Test("An invalid bearer token is refused as unauthorized before anything is written")
    func invalidBearer() async throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase()
        await #expect(throws: UseCaseError.self) {
            _ = try await bench.redeem.redeem(RedeemCode.Request(code: code.display, appUserID: "u", deviceID: nil, bearer: "nope"), now: bench.now)
        }
        #expect(try bench.dump("app_users").isEmpty)
    }
}

/// `ResendCodes`: fresh codes for an email's active web purchases, throttled, no enumeration.
@Suite("ResendCodes use case")
struct ResendCodesTests {
    @Test("Sends one fresh code per active purchase, then waits out the interval; an unknown email sends nothing")
    func resends() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase("sub_a")
        _ = try bench.paidPurchase("sub_b")
        let resend = ResendCodes(database: bench.database, redemption: bench.redemption, codeMail: bench.codeMail)
        #expect(try await resend.resend(to: "buyer@example.com", now: bench.now) == 2)
        #expect(try await resend.resend(to: "buyer@example.com", now: bench.now) == 0)
        #expect(try await resend.resend(to: "nobody@example.com", now: bench.now) == 0)
        bench.advance(601)
        #expect(try await resend.resend(to: "buyer@example.com", now: bench.now) == 2)
    }
}

/// No code, token or session secret is stored in plaintext anywhere, replies to
/// `Idempotency-Key` requests included (API.md "Limits that protect everyone").
@Suite("Secrets at rest")
struct SecretsAtRestTests {
    @Test("After a checkout, a redemption and an idempotent reply holding both, no table holds the code or a token")
    func noPlaintextSecrets() async throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase()
        let result = try await bench.redeem.redeem(
            RedeemCode.Request(code: code.display, appUserID: "user-1", deviceID: nil, bearer: nil), now: bench.now)
        guard case .redeemed(let redeemed, _) = result.answer else { Issue.record("not redeemed"); return }
        let replies = IdempotentReplies(database: bench.database, secrets: bench.secrets)
        let body = Array(#"{"code":"\#(code.display)","access_token":"\#(redeemed.tokens.accessToken)","refresh_token":"\#(redeemed.tokens.refreshToken)"}"#.utf8)
        let reply = IdempotentReplies.Reply(requestHash: "h", status: 200, contentType: "application/json", body: body)
        try await replies.store(reply, scope: "redeem", key: "key-1", now: bench.now)
        #expect(try await replies.find(scope: "redeem", key: "key-1", now: bench.now) == reply)
        #expect(try await replies.find(scope: "codes.resend", key: "key-1", now: bench.now) == nil, "a reply is bound to its scope")

        let secrets = [code.display, code.canonical, redeemed.tokens.accessToken, redeemed.tokens.refreshToken]
        var scanned = 0
        for table in try bench.tables() {
            for row in try bench.dump(table) {
                scanned += 1
                for secret in secrets { #expect(!row.contains(secret), "\(table) holds a secret") }
            }
        }
        #expect(scanned > 5)
    }
}
