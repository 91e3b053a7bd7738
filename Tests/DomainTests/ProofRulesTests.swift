import Domain
import Foundation
import Testing

/// The pure rules of "Who may act for an account": install secrets' shape, what a call proves
/// about an app user, and "formed by".
@Suite("Proof rules")
struct ProofRulesTests {
    @Test(
        "An install secret is 22–128 characters of [A-Za-z0-9_-]; only its SHA-256 is kept",
        arguments: [
            ("abcdefghijklmnopqrstuv", true), ("abcdefghijklmnopqrstu", false), (String(repeating: "a", count: 128), true),
            (String(repeating: "a", count: 129), false), ("abc_def-ghi_jkl-mno_pqr", true), ("abcdefghijklmnopqrstu=", false),
            ("abcdefghijklmnopqrstü", false), ("abcdefghij klmnopqrstuv", false)
        ])
    func secretShape(_ text: String, valid: Bool) {
        let secret = InstallSecret(text)
        #expect((secret != nil) == valid)
        if let secret { #expect(secret.hash.count == 64 && !secret.hash.contains(text)) }
    }

    @Test("What a call proves about an app user")
    func appUserProof() {
        let bound = InstallSecret("bound-secret-0123456789abc")!
        let other = InstallSecret("other-secret-0123456789abc")!
        #expect(AppUserProof.judge(exists: false, bound: [], presented: bound, bearerHoldsIt: false) == .bindsNew)
        #expect(AppUserProof.judge(exists: false, bound: [], presented: nil, bearerHoldsIt: false) == .unproven)
        #expect(
            AppUserProof.judge(exists: true, bound: [], presented: bound, bearerHoldsIt: false) == .unproven,
            "no secret binds to an existing app user")
        #expect(AppUserProof.judge(exists: true, bound: [bound.hash], presented: bound, bearerHoldsIt: false) == .proven)
        #expect(AppUserProof.judge(exists: true, bound: [other.hash, bound.hash], presented: bound, bearerHoldsIt: false) == .proven)
        #expect(AppUserProof.judge(exists: true, bound: [bound.hash], presented: other, bearerHoldsIt: false) == .mismatch)
        #expect(AppUserProof.judge(exists: true, bound: [bound.hash], presented: nil, bearerHoldsIt: false) == .mismatch)
        #expect(AppUserProof.judge(exists: true, bound: [bound.hash], presented: nil, bearerHoldsIt: true) == .proven)
    }

    typealias Facts = AccountFormation.Facts
    static let p = Facts.HeldPurchase(id: "pur_p", platform: .stripe, customerID: "cus_1", linkedWithoutProof: false)

    static func facts(
        purchases: [Facts.HeldPurchase] = [p], members: [Facts.Member] = [], confirmed: Bool = false, password: Bool = false
    ) -> Facts {
        Facts(purchases: purchases, members: members, hasConfirmedAddress: confirmed, hasChosenPassword: password, isDeleted: false)
    }

    @Test("Formed by: only P (its Stripe customer's renewals count), purchases linked without proof, and app users that joined through P")
    func formedBy() {
        let renewal = Facts.HeldPurchase(id: "pur_r", platform: .stripe, customerID: "cus_1", linkedWithoutProof: false)
        let gift = Facts.HeldPurchase(id: "pur_g", platform: .appStore, customerID: nil, linkedWithoutProof: true)
        let own = Facts.HeldPurchase(id: "pur_o", platform: .appStore, customerID: nil, linkedWithoutProof: false)
        #expect(AccountFormation.isFormed(by: Self.p, facts: Self.facts()))
        #expect(AccountFormation.isFormed(by: Self.p, facts: Self.facts(purchases: [Self.p, renewal])))
        #expect(AccountFormation.isFormed(by: Self.p, facts: Self.facts(purchases: [Self.p, gift])), "gifting cannot lock a buyer's code out")
        #expect(!AccountFormation.isFormed(by: Self.p, facts: Self.facts(purchases: [Self.p, own])))
        #expect(!AccountFormation.isFormed(by: Self.p, facts: Self.facts(confirmed: true)))
        #expect(!AccountFormation.isFormed(by: Self.p, facts: Self.facts(password: true)))
        #expect(AccountFormation.isFormed(by: Self.p, facts: Self.facts(members: [.init(appUserID: "u1", joinedThroughPurchaseID: "pur_p")])))
        #expect(
            AccountFormation.isFormed(
                by: Self.p, facts: Self.facts(purchases: [Self.p, renewal], members: [.init(appUserID: "u1", joinedThroughPurchaseID: "pur_r")])))
        #expect(!AccountFormation.isFormed(by: Self.p, facts: Self.facts(members: [.init(appUserID: "u1", joinedThroughPurchaseID: nil)])))
        #expect(!AccountFormation.isFormed(by: Self.p, facts: Self.facts(members: [.init(appUserID: "u1", joinedThroughPurchaseID: "pur_x")])))
        var deleted = Self.facts()
        deleted.isDeleted = true
        #expect(!AccountFormation.isFormed(by: Self.p, facts: deleted))
    }
}
