import Domain
import Foundation
import Storage
import Testing
import UseCases

@testable import Mail

/// The 6-digit code the sign-in mail carries beside its link (`WebSignIn.signIn(email:code:)`,
/// `SignInCodeRepository`), without HTTP: 10 minutes, 5 tries, once, the newest mail's only, and
/// stored only as a keyed hash.
@Suite("Web sign-in by code")
struct SignInCodeTests {
    /// The code of the newest sign-in mail queued (its parameters opened with the outbox's key).
    static func mailedCode(_ bench: UseCaseBench) throws -> String {
        let row = try bench.database.readSync {
            try $0.queryOne("SELECT id, parameters FROM mail_outbox WHERE template = 'login_link' ORDER BY created_at DESC, id DESC LIMIT 1")
        }
        let stored = try #require(row)
        let id = try stored.string("id")
        let json = try OutboxCipher.open(try stored.string("parameters"), outboxID: id, with: try OutboxCipher(key: bench.secrets.mailParameterKey))
        let code = try #require(try JSONDecoder().decode([String: String].self, from: Data(json.utf8))["sign_in_code"])
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        return code
    }

    /// A wrong code for `code`: the same length, another value.
    static func wrong(_ code: String) -> String { String(format: "%06d", (Int(code)! + 1) % 1_000_000) }

    @Test("The mailed code opens a session for the mail's account and confirms its address, once")
    func rightCode() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase(email: "buyer@example.com")
        let signIn = WebSignInTests.signIn(bench)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        let code = try Self.mailedCode(bench)
        guard case .signedIn(let issued) = try await signIn.signIn(email: "Buyer@Example.com", code: code, now: bench.now) else {
            Issue.record("the code did not sign in")
            return
        }
        let account = try bench.database.readSync { try AccountRepository.find(id: issued.session.accountID, on: $0) }
        #expect(account?.email == "buyer@example.com" && account?.emailVerified == true)
        #expect(try await signIn.signIn(email: "buyer@example.com", code: code, now: bench.now).refusal == .noLiveCode, "once")
        let rows = try bench.dump("auth_tokens")
        #expect(!rows.contains { $0.contains(code) }, "the code is stored only as a keyed hash")
    }

    @Test("Five wrong tries end the code: even the right one is refused after, and a new mail is needed")
    func fiveTries() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase(email: "buyer@example.com")
        let signIn = WebSignInTests.signIn(bench)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        let code = try Self.mailedCode(bench)
        for remaining in [4, 3, 2, 1] {
            #expect(
                try await signIn.signIn(email: "buyer@example.com", code: Self.wrong(code), now: bench.now).refusal == .wrong(remaining: remaining))
        }
        #expect(
            try await signIn.signIn(email: "buyer@example.com", code: "abc", now: bench.now).refusal == .noLiveCode, "the fifth wrong try ends it")
        #expect(try await signIn.signIn(email: "buyer@example.com", code: code, now: bench.now).refusal == .noLiveCode)
        bench.advance(601)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        let fresh = try Self.mailedCode(bench)
        #expect(try await signIn.signIn(email: "buyer@example.com", code: fresh, now: bench.now).refusal == nil)
    }

    @Test("A code lasts 10 minutes; a newer mail ends the older code; another address's code does not work")
    func lifetime() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase(email: "buyer@example.com")
        _ = try bench.paidPurchase("sub_2", email: "other@example.com")
        let signIn = WebSignInTests.signIn(bench)
        try await signIn.requestLink(email: "other@example.com", now: bench.now)
        let othersCode = try Self.mailedCode(bench)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        let first = try Self.mailedCode(bench)
        if first != othersCode {
            #expect(try await signIn.signIn(email: "buyer@example.com", code: othersCode, now: bench.now).refusal == .wrong(remaining: 4))
        }
        bench.advance(601)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        let second = try Self.mailedCode(bench)
        if first != second {
            #expect(try await signIn.signIn(email: "buyer@example.com", code: first, now: bench.now).refusal == .wrong(remaining: 4))
        }
        bench.advance(601)
        #expect(try await signIn.signIn(email: "buyer@example.com", code: second, now: bench.now).refusal == .noLiveCode, "expired")
    }
}

extension WebSignIn.CodeOutcome {
    /// Why the code was refused, comparable in an expectation; nil when it signed in.
    enum Refusal: Equatable { case wrong(remaining: Int), noLiveCode }

    var refusal: Refusal? {
        switch self {
        case .signedIn: nil
        case .wrong(let remaining): .wrong(remaining: remaining)
        case .noLiveCode: .noLiveCode
        }
    }
}
