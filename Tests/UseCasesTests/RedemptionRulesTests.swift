import Crypto
import Domain
import Foundation
import Storage
import Testing
@testable import UseCases

/// The completion and redemption rules, each run in one write of its use case (`CompleteCheckout`'s
/// `completePaid`, `RedeemCode`'s full path and its repeat), on a connection as the use case hands it.
@Suite("Checkout completion and redemption")
struct RedemptionRulesTests {
    static func policy(_ policy: OtherUserPolicy = .switch, maxDevices: Int = 5) -> RedemptionPolicy {
        RedemptionPolicy(onOtherUser: policy, maxDevices: maxDevices, codeTTL: 3600, resendInterval: 600)
    }

    /// Completes a checkout and returns the plaintext code.
    static func paidCode(_ db: UseCaseBench, appUserID: String? = nil) throws -> String {
        let completed = try db.complete(Fixtures.paid(appUserID: appUserID), codeTTL: 3600, now: Fixtures.t0)
        return try #require(completed.issued).code.display
    }

    @Test("Completing the same checkout twice issues exactly one code, kept sealed and hashed")
    func oneCode() throws {
        let db = try UseCaseBench()
        let first = try db.complete(Fixtures.paid(), codeTTL: 3600, now: Fixtures.t0)
        let second = try db.complete(Fixtures.paid(), codeTTL: 3600, now: Fixtures.t0.addingTimeInterval(5))
        let issued = try #require(first.issued)
        #expect(second.issued == nil)
        #expect(second.code.id == issued.record.id)
        let count = try db.write { try $0.queryOne("SELECT count(*) AS n FROM redemption_codes")?.int("n") }
        #expect(count == 1)
        // The plaintext is nowhere in the database file's rows.
        let stored = try db.write { try $0.queryOne("SELECT code_hash, code_sealed, hint FROM redemption_codes") }
        let hash = try #require(stored).string("code_hash")
        #expect(!hash.contains(issued.code.canonical))
        let sealed = try #require(stored).blob("code_sealed")
        #expect(!String(decoding: sealed, as: UTF8.self).contains(issued.code.canonical))
        #expect(!Hex.encode(sealed).uppercased().contains(issued.code.canonical))
        #expect(try stored?.string("hint") == String(issued.code.canonical.suffix(4)))
        #expect(try CodeRepository.reveal(second.code, vault: db.vault) == issued.code)
        // The session id and payment intent both find the purchase.
        let bySession = try db.write { try PurchaseRepository.find(platform: .stripe, reference: "cs_test_1", on: $0) }
        let byIntent = try db.write { try PurchaseRepository.find(platform: .stripe, reference: "pi_1", on: $0) }
        #expect(bySession?.id == first.purchase.id && byIntent?.id == first.purchase.id)
    }

    @Test("A checkout started by an app user links the purchase to that user's account at once")
    func autoLink() throws {
        let db = try UseCaseBench()
        let completed = try db.complete(Fixtures.paid(appUserID: "user-1"), codeTTL: 3600, now: Fixtures.t0)
        let account = try db.write { try AccountRepository.find(appUserID: "user-1", on: $0) }
        #expect(completed.purchase.accountID == account?.id)
        #expect(completed.linkedAccount?.id == account?.id)
    }

    @Test("Redeeming links to the app user's new account; six retries answer the same")
    func redeemAndRetry() throws {
        let db = try UseCaseBench()
        let code = try Self.paidCode(db)
        var accounts: Set<String> = []
        for attempt in 0..<6 {
            let outcome = try db.redeemInWrite(
                code.lowercased(), appUserID: "user-1", deviceID: "d1", policy: Self.policy(), now: Fixtures.t0.addingTimeInterval(Double(attempt)))
            guard case .redeemed(let redeemed) = outcome else {
                Issue.record("attempt \(attempt): \(outcome)")
                return
            }
            #expect(!redeemed.accountSwitched)
            #expect(redeemed.isEntitled)
            #expect(redeemed.purchase.accountID == redeemed.account.id)
            accounts.insert(redeemed.account.id)
        }
        #expect(accounts.count == 1)
    }

    @Test("Codes are case-insensitive and look-alikes fold; garbage and unknown codes are invalid")
    func normalization() throws {
        let db = try UseCaseBench()
        let code = try Self.paidCode(db)
        let messy = " " + code.replacingOccurrences(of: "-", with: " ").lowercased().replacingOccurrences(of: "0", with: "o") + " "
        let outcome = try db.redeemInWrite(messy, appUserID: "u", deviceID: nil, policy: Self.policy(), now: Fixtures.t0)
        guard case .redeemed = outcome else { Issue.record("\(outcome)"); return }
        for garbage in ["", "not-a-code", "AAAA-AAAA-AAAA-AAAA", String(repeating: "Z", count: 5000)] {
            let result = try db.redeemInWrite(garbage, appUserID: "u", deviceID: nil, policy: Self.policy(), now: Fixtures.t0)
            guard case .invalidCode = result else { Issue.record("\(garbage.prefix(20)): \(result)"); return }
        }
    }

    @Test("A code key (normalized and hashed once per redemption) names the stored hash however the code is typed")
    func codeKey() throws {
        let db = try UseCaseBench()
        let code = try Self.paidCode(db)
        let stored = try db.write { try $0.queryOne("SELECT code_sha256 FROM redemption_codes")?.string("code_sha256") }
        let messy = code.replacingOccurrences(of: "-", with: " ").lowercased()
        let key = try #require(try CodeKey(normalizing: messy, vault: db.vault))
        #expect(key.hash == stored)
        #expect(key.code.display == code)
        #expect(try CodeKey(normalizing: "not-a-code", vault: db.vault) == nil)
        // The key's redemption is the text's.
        let redeem = db.redeemCode(policy: Self.policy())
        let session = try SessionRepository.draft(at: Fixtures.t0)
        let outcome = try db.write {
            try redeem.redemption(of: key, appUserID: "u", deviceID: nil, bearerAccountID: nil, session: session, on: $0, now: Fixtures.t0)
        }
        guard case .redeemed(let redeemed) = outcome else { Issue.record("\(outcome)"); return }
        #expect(redeemed.code == key.code)
    }

    @Test("Another app user: switch joins the holder's account, transfer moves the purchase, reject refuses")
    func otherUserPolicies() throws {
        for policy in [OtherUserPolicy.switch, .transfer, .reject] {
            let db = try UseCaseBench()
            let code = try Self.paidCode(db)
            let first = try db.redeemInWrite(code, appUserID: "owner", deviceID: "d1", policy: Self.policy(policy), now: Fixtures.t0)
            guard case .redeemed(let owner) = first else { Issue.record("\(first)"); return }
            for retry in 0..<2 {
                let second = try db.redeemInWrite(
                    code, appUserID: "other", deviceID: "d2", policy: Self.policy(policy), now: Fixtures.t0.addingTimeInterval(Double(10 + retry)))
                switch (policy, second) {
                case (.switch, .redeemed(let other)):
                    #expect(other.accountSwitched, "switch, try \(retry)")
                    #expect(other.account.id == owner.account.id)
                    let moved = try db.write { try AccountRepository.find(appUserID: "other", on: $0) }
                    #expect(moved?.id == owner.account.id)
                case (.transfer, .redeemed(let other)):
                    #expect(!other.accountSwitched)
                    #expect(other.account.id != owner.account.id)
                    #expect(other.purchase.accountID == other.account.id)
                    let ownersPurchases = try db.write { try PurchaseRepository.forAccount(owner.account.id, on: $0) }
                    #expect(ownersPurchases.isEmpty, "the old account lost the purchase")
                case (.reject, .belongsToOtherUser):
                    let purchase = try db.write { try PurchaseRepository.require(id: owner.purchase.id, on: $0) }
                    #expect(purchase.accountID == owner.account.id)
                default:
                    Issue.record("\(policy): \(second)")
                }
            }
        }
    }

    @Test("Past max_devices the least recently seen device is signed out")
    func deviceLimit() throws {
        let db = try UseCaseBench()
        let code = try Self.paidCode(db)
        var tokens: [String: String] = [:]
        for (index, device) in ["d1", "d2", "d3"].enumerated() {
            let outcome = try db.redeemInWrite(
                code, appUserID: "user-\(device)", deviceID: device, policy: Self.policy(.switch, maxDevices: 2),
                now: Fixtures.t0.addingTimeInterval(Double(index * 60)))
            guard case .redeemed(let redeemed) = outcome else { Issue.record("\(outcome)"); return }
            tokens[device] = redeemed.tokens?.accessToken
            if device == "d3" { #expect(redeemed.evictedDevices == ["d1"]) }
        }
        let now = Fixtures.t0.addingTimeInterval(200)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: tokens["d1"]!, on: $0, now: now) } == nil)
        #expect(try db.write { try SessionRepository.authenticate(accessToken: tokens["d3"]!, on: $0, now: now) } != nil)
    }

    @Test("An expired code answers expired_code and sends a fresh one at most once per interval")
    func expiredCodeResend() throws {
        let db = try UseCaseBench()
        let code = try Self.paidCode(db)
        let later = Fixtures.t0.addingTimeInterval(3601)
        let first = try db.redeemInWrite(code, appUserID: "u", deviceID: nil, policy: Self.policy(), now: later)
        guard case .expiredCode(let expired) = first, let fresh = expired.resent else { Issue.record("\(first)"); return }
        #expect(expired.email == "buyer@example.com")
        #expect(fresh.code.display != code)
        // The old code is now replaced: still expired_code, and throttled.
        let again = try db.redeemInWrite(code, appUserID: "u", deviceID: nil, policy: Self.policy(), now: later.addingTimeInterval(60))
        guard case .expiredCode(let throttled) = again else { Issue.record("\(again)"); return }
        #expect(throttled.resent == nil)
        // After the interval another resend is allowed.
        let much = try db.redeemInWrite(code, appUserID: "u", deviceID: nil, policy: Self.policy(), now: later.addingTimeInterval(601))
        guard case .expiredCode(let allowed) = much else { Issue.record("\(much)"); return }
        #expect(allowed.resent != nil)
        // Only the newest code redeems; the one it replaced answers expired_code.
        let newest = try #require(allowed.resent).code.display
        let redeemed = try db.redeemInWrite(newest, appUserID: "u", deviceID: nil, policy: Self.policy(), now: later)
        guard case .redeemed = redeemed else { Issue.record("\(redeemed)"); return }
        let replaced = try db.redeemInWrite(fresh.code.display, appUserID: "u", deviceID: nil, policy: Self.policy(), now: later)
        guard case .expiredCode = replaced else { Issue.record("\(replaced)"); return }
    }

    @Test("A revoked code is invalid; a lapsed purchase answers expired_subscription but is still linked")
    func revokedAndLapsed() throws {
        let db = try UseCaseBench()
        let completed = try db.complete(Fixtures.paid(), codeTTL: 3600, now: Fixtures.t0)
        let issued = try #require(completed.issued)
        _ = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(status: .expired, expires: -1, observed: 10), on: $0, now: Fixtures.t0) }
        let lapsed = try db.redeemInWrite(issued.code.display, appUserID: "u", deviceID: nil, policy: Self.policy(), now: Fixtures.t0)
        guard case .redeemed(let redeemed) = lapsed else { Issue.record("\(lapsed)"); return }
        #expect(!redeemed.isEntitled && redeemed.purchase.accountID == redeemed.account.id)
        #expect(try db.write { try CodeRepository.revoke(id: issued.record.id, on: $0, now: Fixtures.t0) })
        let revoked = try db.redeemInWrite(issued.code.display, appUserID: "u", deviceID: nil, policy: Self.policy(), now: Fixtures.t0)
        guard case .invalidCode = revoked else { Issue.record("\(revoked)"); return }
    }
}

@Suite("Repeat redemptions planned on a reader")
struct RepeatPlanTests {
    @Test("A repeat is planned for the holder only and finished from fresh rows; a change in between voids or updates it")
    func planAndFinish() throws {
        let (db, code, service, original) = try Self.redeemedOnce()
        #expect(try db.write { try Self.plan(service, code, appUserID: "stranger", bearerAccountID: nil, on: $0) } == nil)
        let plan = try #require(try db.write { try Self.plan(service, code, appUserID: "u1", bearerAccountID: nil, on: $0) })
        let finished = try db.write { try Self.finish(service, plan, on: $0, now: Fixtures.t0.addingTimeInterval(5)) }
        guard let again = finished else { Issue.record("\(String(describing: finished))"); return }
        #expect(again.account == original.account, "the holder's row, read with the code's state, is the account answered")
        #expect(!again.accountSwitched)
        #expect(again.isEntitled)
        #expect(again.tokens?.accessToken != original.tokens?.accessToken)
        // A refund lands between the plan and the writer: the answer shows it, as the full path would.
        _ = try db.write {
            try PurchaseRepository.apply(Fixtures.snapshot(status: .refunded, observed: 60), on: $0, now: Fixtures.t0.addingTimeInterval(60))
        }
        let refunded = try db.write { try Self.finish(service, plan, on: $0, now: Fixtures.t0.addingTimeInterval(61)) }
        guard let lapsed = refunded else { Issue.record("\(String(describing: refunded))"); return }
        #expect(!lapsed.isEntitled && lapsed.purchase.status == .refunded)
        // The app user now uses another account: no longer a repeat.
        _ = try db.write { try AccountRepository.findOrCreate(appUserID: "u2", secrets: db.secrets, on: $0, now: Fixtures.t0).0 }
        let elsewhere = try db.write { connection -> String in
            let account = try #require(try AccountRepository.find(appUserID: "u2", on: connection))
            try AccountRepository.link(appUserID: "u1", to: account.id, on: connection, now: Fixtures.t0.addingTimeInterval(62))
            return account.id
        }
        #expect(elsewhere != original.account.id)
        #expect(try db.write { try Self.finish(service, plan, on: $0, now: Fixtures.t0.addingTimeInterval(63)) } == nil)
    }

    @Test("A repeat keeps the device as read with the code's state: a signed-out device signs in again, a minute moves its last-seen time")
    func deviceReadWithTheState() throws {
        let (db, code, service, original) = try Self.redeemedOnce()
        let accountID = original.account.id
        let device = { () throws -> (lastSeen: Int64, signedOut: Int64?) in
            let row = try #require(
                try db.write {
                    try $0.queryOne("SELECT last_seen_at, signed_out_at FROM devices WHERE account_id = ? AND device_id = 'd1'", [accountID])
                })
            return (try row.int64("last_seen_at"), try row.optionalInt64("signed_out_at"))
        }
        // As an operator signs a device out (`ConsoleActions.signOutDevice`): its sessions end, it is marked.
        _ = try db.write { connection in
            try SessionRepository.revoke(accountID: accountID, deviceID: "d1", on: connection, now: Fixtures.t0.addingTimeInterval(10))
            try DeviceRepository.signOut(accountID: accountID, deviceID: "d1", on: connection, now: Fixtures.t0.addingTimeInterval(10))
        }
        #expect(try device().signedOut != nil)
        let plan = try #require(try db.write { try Self.plan(service, code, appUserID: "u1", bearerAccountID: nil, on: $0) })
        let again = try #require(try db.write { try Self.finish(service, plan, on: $0, now: Fixtures.t0.addingTimeInterval(20)) })
        #expect(try device().signedOut == nil, "signed in again by the code")
        let tokens = try #require(again.tokens)
        let signedIn = try db.write {
            try SessionRepository.authenticate(accessToken: tokens.accessToken, on: $0, now: Fixtures.t0.addingTimeInterval(21))
        }
        #expect(signedIn == accountID, "its session carries the device's generation after the sign-out")
        _ = try db.write { try Self.finish(service, plan, on: $0, now: Fixtures.t0.addingTimeInterval(50)) }
        #expect(try device().lastSeen == Timestamp.milliseconds(Fixtures.t0.addingTimeInterval(20)), "within the minute: no write")
        _ = try db.write { try Self.finish(service, plan, on: $0, now: Fixtures.t0.addingTimeInterval(90)) }
        #expect(try device().lastSeen == Timestamp.milliseconds(Fixtures.t0.addingTimeInterval(90)))
    }

    /// A paid code that app user "u1" redeemed on device "d1" at `Fixtures.t0`: the bench, the code,
    /// the use case and that first answer.
    static func redeemedOnce() throws -> (UseCaseBench, String, RedeemCode, RedeemOutcome.Redeemed) {
        struct NotRedeemed: Error {}
        let db = try UseCaseBench()
        let code = try RedemptionRulesTests.paidCode(db)
        let service = db.redeemCode(policy: RedemptionRulesTests.policy())
        let first = try db.redeemInWrite(code, appUserID: "u1", deviceID: "d1", policy: RedemptionRulesTests.policy(), now: Fixtures.t0)
        guard case .redeemed(let original) = first else {
            Issue.record("\(first)")
            throw NotRedeemed()
        }
        return (db, code, service, original)
    }

    static func finish(_ service: RedeemCode, _ plan: RedeemCode.RepeatPlan, on connection: Connection, now: Date) throws -> RedeemOutcome.Redeemed? {
        try service.finishRepeat(plan, deviceID: "d1", session: SessionRepository.draft(at: now), on: connection, now: now)
    }

    /// Plans a repeat the way the API does: the code is looked up first.
    static func plan(_ service: RedeemCode, _ codeText: String, appUserID: String, bearerAccountID: String?, on connection: Connection) throws
        -> RedeemCode.RepeatPlan?
    {
        guard let code = RedemptionCode(normalizing: codeText),
            let record = try CodeRepository.find(code: code, vault: service.vault, on: connection)
        else { return nil }
        return try RedeemCode.planRepeat(code: code, record: record, appUserID: appUserID, bearerAccountID: bearerAccountID, on: connection)
    }
}

/// The fixed time and Stripe purchase these tests complete checkouts with.
enum Fixtures {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func snapshot(
        _ id: String = "sub_1", status: PurchaseStatus = .active, expires: TimeInterval? = 30 * 86400, observed: TimeInterval = 0
    ) -> PurchaseSnapshot {
        PurchaseSnapshot(
            platform: .stripe, externalID: id, productID: "price_monthly", status: status, expiresAt: expires.map { t0.addingTimeInterval($0) },
            observedAt: t0.addingTimeInterval(observed), purchaserEmail: "Buyer@Example.com", customerID: "cus_1")
    }

    static func paid(_ session: String = "cs_test_1", subscription: String = "sub_1", appUserID: String? = nil) -> CompleteCheckout.PaidCheckout {
        CompleteCheckout.PaidCheckout(
            sessionID: session, snapshot: snapshot(subscription), aliases: ["pi_1"], email: "buyer@example.com", clientReferenceID: appUserID,
            metadata: ["utm_source": "newsletter"])
    }
}

extension UseCaseBench {
    /// Runs `body` in one write transaction.
    func write<T>(_ body: (Connection) throws -> T) throws -> T { try database.writeSync(body) }
}
