import Domain
import Foundation
import Mail
import Storage
import Testing
import UseCases

/// `DeleteAccount` and `ExportAccount` without HTTP: what a deletion erases, keeps and revokes.
@Suite("DeleteAccount use case")
struct DeleteAccountTests {
    /// A web purchase redeemed by `user-1` on `device-1`, the account given the buyer's address:
    /// the purchase, the code, the access token and the account id.
    static func redeemed(_ bench: UseCaseBench) async throws -> (Purchase, RedemptionCode, String, String) {
        let (purchase, code) = try bench.paidPurchase()
        let result = try await bench.redeem.redeem(
            RedeemCode.Request(code: code.display, appUserID: "user-1", deviceID: "device-1", bearer: nil), now: bench.now)
        guard case .redeemed(let redeemed, _) = result.answer else { throw Missing() }
        let accountID = redeemed.account.id
        let now = bench.now
        try bench.database.writeSync { connection in
            try AccountRepository.requestEmail("Buyer@Example.com", accountID: accountID, on: connection, now: now)
        }
        return (purchase, code, try require(redeemed.tokens).accessToken, accountID)
    }

    /// Code emails to the buyer, waiting in the outbox as a checkout leaves them.
    static func queueMail(_ bench: UseCaseBench, count: Int, to recipient: String = "buyer@example.com") throws {
        let mail = bench.mail
        try bench.database.writeSync { connection in
            for _ in 0..<count {
                try mail.enqueue(
                    key: "code:\(UUID().uuidString)", template: "redemption_code", to: recipient, parameters: ["code": "X"], on: connection)
            }
        }
    }

    @Test("Deletion erases the email, app user and device from every table, ends sessions, revokes codes, cancels mail; purchases stay")
    func erasesEverywhere() async throws {
        let bench = try UseCaseBench()
        let (purchase, code, access, accountID) = try await Self.redeemed(bench)
        // A second web purchase with the same address, never redeemed: it is the buyer's too.
        let (second, secondCode) = try bench.paidPurchase("sub_2")
        try Self.queueMail(bench, count: 2)
        #expect(try bench.pendingMail() == 2)

        let outcome = try await DeleteAccount(database: bench.database).signedIn(.bearer(access), now: bench.now)
        #expect(outcome == .deleted(accountID: accountID))

        for table in try bench.tables() {
            for row in try bench.dump(table) {
                let text = row.lowercased()
                for personal in ["buyer@example.com", "user-1", "device-1"] {
                    #expect(!text.contains(personal), "\(table) still holds \(personal): \(row)")
                }
            }
        }
        #expect(try bench.pendingMail() == 0)
        let cancelled = try bench.database.readSync { connection in
            try connection.query("SELECT status, last_error FROM mail_outbox").map {
                "\(try $0.string("status")) \(try $0.optionalString("last_error") ?? "")"
            }
        }
        #expect(cancelled == Array(repeating: "failed cancelled: the account was deleted", count: 2))

        let kept = try bench.database.readSync { connection in
            try [purchase.id, second.id].map { try PurchaseRepository.require(id: $0, on: connection) }
        }
        #expect(kept.allSatisfy { $0.accountID == nil && $0.purchaserEmail == nil && $0.appUserID == nil && $0.status == .active })
        #expect(try bench.database.readSync { try SessionRepository.authenticate(accessToken: access, on: $0, now: bench.now) } == nil)
        for revoked in [code, secondCode] {
            let again = try await bench.redeem.redeem(
                RedeemCode.Request(code: revoked.display, appUserID: "user-9", deviceID: nil, bearer: nil), now: bench.now)
            guard case .invalidCode = again.answer else { Issue.record("a revoked code answered \(again.answer)"); continue }
        }

        let audit = try bench.database.readSync { try AuditLog.recent(limit: 10, on: $0) }
        #expect(audit.map(\.action) == ["account.delete"])
        #expect(audit.first?.target == accountID)
        #expect(audit.first?.details.contains("2 purchase(s) detached, 2 code(s) revoked, 1 device(s) removed, 2 unsent email(s) cancelled") == true)

        #expect(try await DeleteAccount(database: bench.database).signedIn(.bearer(access), now: bench.now) == .alreadyDeleted(accountID: accountID))
        #expect(try bench.database.readSync { try AuditLog.recent(limit: 10, on: $0) }.count == 1, "a repeat changes nothing")
    }

    @Test("A store's later snapshot updates an erased purchase but gives back neither email nor owner; the old obfuscated id names no one")
    func erasedPurchasesStayErased() async throws {
        let bench = try UseCaseBench()
        let (purchase, _, access, accountID) = try await Self.redeemed(bench)
        let obfuscated = try bench.database.readSync { try AccountRepository.require(id: accountID, on: $0).obfuscatedID }
        _ = try await DeleteAccount(database: bench.database).signedIn(.bearer(access), now: bench.now)
        bench.advance(60)
        let now = bench.now
        let renewed = PurchaseSnapshot(
            platform: .stripe, externalID: purchase.externalID, productID: "price_monthly", status: .active,
            expiresAt: now.addingTimeInterval(60 * 86400), observedAt: now, ownerHint: obfuscated, purchaserEmail: "buyer@example.com",
            customerID: "cus_1")
        let applied = try bench.database.writeSync { try PurchaseRepository.apply(renewed, on: $0, now: now) }
        #expect(applied.stateChanged, "the renewal applies")
        #expect(applied.purchase.purchaserEmail == nil && applied.purchase.ownerHint == nil && applied.purchase.accountID == nil)
        #expect(try bench.database.readSync { try AccountRepository.find(obfuscatedID: obfuscated, on: $0) } == nil)
    }

    @Test("Operators delete by account id or by email; an unknown one is not found; a token never issued is unauthorized")
    func operatorsAndErrors() async throws {
        let bench = try UseCaseBench()
        let (_, _, _, accountID) = try await Self.redeemed(bench)
        let deletion = DeleteAccount(database: bench.database)
        await #expect(throws: UseCaseError.self) { try await deletion.byOperator(accountID: "acc_missing", actor: "admin", now: bench.now) }
        await #expect(throws: UseCaseError.self) { try await deletion.byOperator(email: "nobody@example.com", actor: "cli", now: bench.now) }
        await #expect(throws: UseCaseError.self) { try await deletion.signedIn(.bearer("ses_x.y"), now: bench.now) }
        await #expect(throws: UseCaseError.self) { try await deletion.signedIn(.bearer(nil), now: bench.now) }
        #expect(try await deletion.byOperator(email: "buyer@example.com", actor: "cli", now: bench.now) == [.deleted(accountID: accountID)])
        #expect(try await deletion.byOperator(accountID: accountID, actor: "admin", now: bench.now) == .alreadyDeleted(accountID: accountID))
        let audit = try bench.database.readSync { try AuditLog.recent(limit: 10, on: $0) }
        #expect(audit.map(\.actor) == ["cli"])
    }

    @Test("The export names the account, its app user, device, purchase, code and mail; a deleted account has none")
    func exports() async throws {
        let bench = try UseCaseBench()
        let (purchase, _, access, accountID) = try await Self.redeemed(bench)
        _ = try bench.paidPurchase("sub_other", email: "other@example.com")
        try Self.queueMail(bench, count: 1)
        try Self.queueMail(bench, count: 1, to: "other@example.com")
        let export = ExportAccount(database: bench.database, catalog: EntitlementCatalog(["premium": ["price_monthly"]]))
        let document = try await export.signedIn(.bearer(access), now: bench.now)
        #expect(document.records.account.id == accountID)
        #expect(document.records.appUsers.map(\.appUserID) == ["user-1"])
        #expect(document.records.devices.map(\.deviceID) == ["device-1"])
        #expect(document.records.purchases.map(\.id) == [purchase.id])
        #expect(document.records.codes.map(\.purchaseID) == [purchase.id])
        #expect(document.entitlements.map(\.id) == ["premium"])
        #expect(document.mail.count == 1, "the code email to the buyer, not the other buyer's")
        _ = try await DeleteAccount(database: bench.database).signedIn(.bearer(access), now: bench.now)
        await #expect(throws: UseCaseError.self) { try await export.signedIn(.bearer(access), now: bench.now) }
    }
}
