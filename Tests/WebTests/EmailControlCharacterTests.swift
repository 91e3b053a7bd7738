import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

/// Email inputs with control characters or other non-printables are refused up front, by
/// `EmailAddress` and so by every route that takes an email.
@Suite("Email inputs refuse non-printable characters")
struct EmailControlCharacterTests {
    /// Each as JSON string content (escaped where JSON requires it) and as the decoded text.
    static let unprintable: [(json: String, text: String)] = [
        (#"a\u0000@b.co"#, "a\u{0}@b.co"),
        (#"a@b.co\u0000"#, "a@b.co\u{0}"),
        (#"\u0000a@b.co"#, "\u{0}a@b.co"),
        (#"a\u0007@b.co"#, "a\u{7}@b.co"),
        (#"a@b\u001b.co"#, "a@b\u{1B}.co"),
        (#"a\t@b.co"#, "a\t@b.co"),
        (#"\ta@b.co"#, "\ta@b.co"),
        (#"a\u007f@b.co"#, "a\u{7F}@b.co"),
        (#"a\u0085@b.co"#, "a\u{85}@b.co"),
        (#"a\u200b@b.co"#, "a\u{200B}@b.co"),  // zero-width space (format)
        (#"a\u202e@b.co"#, "a\u{202E}@b.co"),  // right-to-left override (format)
        (#"a\u2028@b.co"#, "a\u{2028}@b.co"),  // line separator
        (#"a\ue000@b.co"#, "a\u{E000}@b.co"),  // private use
        (#"a@b.co\ufeff"#, "a@b.co\u{FEFF}")  // byte-order mark (format)
    ]

    @Test("EmailAddress refuses them", arguments: unprintable.map(\.text))
    func unit(text: String) {
        #expect(EmailAddress.normalized(text) == nil, "\(text.debugDescription)")
        #expect(throws: APIError.self) { try EmailAddress.require(text) }
    }

    @Test(
        "Printable ASCII addresses are taken, trimmed and lower-cased",
        arguments: [
            (" a@b.co ", "a@b.co"), ("Zoe@Example.com", "zoe@example.com")
        ])
    func printable(raw: String, expected: String) {
        #expect(EmailAddress.normalized(raw) == expected)
    }

    /// Finding 8: the mailer sends no SMTPUTF8, so the edge takes no address it could not mail.
    @Test("Non-ASCII addresses are refused, as the mailer would refuse them", arguments: ["Zoë@Example.com", "用户@例子.中国", "ünï@exämple.com"])
    func nonASCII(raw: String) {
        #expect(EmailAddress.normalized(raw) == nil)
    }

    @Test("POST /api/v1/account/email answers 400 and stores nothing", arguments: unprintable.map(\.json))
    func accountEmail(json: String) async throws {
        let harness = try CheckoutHarness()
        let account = try await AccountFlowTests.account(harness)
        let session = try await harness.app.app.database.write {
            try SessionRepository.issue(accountID: account.id, deviceID: nil, on: $0, now: harness.clock.now)
        }
        let headers: HTTPHeaders = [
            "X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json", "Authorization": "Bearer \(session.accessToken)"
        ]
        let response = await harness.app.send(.post, "/api/v1/account/email", headers: headers, body: #"{"email":"\#(json)"}"#)
        #expect(response.status == .badRequest, "\(json): \(response.text)")
        #expect(response.errorCode == "bad_request")
        let stored = try await harness.app.app.database.read { try AccountRepository.require(id: account.id, on: $0) }
        #expect(stored.email == nil)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 0)
    }

    @Test("POST /api/v1/codes/resend answers 400", arguments: unprintable.map(\.json))
    func resend(json: String) async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(
            .post, "/api/v1/codes/resend", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"],
            body: #"{"email":"\#(json)"}"#
        )
        #expect(response.status == .badRequest, "\(json): \(response.text)")
        #expect(response.errorCode == "bad_request")
    }
}
