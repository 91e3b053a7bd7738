import App
import Crypto
import Domain
import Foundation
import Mail
import Storage
import Testing
@testable import UseCases

/// Issue 44, item 1: Tollgate's own key rotates. Rows written under the old key (and rows written
/// by the release before key ids) keep opening, redeeming and refreshing while the new key is
/// added first; `KeyRotation` moves them; `KeyUsage` then counts none under the old key; the old
/// key can be dropped, and dropping it early stops start-up naming the count. No HTTP.
@Suite("Key rotation: secret_keys, key ids, keys rotate and status")
struct KeyRotationTests {
    static let oldKey = "use-case-test-secret-0123456789abcdef"
    static let newKey = "the-new-secret-key-after-rotation-0123456789"

    /// A live code as the release before key ids stored it: an HMAC under the key for lookup and
    /// an AES-GCM box without a key id.
    static func legacyCode(_ bench: UseCaseBench, _ secrets: DomainSecrets, subscription: String) throws -> RedemptionCode {
        let now = bench.now
        return try bench.database.writeSync { connection in
            let purchase = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: .stripe, externalID: subscription, productID: "price_monthly", status: .active,
                    expiresAt: now.addingTimeInterval(30 * 86400), observedAt: now, purchaserEmail: "legacy@example.com"),
                on: connection, now: now
            ).purchase
            let code = try RedemptionCode.generate()
            let id = try EntityID.make("code")
            let text = Array(code.canonical.utf8)
            try connection.execute(
                """
                INSERT INTO redemption_codes (id, purchase_id, seq, code_hash, code_sealed, hint, status, expires_at, created_at, updated_at)
                VALUES (?, ?, 1, ?, ?, 'abcd', 'live', ?, ?, ?)
                """,
                [
                    id, purchase.id, Hex.encode(try HMACSHA256.authenticationCode(for: text, key: secrets.codeHashKey)),
                    try AESGCM.seal(text, key: secrets.codeEncryptionKey, associatedData: Array(id.utf8)),
                    Timestamp.milliseconds(now.addingTimeInterval(3600)), Timestamp.milliseconds(now), Timestamp.milliseconds(now)
                ])
            return code
        }
    }

    static func redeem(_ code: RedemptionCode, user: String, _ bench: UseCaseBench, _ secrets: DomainSecrets) throws -> RedeemOutcome.Redeemed? {
        let vault = try CodeVault(secrets: secrets)
        let redeem = RedeemCode(
            database: bench.database, policy: bench.policy, vault: vault, secrets: secrets, recentRepeats: RecentRepeats(),
            catalog: EntitlementCatalog([:]), codeMail: bench.codeMail, logger: .disabled)
        let now = bench.now
        let key = try #require(try CodeKey(normalizing: code.display, vault: vault))
        let session = try SessionRepository.draft(at: now)
        let outcome = try bench.database.writeSync {
            try redeem.redemption(of: key, appUserID: user, deviceID: nil, bearerAccountID: nil, session: session, on: $0, now: now)
        }
        if case .redeemed(let redeemed) = outcome { return redeemed }
        return nil
    }

    static func queueMail(_ bench: UseCaseBench, cipher: OutboxCipher, key: String) throws -> String {
        let queue = MailQueue(cipher: cipher, messageIDDomain: "pay.example.test", now: bench.nowFunction, wake: {})
        _ = try bench.database.writeSync {
            try queue.enqueue(key: key, template: "code", to: "a@example.com", parameters: ["code": "SECRET-\(key)"], on: $0)
        }
        return try bench.database.readSync { try $0.queryOne("SELECT id FROM mail_outbox WHERE idempotency_key = ?", [key])!.string("id") }
    }

    static func mailOpens(_ bench: UseCaseBench, id: String, _ secrets: DomainSecrets) throws -> Bool {
        let stored = try bench.database.readSync { try $0.queryOne("SELECT parameters FROM mail_outbox WHERE id = ?", [id])!.string("parameters") }
        return OutboxCipher(secrets: secrets).opens(stored, outboxID: id) && stored.hasPrefix("sealed:")
    }

    @Test(
        "old key → add the new key first → everything opens, redeems, refreshes → rotate → status shows no old-key row → drop the old key → everything works"
    )
    func fullRotation() async throws {
        let bench = try UseCaseBench()
        let old = try DomainSecrets(secretKey: Self.oldKey)
        let both = try DomainSecrets(secretKeys: [Self.newKey, Self.oldKey])
        let new = try DomainSecrets(secretKeys: [Self.newKey])
        #expect(old.keyID != new.keyID && both.keyID == new.keyID && both.previous.map(\.keyID) == [old.keyID])
        #expect(KeyID.isWellFormed(old.keyID) && !old.keyID.contains(Self.oldKey.prefix(8)))

        // Under the old key: codes of both releases, mail of both formats, a stored reply, a session.
        let legacy = try Self.legacyCode(bench, old, subscription: "sub_legacy")
        let legacyUnused = try Self.legacyCode(bench, old, subscription: "sub_legacy_2")
        let (purchase, code) = try bench.paidPurchase("sub_rot_1")
        let (_, unused) = try bench.paidPurchase("sub_rot_2")
        let firstRedeemed = try #require(try Self.redeem(code, user: "user-before", bench, old))
        let obfuscatedBefore = firstRedeemed.account.obfuscatedID
        let v1Mail = try Self.queueMail(bench, cipher: try OutboxCipher(key: old.mailParameterKey), key: "legacy-mail")
        let v2Mail = try Self.queueMail(bench, cipher: OutboxCipher(secrets: old), key: "keyed-mail")
        let keyedMail = try #require(
            try bench.database.readSync { try $0.queryOne("SELECT parameters, parameters_key_id FROM mail_outbox WHERE id = ?", [v2Mail]) })
        #expect(try keyedMail.string("parameters_key_id") == old.keyID, "the key's id beside the sealed parameters")
        #expect(
            try OutboxCipher(key: old.mailParameterKey).opens(try keyedMail.string("parameters"), outboxID: v2Mail),
            "the box keeps the previous release's form: its outbox worker still sends the mail during an upgrade")
        let reply = IdempotentReplies.Reply(requestHash: "h", status: 200, contentType: "application/json", body: Array(#"{"code":"x"}"#.utf8))
        try await IdempotentReplies(database: bench.database, secrets: old).store(reply, scope: "s", key: "k1", now: bench.now)
        let formToken = try FormTokens(secrets: old).token(for: .session("ses_1"))
        let legacyFormToken = Base64URL.encode(try HMACSHA256.authenticationCode(for: Array("session:ses_1".utf8), key: old.formTokenKey))
        let signInCode = try bench.database.writeSync {
            try SignInCodeRepository.issue(accountID: firstRedeemed.account.id, email: "a@example.com", secrets: old, on: $0, now: bench.now)
        }

        // A new code is found by its SHA-256, and keeps the keyed hash the previous release finds it by.
        let stored = try #require(
            try bench.database.readSync {
                try $0.queryOne("SELECT code_hash, code_sha256 FROM redemption_codes WHERE purchase_id = ?", [purchase.id])
            })
        #expect(
            try bench.database.readSync {
                try $0.queryOne("SELECT code_key_id FROM redemption_codes WHERE purchase_id = ?", [purchase.id])?.string("code_key_id")
            }
                == old.keyID, "the key's id beside the sealed code")
        #expect(try stored.string("code_sha256") == Hex.encode(try SHA256.hash(Array(code.canonical.utf8))))
        #expect(
            try stored.string("code_hash") == Hex.encode(try HMACSHA256.authenticationCode(for: Array(code.canonical.utf8), key: old.codeHashKey)))

        #expect(
            try bench.database.readSync {
                try $0.queryOne("SELECT key_id FROM auth_tokens WHERE purpose = ?", [AuthTokenRepository.Purpose.webSignInCode.rawValue])?.string(
                    "key_id")
            } == old.keyID, "a 6-digit code stays keyed, its key's id beside it")

        let before = try KeyUsage.count(bench.database)
        #expect(before.entries.contains(KeyUsage.Entry(column: "redemption_codes.code_sealed", keyID: old.keyID, rows: 2)), "\(before)")
        #expect(before.entries.contains(KeyUsage.Entry(column: "redemption_codes.code_sealed", keyID: nil, rows: 2)), "\(before)")
        #expect(before.keyedCodeHashes == 2)

        // Step 2 of the fleet rotation: the new key first, the old one still listed.
        try KeyListCheck.check(bench.database, secrets: both)
        #expect(try Self.redeem(legacy, user: "user-legacy", bench, both) != nil, "a code stored before key ids redeems by its keyed hash")
        let vault = try CodeVault(secrets: both)
        #expect(
            try CodeRepository.reveal(
                try #require(try bench.database.readSync { try CodeRepository.find(code: unused, vault: vault, on: $0) }), vault: vault) == unused)
        #expect(try Self.mailOpens(bench, id: v1Mail, both) && Self.mailOpens(bench, id: v2Mail, both))
        #expect(try await IdempotentReplies(database: bench.database, secrets: both).find(scope: "s", key: "k1", now: bench.now)?.body == reply.body)
        #expect(
            FormTokens(secrets: both).isValid(formToken, for: .session("ses_1"))
                && FormTokens(secrets: both).isValid(legacyFormToken, for: .session("ses_1")))
        #expect(!FormTokens(secrets: both).isValid(formToken, for: .session("ses_2")))
        let refreshed = try bench.database.writeSync {
            try SessionRepository.refresh(try #require(firstRedeemed.tokens).refreshToken, on: $0, now: bench.now)
        }
        if case .rotated = refreshed {} else { Issue.record("a session refreshes whatever the keys (found by SHA-256): \(refreshed)") }
        #expect(
            try bench.database.writeSync {
                try SignInCodeRepository.check(email: "a@example.com", typed: signInCode, secrets: both, on: $0, now: bench.now)
            } == .accepted(accountID: firstRedeemed.account.id), "a sign-in code mailed before the new key still works for its 10 minutes")

        // Dropping the old key now would lose rows: start-up refuses, naming the count.
        #expect(throws: StartupError.self) { try KeyListCheck.check(bench.database, secrets: new) }
        do {
            try KeyListCheck.check(bench.database, secrets: new)
        } catch let error as StartupError {
            #expect(error.key == "secret_keys" && error.message.contains("key \(old.keyID) (") && error.message.contains("row(s)"), "\(error)")
            #expect(!error.message.contains(Self.oldKey) && !error.message.contains(Self.newKey))
        }

        // Step 3: rotate. Progress per table, then nothing under the old key.
        var lines: [String] = []
        let resealed = try KeyRotation(database: bench.database, secrets: both, batchSize: 1).run { lines.append($0.line) }
        #expect(resealed == 7, "4 codes, 2 mails and a reply: \(resealed)")
        #expect(lines.contains("redemption_codes.code_sealed: 4/4 row(s) checked, 4 re-sealed"), "\(lines)")
        let after = try KeyUsage.count(bench.database)
        #expect(after.entries.allSatisfy { $0.keyID == new.keyID }, "\(after)")
        #expect(after.keyedCodeHashes == 0 && after.rowsBeforeKeyIDs == 0)
        #expect(after.lines(both).last == "every row uses the current key")
        #expect(try KeyRotation(database: bench.database, secrets: both).run() == 0, "a second run has nothing to do")

        // Step 4: the old key dropped. Everything still works; the obfuscated id never changed.
        try KeyListCheck.check(bench.database, secrets: new)
        #expect(try Self.redeem(legacyUnused, user: "user-legacy-2", bench, new) != nil, "a moved legacy code redeems by its SHA-256")
        #expect(try Self.redeem(unused, user: "user-after", bench, new) != nil)
        #expect(try Self.mailOpens(bench, id: v1Mail, new) && Self.mailOpens(bench, id: v2Mail, new))
        #expect(try await IdempotentReplies(database: bench.database, secrets: new).find(scope: "s", key: "k1", now: bench.now)?.body == reply.body)
        let account = try #require(try bench.database.readSync { try AccountRepository.find(id: firstRedeemed.account.id, on: $0) })
        #expect(account.obfuscatedID == obfuscatedBefore)
        #expect(try bench.database.readSync { try PurchaseRepository.require(id: purchase.id, on: $0) }.accountID == firstRedeemed.account.id)
        #expect(!FormTokens(secrets: new).isValid(formToken, for: .session("ses_1")), "a form signed under a dropped key no longer posts")
        #expect(CheckDatabase(database: bench.database, migrations: TollgateMigrations.all, secrets: new).run().problems.isEmpty)
    }

    @Test("Codes stored before key ids: start-up refuses a list without their key, naming the count; with it listed they open")
    func legacyRowsNeedTheirKey() throws {
        let bench = try UseCaseBench()
        let old = try DomainSecrets(secretKey: Self.oldKey)
        _ = try Self.legacyCode(bench, old, subscription: "sub_only_legacy")
        try KeyListCheck.check(bench.database, secrets: old)
        try KeyListCheck.check(bench.database, secrets: try DomainSecrets(secretKeys: [Self.newKey, Self.oldKey]))
        do {
            try KeyListCheck.check(bench.database, secrets: try DomainSecrets(secretKeys: [Self.newKey]))
            Issue.record("a list without the key of the legacy codes started")
        } catch let error as StartupError {
            #expect(error.key == "secret_keys" && error.message.contains("the 1 code(s) stored before key ids"), "\(error)")
        }
    }

    @Test("A link-out token stored before key ids (keyed hash, unmarked box) is found again, not stored twice, and rotate moves it to SHA-256")
    func legacyLinkOutToken() throws {
        let bench = try UseCaseBench()
        let old = try DomainSecrets(secretKey: Self.oldKey)
        let both = try DomainSecrets(secretKeys: [Self.newKey, Self.oldKey])
        let token = "google-external-token-" + UUID().uuidString
        let now = bench.now
        try bench.database.writeSync { connection in
            try connection.execute(
                """
                INSERT INTO link_out_tokens (id, reporting, token_hash, token_sealed, external_id, program, storefront, created_at)
                VALUES ('lot_legacy', 'google', ?, ?, NULL, 'alternative', 'DE', ?)
                """,
                [
                    Hex.encode(try HMACSHA256.authenticationCode(for: Array(token.utf8), key: old.linkOutTokenHashKey)),
                    try AESGCM.seal(Array(token.utf8), key: old.linkOutTokenKey, associatedData: Array("lot_legacy".utf8)),
                    Timestamp.milliseconds(now)
                ])
        }
        let vault = try LinkOutTokenVault(secrets: both)
        let presented = LinkOutTokenRepository.Presented(token: token, reporting: .google, externalID: nil, program: "alternative", storefront: "DE")
        let attached = try bench.database.writeSync {
            try LinkOutTokenRepository.attach(presented, toCheckout: "cs_none", vault: vault, on: $0, now: now)
        }
        #expect(attached.id == "lot_legacy", "the same token is the same row")
        try KeyRotation(database: bench.database, secrets: both).run()
        let row = try #require(
            try bench.database.readSync { try $0.queryOne("SELECT token_hash, token_sealed FROM link_out_tokens WHERE id = 'lot_legacy'") })
        #expect(try row.string("token_hash") == vault.hash(token))
        #expect(
            try LinkOutTokenVault(secrets: try DomainSecrets(secretKeys: [Self.newKey])).open(try row.blob("token_sealed"), tokenID: "lot_legacy")
                == token)
        let again = try bench.database.writeSync {
            try LinkOutTokenRepository.attach(presented, toCheckout: "cs_none", vault: vault, on: $0, now: now)
        }
        #expect(again.id == "lot_legacy")
        #expect(try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM link_out_tokens")?.int64("n") } == 1)
    }

    @Test("A box opens under the key its id names or any listed key; another key, a tampered box or another row's binding do not open")
    func keyedBox() throws {
        let old = try DomainSecrets(secretKey: Self.oldKey)
        let both = try DomainSecrets(secretKeys: [Self.newKey, Self.oldKey])
        let sealed = try KeyedBox.seal(Array("secret".utf8), secrets: old, purpose: \.codeEncryptionKey, associatedData: [1])
        #expect(try KeyedBox.open(sealed, keyID: old.keyID, secrets: both, purpose: \.codeEncryptionKey, associatedData: [1]) == Array("secret".utf8))
        #expect(try KeyedBox.open(sealed, keyID: nil, secrets: both, purpose: \.codeEncryptionKey, associatedData: [1]) == Array("secret".utf8))
        #expect(
            try KeyedBox.open(sealed, keyID: both.keyID, secrets: both, purpose: \.codeEncryptionKey, associatedData: [1]) == Array("secret".utf8),
            "a wrong id costs a try, never the value")
        #expect(throws: (any Error).self) { try KeyedBox.open(sealed, secrets: both, purpose: \.codeEncryptionKey, associatedData: [2]) }
        #expect(throws: (any Error).self) {
            try KeyedBox.open(sealed, secrets: try DomainSecrets(secretKey: Self.newKey), purpose: \.codeEncryptionKey, associatedData: [1])
        }
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: (any Error).self) { try KeyedBox.open(tampered, secrets: both, purpose: \.codeEncryptionKey, associatedData: [1]) }
        #expect(throws: (any Error).self) { try DomainSecrets(secretKeys: []) }
    }
}
