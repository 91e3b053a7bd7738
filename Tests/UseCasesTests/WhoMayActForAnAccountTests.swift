import Domain
import Foundation
import Storage
import Testing
@testable import UseCases

/// Issue 40's attacks, each as a use-case test without HTTP (API.md "Who may act for an account"):
/// an app user id, an address typed at Stripe or set unconfirmed, and a code past its purchase's
/// account prove nothing; tokens go only to a caller that proves the account.
@Suite("Who may act for an account: the attacks")
struct WhoMayActForAnAccountTests {
    static let victimSecret = InstallSecret("victim-install-secret-0123456789")!
    static let attackerSecret = InstallSecret("attacker-install-secret-987654321")!

    /// A checkout started by `appUserID` (with `secret`) and paid with `email`, completed as the
    /// webhook or success page would.
    static func paidCheckout(
        _ bench: UseCaseBench, _ subscription: String, appUserID: String?, secret: InstallSecret?, email: String, contextID: String? = nil
    ) throws -> (Purchase, RedemptionCode) {
        let now = bench.now
        let start = CheckoutRepository.Start(
            sessionID: "cs_" + subscription, checkoutContextID: contextID, appUserID: appUserID, plan: "monthly", priceID: "price_monthly",
            mode: "subscription", email: nil, redirectURL: nil, context: "{}", appUserSecretHash: secret?.hash)
        let snapshot = PurchaseSnapshot(
            platform: .stripe, externalID: subscription, productID: "price_monthly", status: .active,
            expiresAt: now.addingTimeInterval(30 * 86400), observedAt: now, purchaserEmail: email, customerID: "cus_" + subscription)
        let paid = CompleteCheckout.PaidCheckout(
            sessionID: "cs_" + subscription, snapshot: snapshot, aliases: [], email: email, clientReferenceID: appUserID, metadata: [:])
        try bench.database.writeSync { try CheckoutRepository.recordStart(start, on: $0, now: now) }
        let completed = try bench.complete(paid)
        return (completed.purchase, try require(completed.issued).code)
    }

    static func redeem(
        _ bench: UseCaseBench, _ code: RedemptionCode, as appUserID: String, secret: InstallSecret?, device: String? = nil
    ) async throws -> RedeemCode.Answer {
        try await bench.redeem.redeem(
            RedeemCode.Request(code: code.display, appUserID: appUserID, secret: secret, deviceID: device, bearer: nil), now: bench.now
        ).answer
    }

    static func status(_ bench: UseCaseBench) -> CheckoutStatus {
        CheckoutStatus(database: bench.database, catalog: EntitlementCatalog(["premium": ["price_monthly"]]), vault: bench.vault)
    }

    @Test("A guessed app user id bound first by an attacker: the victim's paid checkout is not linked there, the poll gives the attacker nothing")
    func guessedAppUserBoundFirst() async throws {
        let bench = try UseCaseBench()
        // The attacker makes app user "user-42" first, with the attacker's secret, by redeeming a code of their own.
        let (_, attackerCode) = try Self.paidCheckout(bench, "sub_a", appUserID: nil, secret: nil, email: "attacker@example.com")
        guard case .redeemed(let own, _) = try await Self.redeem(bench, attackerCode, as: "user-42", secret: Self.attackerSecret) else {
            Issue.record("the attacker's own code")
            return
        }
        // The victim's app, with its own secret, starts and pays a checkout as "user-42".
        let context = UUID().uuidString.lowercased()
        let (purchase, code) = try Self.paidCheckout(
            bench, "sub_v", appUserID: "user-42", secret: Self.victimSecret, email: "victim@example.com", contextID: context)
        #expect(purchase.accountID == nil, "a checkout that did not carry a bound secret links nothing to that app user's account")
        // The attacker polls as "user-42" with the attacker's secret: status and entitlements at most.
        let seen = try await Self.status(bench).status(
            contextID: context, caller: .init(appUserID: "user-42", secret: Self.attackerSecret, bearer: nil), now: bench.now)
        guard case .complete(let shown) = seen else { Issue.record("\(seen)"); return }
        if case .proved = shown { Issue.record("the attacker got the victim's session, code and email") }
        // And the victim's code, redeemed by the attacker's app user, does not reach the victim: it is the
        // attacker's purchase now only because the victim never redeemed it; the victim redeems it elsewhere.
        guard case .secretMismatch = try await Self.redeem(bench, code, as: "user-42", secret: Self.victimSecret) else {
            Issue.record("a secret not bound to user-42 linked something")
            return
        }
        let still = try bench.database.readSync { try PurchaseRepository.require(id: purchase.id, on: $0) }
        #expect(still.accountID == nil && own.account.id != purchase.accountID)
        guard case .redeemed(let victim, _) = try await Self.redeem(bench, code, as: "victim-fresh", secret: Self.victimSecret) else {
            Issue.record("the code stays redeemable")
            return
        }
        #expect(victim.tokens != nil && victim.account.id != own.account.id)
    }

    @Test("A checkout paid in someone's name: polling with only their app user id gives entitlements, never a session, code or email")
    func checkoutPaidInSomeonesName() async throws {
        let bench = try UseCaseBench()
        // The victim's app user exists with its secret bound (it redeemed a purchase of its own).
        let (_, victimCode) = try Self.paidCheckout(bench, "sub_v", appUserID: nil, secret: nil, email: "victim@example.com")
        guard case .redeemed(let victim, _) = try await Self.redeem(bench, victimCode, as: "victim", secret: Self.victimSecret) else {
            Issue.record("victim")
            return
        }
        let context = UUID().uuidString.lowercased()
        let (purchase, _) = try Self.paidCheckout(bench, "sub_a", appUserID: "victim", secret: nil, email: "attacker@example.com", contextID: context)
        #expect(purchase.accountID == nil, "not linked to the victim's account: the checkout did not prove the app user")
        let seen = try await Self.status(bench).status(
            contextID: context, caller: .init(appUserID: "victim", secret: nil, bearer: nil), now: bench.now)
        guard case .complete(.named(_, let entitlements)) = seen else { Issue.record("\(seen)"); return }
        #expect(entitlements.map(\.id) == ["premium"])
        // A legacy app user (no secret bound) is linked, but without proof: still no session.
        let context2 = UUID().uuidString.lowercased()
        let (legacy, _) = try Self.paidCheckout(bench, "sub_b", appUserID: "legacy", secret: nil, email: "x@example.com", contextID: context2)
        #expect(legacy.accountID != nil)
        let seen2 = try await Self.status(bench).status(
            contextID: context2, caller: .init(appUserID: "legacy", secret: nil, bearer: nil), now: bench.now)
        guard case .complete(.named) = seen2 else { Issue.record("\(seen2)"); return }
        // The victim's own install (its secret) still gets the whole answer for its own checkouts.
        let context3 = UUID().uuidString.lowercased()
        _ = try Self.paidCheckout(bench, "sub_c", appUserID: "victim", secret: Self.victimSecret, email: "victim@example.com", contextID: context3)
        let seen3 = try await Self.status(bench).status(
            contextID: context3, caller: .init(appUserID: "victim", secret: Self.victimSecret, bearer: nil), now: bench.now)
        guard case .complete(.proved(let result)) = seen3 else { Issue.record("\(seen3)"); return }
        #expect(result.account.id == victim.account.id)
        // Naming another app user: the status alone.
        let other = try await Self.status(bench).status(
            contextID: context3, caller: .init(appUserID: "someone-else", secret: nil, bearer: nil), now: bench.now)
        guard case .complete(.statusOnly) = other else { Issue.record("\(other)"); return }
    }

    @Test("The redeemed code's 72 hours: once its account is more than the purchase made, the code opens no session on it")
    func redeemedCodeKeepsNoSession() async throws {
        let bench = try UseCaseBench()
        let (purchase, code) = try Self.paidCheckout(bench, "sub_1", appUserID: nil, secret: nil, email: "buyer@example.com")
        guard case .redeemed(let buyer, _) = try await Self.redeem(bench, code, as: "buyer", secret: Self.victimSecret) else {
            Issue.record("buyer")
            return
        }
        #expect(buyer.tokens != nil)
        // Still only what the purchase made: a second device of the buyer joins with the code.
        guard case .redeemed(let second, _) = try await Self.redeem(bench, code, as: "buyer-ipad", secret: nil) else { Issue.record("ipad"); return }
        #expect(second.tokens != nil && second.account.id == buyer.account.id && second.accountSwitched)
        // The buyer confirms an address: the code no longer proves the account.
        try bench.database.writeSync { [now = bench.now] in
            try AccountRepository.confirmEmail("buyer@example.com", accountID: buyer.account.id, on: $0, now: now)
        }
        guard case .redeemed(let thief, let entitlements) = try await Self.redeem(bench, code, as: "thief", secret: Self.attackerSecret) else {
            Issue.record("thief")
            return
        }
        #expect(thief.tokens == nil && thief.sessionRequired && !thief.accountSwitched)
        #expect(entitlements.map(\.id) == ["premium"], "the redeeming app user alone gets this purchase's entitlements")
        let thiefAccount = try bench.database.readSync { try AccountRepository.find(appUserID: "thief", on: $0) }
        #expect(thiefAccount?.id != buyer.account.id, "the thief did not join the buyer's account")
        let listed = try await ListEntitlements(database: bench.database, catalog: EntitlementCatalog(["premium": ["price_monthly"]]))
            .list(for: .appUser("thief", secret: Self.attackerSecret), now: bench.now)
        #expect(listed.entitlements.map(\.id) == ["premium"] && listed.accountID == thiefAccount?.id)
        // The buyer's repeat keeps its session (its secret proves it).
        guard case .redeemed(let again, _) = try await Self.redeem(bench, code, as: "buyer", secret: Self.victimSecret) else {
            Issue.record("again"); return
        }
        #expect(again.tokens != nil)
        // The second device had no secret: its repeat now gets no session either.
        guard case .redeemed(let ipad, _) = try await Self.redeem(bench, code, as: "buyer-ipad", secret: nil) else {
            Issue.record("ipad again"); return
        }
        #expect(ipad.tokens == nil)
        _ = purchase
    }

    @Test("A success-page URL from history: its code, once the buyer's account holds more, gives a stranger no session and no email")
    func successPageFromHistory() async throws {
        let bench = try UseCaseBench()
        let (_, code) = try Self.paidCheckout(bench, "sub_1", appUserID: "buyer", secret: Self.victimSecret, email: "buyer@example.com")
        // The buyer's app got its purchase by the poll; it also bought in the App Store meanwhile (another purchase, with proof).
        let buyerAccount = try #require(try bench.database.readSync { try AccountRepository.find(appUserID: "buyer", on: $0) })
        try bench.database.writeSync { [now = bench.now] connection in
            let applied = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: .appStore, externalID: "1000", productID: "com.example.monthly", status: .active,
                    expiresAt: now.addingTimeInterval(86400), observedAt: now), on: connection, now: now)
            try PurchaseRepository.link(purchaseID: applied.purchase.id, to: buyerAccount.id, proved: true, on: connection, now: now)
        }
        guard case .redeemed(let stranger, _) = try await Self.redeem(bench, code, as: "stranger", secret: nil) else {
            Issue.record("stranger"); return
        }
        #expect(stranger.tokens == nil && stranger.sessionRequired)
        guard case .secretMismatch = try await Self.redeem(bench, code, as: "buyer", secret: nil) else {
            Issue.record("naming the buyer's app user without its secret must link nothing")
            return
        }
    }

    @Test("Transfer moves a purchase only while the old account was formed by it; else the redeemer is a guest")
    func transferOnlyFromFormedAccount() throws {
        let bench = try UseCaseBench()
        let policy = RedemptionPolicy(onOtherUser: .transfer, codeTTL: 3600)
        let (purchase, code) = try Self.paidCheckout(bench, "sub_1", appUserID: nil, secret: nil, email: "buyer@example.com")
        let now = bench.now
        let first = try bench.redeemInWrite(code.display, appUserID: "a", secret: Self.victimSecret, deviceID: nil, policy: policy, now: now)
        guard case .redeemed(let a) = first else { Issue.record("\(first)"); return }
        try bench.database.writeSync { try AccountRepository.setPasswordHash("scrypt$x", accountID: a.account.id, on: $0, now: now) }
        let second = try bench.redeemInWrite(code.display, appUserID: "b", secret: Self.attackerSecret, deviceID: nil, policy: policy, now: now)
        guard case .redeemed(let b) = second else { Issue.record("\(second)"); return }
        #expect(b.tokens == nil)
        #expect(
            try bench.database.readSync { try PurchaseRepository.require(id: purchase.id, on: $0) }.accountID == a.account.id,
            "an account with a chosen password is not formed by the purchase: it keeps it")
    }
}
