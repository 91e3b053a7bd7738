import Crypto
import Domain
import Foundation
import Mail
import Storage

/// One column that Tollgate's own key seals, as `tollgate keys rotate` and `keys status` see it:
/// where it lives, the column beside it holding the sealing key's id (NULL: sealed before key
/// ids), and how one row is sealed again under the current key (and its lookup hash moved to
/// SHA-256).
struct SealedColumn: Sendable {
    /// The table.
    let table: String
    /// The sealed column.
    let column: String
    /// The column beside it with the id of the key that sealed it.
    let keyIDColumn: String
    /// The primary key's columns, in order (rows are read in this order, a page at a time).
    let keyColumns: [String]
    /// Other columns the re-sealing reads.
    let extraColumns: [String]
    /// A text column that may hold plain JSON (nothing sealed: the mail outbox without a cipher).
    let mayBePlain: Bool
    /// The new values of a row (column → value), or nil when it already uses the current key.
    let reseal: @Sendable (Row, DomainSecrets) throws -> [(String, SQLValue)]?

    /// Every sealed column, in the order a rotation moves them.
    static let all: [SealedColumn] = [codes, linkOutTokens, appStoreReceipts, idempotencyReplies, mailParameters]

    /// The row's key id (nil: before key ids).
    static func storedKeyID(_ row: Row, _ column: String) throws -> String? {
        row[column] == .null ? nil : try row.string(column)
    }

    static let codes = SealedColumn(
        table: "redemption_codes", column: "code_sealed", keyIDColumn: "code_key_id", keyColumns: ["id"], extraColumns: ["code_sha256"],
        mayBePlain: false
    ) { row, secrets in
        let keyID = try storedKeyID(row, "code_key_id")
        guard keyID != secrets.keyID || row["code_sha256"] == .null else { return nil }
        let id = try row.string("id")
        let vault = try CodeVault(secrets: secrets)
        let code = try vault.open(try row.blob("code_sealed"), codeID: id, keyID: keyID)
        return [
            // `code_hash` stays: the previous release's lookup, never read by this one for the row.
            ("code_sealed", .blob(try vault.seal(code, codeID: id))), ("code_key_id", .text(vault.keyID)),
            ("code_sha256", .text(try vault.hash(code)))
        ]
    }

    static let linkOutTokens = SealedColumn(
        table: "link_out_tokens", column: "token_sealed", keyIDColumn: "token_key_id", keyColumns: ["id"],
        extraColumns: ["program", "external_id"], mayBePlain: false
    ) { row, secrets in
        let keyID = try storedKeyID(row, "token_key_id")
        guard keyID != secrets.keyID else { return nil }
        let id = try row.string("id")
        let vault = try LinkOutTokenVault(secrets: secrets)
        let token = try vault.open(try row.blob("token_sealed"), tokenID: id, keyID: keyID)
        var changes: [(String, SQLValue)] = [("token_sealed", .blob(try vault.seal(token, tokenID: id))), ("token_key_id", .text(vault.keyID))]
        if keyID == nil {
            // Sealed before key ids: its lookup hash is still the keyed one.
            let text = LinkOutTokenRepository.hashedText(
                token: token, program: try row.string("program"), externalID: try storedKeyID(row, "external_id"))
            changes.append(("token_hash", .text(try vault.hash(text))))
        }
        return changes
    }

    static let appStoreReceipts = SealedColumn(
        table: "app_store_receipts", column: "receipt_sealed", keyIDColumn: "receipt_key_id", keyColumns: ["purchase_id"], extraColumns: [],
        mayBePlain: false
    ) { row, secrets in
        let keyID = try storedKeyID(row, "receipt_key_id")
        guard keyID != secrets.keyID else { return nil }
        let id = try row.string("purchase_id")
        let vault = AppStoreReceiptVault(secrets: secrets)
        let receipt = try vault.open(try row.blob("receipt_sealed"), purchaseID: id, keyID: keyID)
        return [("receipt_sealed", .blob(try vault.seal(receipt, purchaseID: id))), ("receipt_key_id", .text(vault.keyID))]
    }

    static let idempotencyReplies = SealedColumn(
        table: "idempotency_keys", column: "body", keyIDColumn: "body_key_id", keyColumns: ["scope", "idempotency_key"], extraColumns: [],
        mayBePlain: false
    ) { row, secrets in
        let keyID = try storedKeyID(row, "body_key_id")
        guard keyID != secrets.keyID else { return nil }
        let binding = IdempotentReplies.binding(try row.string("scope"), try row.string("idempotency_key"))
        let body = try KeyedBox.open(try row.blob("body"), keyID: keyID, secrets: secrets, purpose: \.idempotencyReplyKey, associatedData: binding)
        return [
            ("body", .blob(try KeyedBox.seal(body, secrets: secrets, purpose: \.idempotencyReplyKey, associatedData: binding))),
            ("body_key_id", .text(secrets.keyID))
        ]
    }

    static let mailParameters = SealedColumn(
        table: "mail_outbox", column: "parameters", keyIDColumn: "parameters_key_id", keyColumns: ["id"], extraColumns: [], mayBePlain: true
    ) { row, secrets in
        let keyID = try storedKeyID(row, "parameters_key_id")
        return try OutboxCipher(secrets: secrets).resealed(try row.string("parameters"), outboxID: try row.string("id"), keyID: keyID).map {
            [("parameters", .text($0)), ("parameters_key_id", .text(secrets.keyID))]
        }
    }

    /// The SQL expression that reads a row's key id: the id, NULL for a value sealed before key
    /// ids, and `''` for plain JSON (nothing sealed).
    var keyIDExpression: String {
        mayBePlain ? "CASE WHEN substr(\(column), 1, 10) = 'sealed:v1:' THEN \(keyIDColumn) ELSE '' END" : keyIDColumn
    }

    /// The key id `keyIDExpression` read: nil before key ids, `""` for a plain value.
    func keyID(from value: SQLValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }
}
