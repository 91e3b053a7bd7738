import Domain
import Foundation
import Storage
import Testing
import UseCases

/// Takeover 2 and the address rule (`AddressSignInTarget`), through `WebSignIn` without HTTP: an
/// address set unconfirmed, or typed at Stripe, opens nothing; a mailed link proves the address for
/// the account that confirmed it, the one web buyer's account, or a new one.
@Suite("Addresses open accounts only by a mailed link or code")
struct AddressSignInTests {
    /// Requests a link for `email` and uses it; the account it opened.
    static func signInByLink(_ bench: UseCaseBench, _ email: String) async throws -> String? {
        let signIn = WebSignInTests.signIn(bench)
        bench.advance(1)  // the newest link is this one
        try await signIn.requestLink(email: email, now: bench.now)
        guard case .valid(let issued) = try await signIn.signIn(link: try WebSignInTests.linkToken(bench), now: bench.now) else { return nil }
        return issued.session.accountID
    }

    @Test("The unconfirmed-address takeover: an address an attacker set on their own account does not bring the victim's sign-in there")
    func unconfirmedAddressTakeover() async throws {
        let bench = try UseCaseBench()
        let now = bench.now
        let attacker = try bench.database.writeSync { connection in
            let account = try AccountRepository.create(email: "attacker@example.com", secrets: bench.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("attacker@example.com", accountID: account.id, on: connection, now: now)
            try AccountRepository.requestEmail("victim@example.com", accountID: account.id, on: connection, now: now)
            return account
        }
        // The victim paid on the web once, with no app.
        _ = try bench.paidPurchase("sub_victim", email: "victim@example.com")
        let opened = try #require(try await Self.signInByLink(bench, "victim@example.com"))
        #expect(opened != attacker.id)
        let after = try bench.database.readSync { try AccountRepository.find(id: attacker.id, on: $0) }
        #expect(after?.confirmedEmail == "attacker@example.com", "the attacker's account never confirms the victim's address")
        #expect(try bench.database.readSync { try AccountRepository.find(confirmedEmail: "victim@example.com", on: $0) }?.id == opened)
    }

    @Test(
        "An address typed at Stripe: a checkout paid in the victim's address by an attacker's app user does not make the attacker's account the victim's"
    )
    func addressTypedAtStripe() async throws {
        let bench = try UseCaseBench()
        _ = try WhoMayActForAnAccountTests.paidCheckout(
            bench, "sub_a", appUserID: "attacker-app", secret: WhoMayActForAnAccountTests.attackerSecret, email: "victim@example.com")
        _ = try WhoMayActForAnAccountTests.paidCheckout(bench, "sub_b", appUserID: "legacy-app", secret: nil, email: "victim2@example.com")
        let attacker = try #require(try bench.database.readSync { try AccountRepository.find(appUserID: "attacker-app", on: $0) })
        let legacy = try #require(try bench.database.readSync { try AccountRepository.find(appUserID: "legacy-app", on: $0) })
        let opened = try #require(try await Self.signInByLink(bench, "victim@example.com"))
        #expect(opened != attacker.id, "an app user bound to a secret: the address does not open its account")
        let opened2 = try #require(try await Self.signInByLink(bench, "victim2@example.com"))
        #expect(opened2 != legacy.id, "a purchase linked without proof never makes its account reachable through its address")
    }

    @Test("The rule: the confirming account; else the one web buyer's account holding nothing else; else a new account")
    func rule() {
        func candidate(
            _ id: String, onlyWeb: Bool = true, confirmed: Bool = false, password: Bool = false, secret: Bool = false, withoutProof: Bool = false
        )
            -> AddressSignInTarget.Candidate
        {
            .init(
                accountID: id, holdsOnlyWebPurchasesPaidWithAddress: onlyWeb, hasConfirmedAddress: confirmed, hasChosenPassword: password,
                hasBoundSecret: secret, hasPurchaseLinkedWithoutProof: withoutProof, isDeleted: false)
        }
        #expect(AddressSignInTarget.decide(confirmedBy: "acc_c", candidates: [candidate("acc_w")]) == .confirmed(accountID: "acc_c"))
        #expect(AddressSignInTarget.decide(confirmedBy: nil, candidates: [candidate("acc_w")]) == .webBuyer(accountID: "acc_w"))
        #expect(AddressSignInTarget.decide(confirmedBy: nil, candidates: []) == .newAccount)
        #expect(AddressSignInTarget.decide(confirmedBy: nil, candidates: [candidate("a"), candidate("b")]) == .newAccount)
        for other in [
            candidate("x", onlyWeb: false), candidate("x", confirmed: true), candidate("x", password: true), candidate("x", secret: true),
            candidate("x", withoutProof: true)
        ] {
            #expect(AddressSignInTarget.decide(confirmedBy: nil, candidates: [other]) == .newAccount)
        }
    }

    @Test("A web buyer's own account (its purchase held by no app) is opened by the address, which it then confirms")
    func webBuyerAccount() async throws {
        let bench = try UseCaseBench()
        let (purchase, _) = try bench.paidPurchase("sub_1", email: "buyer@example.com")
        let now = bench.now
        let own = try bench.database.writeSync { connection in
            let account = try AccountRepository.create(secrets: bench.secrets, on: connection, now: now)
            try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, proved: true, on: connection, now: now)
            return account
        }
        #expect(try await Self.signInByLink(bench, "buyer@example.com") == own.id)
        #expect(try bench.database.readSync { try AccountRepository.find(confirmedEmail: "buyer@example.com", on: $0) }?.id == own.id)
    }
}
