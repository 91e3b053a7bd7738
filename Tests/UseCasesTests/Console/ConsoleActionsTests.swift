import Domain
import Foundation
import Mail
import Storage
import Testing
import UseCases

/// Each console action without HTTP: what it does, its audit entry (who, what, target, reason,
/// client address), and that a role without it is refused with nothing changed.
@Suite("Console actions")
struct ConsoleActionsTests {
    static let support = AuditActor(name: "sue@example.com", role: .support, reason: "buyer wrote in, ticket 42", clientAddress: "203.0.113.7")
    static let viewer = AuditActor(name: "val@example.com", role: .viewer, reason: "trying", clientAddress: "203.0.113.8")
    static let admin = AuditActor(name: "ada@example.com", role: .admin, reason: "cleanup", clientAddress: "203.0.113.9")

    /// A paid purchase redeemed by `user-1` on `device-1` into an account with the buyer's address (unconfirmed).
    static func redeemed(_ console: ConsoleBench) async throws -> (Purchase, String) {
        let (purchase, code) = try console.bench.paidPurchase()
        let result = try await console.bench.redeem.redeem(
            RedeemCode.Request(code: code.display, appUserID: "user-1", deviceID: "device-1", bearer: nil), now: console.bench.now)
        guard case .redeemed(let redeemed, _) = result.answer else { throw Missing() }
        let accountID = redeemed.account.id
        let now = console.bench.now
        try console.bench.database.writeSync { try AccountRepository.requestEmail("buyer@example.com", accountID: accountID, on: $0, now: now) }
        return (purchase, accountID)
    }

    @Test("Resend by support: a fresh code mailed, audited with reason and address; a viewer's resend is refused and changes nothing")
    func resend() async throws {
        let console = ConsoleBench()
        let (purchase, _) = try console.bench.paidPurchase()
        let refused = await #expect(throws: UseCaseError.self) {
            _ = try await console.operatorActions.resend(email: nil, purchaseID: purchase.id, by: Self.viewer, now: console.bench.now)
        }
        #expect(refused?.kind == .forbidden)
        #expect(try console.mail("code_resent") == 0 && console.audit().isEmpty)
        _ = try await console.operatorActions.resend(email: nil, purchaseID: purchase.id, by: Self.support, now: console.bench.now)
        #expect(try console.mail("code_resent") == 1)
        let entry = try require(try console.audit().first)
        #expect(entry.actor == "sue@example.com" && entry.action == "code.resend" && entry.target == purchase.id)
        #expect(entry.reason == "buyer wrote in, ticket 42" && entry.clientAddress == "203.0.113.7")
    }

    @Test("Revoke by support; by a viewer refused with the code still live")
    func revoke() async throws {
        let console = ConsoleBench()
        let (purchase, _) = try console.bench.paidPurchase()
        let code = try require(try console.bench.database.readSync { try CodeRepository.latest(purchaseID: purchase.id, on: $0) })
        await #expect(throws: UseCaseError.self) {
            _ = try await console.operatorActions.revoke(codeID: code.id, by: Self.viewer, now: console.bench.now)
        }
        #expect(try console.bench.database.readSync { try CodeRepository.require(id: code.id, on: $0) }.status == .live)
        let revoked = try await console.operatorActions.revoke(codeID: code.id, by: Self.support, now: console.bench.now)
        #expect(revoked.status == .revoked)
        #expect(try console.audit().first?.action == "code.revoke")
    }

    @Test("Device sign-out and sign-out everywhere end sessions; a viewer's are refused")
    func signOuts() async throws {
        let console = ConsoleBench()
        let (_, accountID) = try await Self.redeemed(console)
        await #expect(throws: UseCaseError.self) {
            try await console.actions.signOutDevice(accountID: accountID, deviceID: "device-1", by: Self.viewer, now: console.bench.now)
        }
        try await console.actions.signOutDevice(accountID: accountID, deviceID: "device-1", by: Self.support, now: console.bench.now)
        #expect(try console.bench.database.readSync { try DeviceRepository.active(accountID: accountID, on: $0) }.isEmpty)
        console.bench.advance(1)
        await #expect(throws: UseCaseError.self) {
            try await console.actions.signOutDevice(accountID: accountID, deviceID: "no-such-device", by: Self.support, now: console.bench.now)
        }
        let before = try console.bench.database.readSync {
            try $0.queryOne("SELECT session_generation FROM accounts WHERE id = ?", [accountID])?.int("session_generation")
        }
        try await console.actions.signOutEverywhere(accountID: accountID, by: Self.support, now: console.bench.now)
        let after = try console.bench.database.readSync {
            try $0.queryOne("SELECT session_generation FROM accounts WHERE id = ?", [accountID])?.int("session_generation")
        }
        #expect(after == (before ?? 0) + 1)
        #expect(try console.audit().map(\.action).prefix(2) == ["account.sign_out_everywhere", "device.sign_out"])
    }

    @Test("Resend confirmation mails the account's unconfirmed address; move gives a purchase to another app user with its history")
    func confirmationAndMove() async throws {
        let console = ConsoleBench()
        let (purchase, accountID) = try await Self.redeemed(console)
        try await console.actions.resendConfirmation(accountID: accountID, by: Self.support, now: console.bench.now)
        #expect(try console.mail("email_confirmation") == 1)
        console.bench.advance(1)
        await #expect(throws: UseCaseError.self) {
            _ = try await console.actions.movePurchase(purchaseID: purchase.id, toAppUserID: "user-2", by: Self.viewer, now: console.bench.now)
        }
        let target = try await console.actions.movePurchase(purchaseID: purchase.id, toAppUserID: "user-2", by: Self.support, now: console.bench.now)
        #expect(target != accountID)
        let moved = try require(try console.bench.database.readSync { try PurchaseRepository.find(id: purchase.id, on: $0) })
        #expect(moved.accountID == target)
        let history = try console.bench.database.readSync { try PurchaseHistory.changes(purchaseID: purchase.id, limit: 10, on: $0) }
        #expect(history.map(\.source) == ["operator", "checkout"])
    }

    @Test("Retrying a failed mail or link-out report queues it again; support may not; an unknown id is not found")
    func retries() async throws {
        let console = ConsoleBench()
        let (purchase, _) = try console.bench.paidPurchase()
        try DeleteAccountTests.queueMail(console.bench, count: 1)
        try console.bench.database.writeSync { connection in
            try connection.execute("UPDATE mail_outbox SET status = 'failed', attempts = 9")
            try connection.execute(
                "INSERT INTO link_out_tokens (id, reporting, token_hash, token_sealed, program, storefront, created_at) VALUES ('lot_1', 'apple', 'h', ?, 'us_link', 'USA', 0)",
                [[UInt8]([0])])
            try connection.execute(
                """
                INSERT INTO link_out_reports (id, token_id, reporting, natural_key, purchase_id, kind, request_id, body, status, next_attempt_at, created_at, updated_at)
                VALUES ('lor_1', 'lot_1', 'apple', 'k', ?, 'purchase', 'r', '{}', 'failed', 0, 0, 0)
                """, [purchase.id])
        }
        let mailID = try require(try console.bench.database.readSync { try $0.queryOne("SELECT id FROM mail_outbox")?.string("id") })
        await #expect(throws: UseCaseError.self) { try await console.actions.retryMail(id: mailID, by: Self.support, now: console.bench.now) }
        try await console.actions.retryMail(id: mailID, by: Self.admin, now: console.bench.now)
        #expect(try console.bench.pendingMail() == 1)
        await #expect(throws: UseCaseError.self) { try await console.actions.retryMail(id: mailID, by: Self.admin, now: console.bench.now) }
        console.bench.advance(1)
        try await console.actions.retryReport(id: "lor_1", by: Self.admin, now: console.bench.now)
        #expect(try console.bench.database.readSync { try $0.queryOne("SELECT status FROM link_out_reports")?.string("status") } == "pending")
        #expect(try console.audit().map(\.action).prefix(2) == ["report.retry", "mail.retry"])
    }

    @Test("Delete and export are an admin's: support is refused and the account stays; the admin's are audited")
    func deleteAndExport() async throws {
        let console = ConsoleBench()
        let (_, accountID) = try await Self.redeemed(console)
        let delete = DeleteAccount(database: console.bench.database)
        let export = ExportAccount(database: console.bench.database, catalog: EntitlementCatalog(["premium": ["price_monthly"]]))
        await #expect(throws: UseCaseError.self) { _ = try await export.byOperator(accountID: accountID, by: Self.support, now: console.bench.now) }
        let document = try await export.byOperator(accountID: accountID, by: Self.admin, now: console.bench.now)
        console.bench.advance(1)
        #expect(document.records.account.id == accountID)
        await #expect(throws: UseCaseError.self) { _ = try await delete.byOperator(accountID: accountID, by: Self.support, now: console.bench.now) }
        #expect(try console.bench.database.readSync { try AccountErasure.isDeleted(accountID: accountID, on: $0) } == false)
        #expect(try await delete.byOperator(accountID: accountID, by: Self.admin, now: console.bench.now) == .deleted(accountID: accountID))
        let entries = try console.audit()
        #expect(entries.map(\.action).prefix(2) == ["account.delete", "account.export"])
        #expect(entries.first?.reason == "cleanup" && entries.first?.actor == "ada@example.com")
    }
}
