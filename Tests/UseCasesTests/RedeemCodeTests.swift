import Domain
import Foundation
import Storage
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
            #expect(again.tokens?.accessToken != redeemed.tokens?.accessToken, "each retry gets a working session of its own")
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

    // MARK: - Concurrent redemptions (PostgreSQL runs them at once; SQLite's writer takes turns)

    /// Redeems `requests` all at once.
    static func redeemAtOnce(_ bench: UseCaseBench, _ requests: [RedeemCode.Request]) async throws -> [RedeemCode.Answer] {
        let redeem = bench.redeem, now = bench.now
        return try await withThrowingTaskGroup(of: RedeemCode.Answer.self) { group in
            for request in requests { group.addTask { try await redeem.redeem(request, now: now).answer } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("Thirty first redemptions at once, each of its own code: each redeems, and none has to run again")
    func concurrentFirstRedemptions() async throws {
        let bench = try UseCaseBench(connections: 16)
        let codes = try (0..<30).map { try bench.paidPurchase("sub_\($0)").1 }
        let answers = try await Self.redeemAtOnce(
            bench,
            codes.enumerated().map {
                RedeemCode.Request(code: $0.element.display, appUserID: "user-\($0.offset)", deviceID: nil, bearer: nil)
            })
        #expect(answers.filter { if case .redeemed = $0 { true } else { false } }.count == 30, "\(answers)")
        #expect(try bench.dump("redemption_codes").filter { $0.contains("redeemed") }.count == 30)
        // Redemptions of different codes touch different rows: on PostgreSQL none may lose a
        // serialization race (a redemption that lost ten in a row used to answer 500 under load).
        #expect((bench.database as? PostgresDatabase)?.conflictRetries ?? 0 == 0)
    }

    @Test("One code redeemed by two app users at once, ten times over: one holder, and the other joins it")
    func concurrentRedemptionsOfOneCode() async throws {
        let bench = try UseCaseBench(connections: 16)
        for round in 0..<10 {
            let (purchase, code) = try bench.paidPurchase("sub_\(round)")
            let answers = try await Self.redeemAtOnce(
                bench,
                ["a", "b"].map {
                    RedeemCode.Request(code: code.display, appUserID: "user-\(round)-\($0)", deviceID: nil, bearer: nil)
                })
            let accounts = answers.compactMap { if case .redeemed(let redeemed, _) = $0 { redeemed.account.id } else { nil } }
            #expect(accounts.count == 2 && Set(accounts).count == 1, "round \(round): \(answers)")
            let holder = try bench.database.readSync { try PurchaseRepository.require(id: purchase.id, on: $0).accountID }
            #expect(holder == accounts.first)
        }
    }

    @Test("Twelve devices redeeming one account's code at once: the account keeps at most its five devices")
    func concurrentDevicesKeepTheLimit() async throws {
        let bench = try UseCaseBench(connections: 16)
        let (_, code) = try bench.paidPurchase()
        _ = try await bench.redeem.redeem(RedeemCode.Request(code: code.display, appUserID: "user-1", deviceID: "d-0", bearer: nil), now: bench.now)
        let answers = try await Self.redeemAtOnce(
            bench,
            (1...12).map {
                RedeemCode.Request(code: code.display, appUserID: "user-1", deviceID: "d-\($0)", bearer: nil)
            })
        #expect(answers.allSatisfy { if case .redeemed = $0 { true } else { false } }, "\(answers)")
        let active = try bench.database.readSync { try $0.queryOne("SELECT count(*) AS n FROM devices WHERE signed_out_at IS NULL")?.int("n") }
        #expect(active == bench.policy.maxDevices)
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
        let resend = ResendCodes(database: bench.database, resend: bench.resend, codeMail: bench.codeMail)
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
        let tokens = try #require(redeemed.tokens)
        let replies = IdempotentReplies(database: bench.database, secrets: bench.secrets)
        let body = Array(#"{"code":"\#(code.display)","access_token":"\#(tokens.accessToken)","refresh_token":"\#(tokens.refreshToken)"}"#.utf8)
        let reply = IdempotentReplies.Reply(requestHash: "h", status: 200, contentType: "application/json", body: body)
        try await replies.store(reply, scope: "redeem", key: "key-1", now: bench.now)
        #expect(try await replies.find(scope: "redeem", key: "key-1", now: bench.now) == reply)
        #expect(try await replies.find(scope: "codes.resend", key: "key-1", now: bench.now) == nil, "a reply is bound to its scope")

        let secrets = [code.display, code.canonical, tokens.accessToken, tokens.refreshToken]
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
