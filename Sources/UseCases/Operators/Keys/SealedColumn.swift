import Crypto
import Domain
import Foundation
import Mail
import Storage

/// One column that Tollgate's own key seals, as `tollgate keys rotate` and `keys status` see it:
/// where it lives, how its key id is read in SQL (`KeyedBox`'s header, or the mail outbox's `parameters_key_id`), and
/// how one row is sealed again under the current key (and its lookup hash moved to SHA-256).
struct SealedColumn: Sendable {
    /// The table.
    let table: String
    /// The sealed column.
    let column: String
    /// The primary key's columns, in order (rows are read in this order, a page at a time).
    let keyColumns: [String]
    /// Other columns the re-sealing reads.
    let extraColumns: [String]
    /// A text column (`sealed:v1:<base64>`, its key id in the first extra column) rather than a blob.
    let isText: Bool
    /// The new values of a row (column → value), or nil when it already uses the current key.
    let reseal: @Sendable (Row, DomainSecrets) throws -> [(String, SQLValue)]?

    /// Every sealed column, in the order a rotation moves them.
    static let all: [SealedColumn] = [codes, linkOutTokens, appStoreReceipts, idempotencyReplies, mailParameters]

    static let codes = SealedColumn(
        table: "redemption_codes", column: "code_sealed", keyColumns: ["id"], extraColumns: ["code_sha256"], isText: false
    ) { row, secrets in
        let id = try row.string("id")
        let sealed = try row.blob("code_sealed")
        guard KeyedBox.keyID(of: sealed) != secrets.keyID || row["code_sha256"] == .null else { return nil }
        let vault = try CodeVault(secrets: secrets)
        let code = try vault.open(sealed, codeID: id)
        return [
            // `code_hash` stays: the previous release's lookup, never read by this one for the row.
            ("code_sealed", .blob(try vault.seal(code, codeID: id))), ("code_sha256", .text(try vault.hash(code))),
        ]
    }

    static let linkOutTokens = SealedColumn(
        table: "link_out_tokens", column: "token_sealed", keyColumns: ["id"], extraColumns: ["program", "external_id"], isText: false
    ) { row, secrets in
        let id = try row.string("id")
        let sealed = try row.blob("token_sealed")
        let keyID = KeyedBox.keyID(of: sealed)
        guard keyID != secrets.keyID else { return nil }
        let vault = try LinkOutTokenVault(secrets: secrets)
        let token = try vault.open(sealed, tokenID: id)
        var changes: [(String, SQLValue)] = [("token_sealed", .blob(try vault.seal(token, tokenID: id)))]
        if keyID == nil {
            // Sealed before key ids: its lookup hash is still the keyed one.
            let text = LinkOutTokenRepository.hashedText(
                token: token, program: try row.string("program"), externalID: row["external_id"] == .null ? nil : try row.string("external_id"))
            changes.append(("token_hash", .text(try vault.hash(text))))
        }
        return changes
    }

    static let appStoreReceipts = SealedColumn(
        table: "app_store_receipts", column: "receipt_sealed", keyColumns: ["purchase_id"], extraColumns: [], isText: false
    ) { row, secrets in
        let id = try row.string("purchase_id")
        let sealed = try row.blob("receipt_sealed")
        guard KeyedBox.keyID(of: sealed) != secrets.keyID else { return nil }
        let vault = AppStoreReceiptVault(secrets: secrets)
        return [("receipt_sealed", .blob(try vault.seal(try vault.open(sealed, purchaseID: id), purchaseID: id)))]
    }

    static let idempotencyReplies = SealedColumn(
        table: "idempotency_keys", column: "body", keyColumns: ["scope", "idempotency_key"], extraColumns: [], isText: false
    ) { row, secrets in
        let sealed = try row.blob("body")
        guard KeyedBox.keyID(of: sealed) != secrets.keyID else { return nil }
        let binding = IdempotentReplies.binding(try row.string("scope"), try row.string("idempotency_key"))
        let body = try KeyedBox.open(sealed, secrets: secrets, purpose: \.idempotencyReplyKey, associatedData: binding)
        return [("body", .blob(try KeyedBox.seal(body, secrets: secrets, purpose: \.idempotencyReplyKey, associatedData: binding)))]
    }

    static let mailParameters = SealedColumn(
        table: "mail_outbox", column: "parameters", keyColumns: ["id"], extraColumns: ["parameters_key_id"], isText: true
    ) { row, secrets in
        let keyID = row["parameters_key_id"] == .null ? nil : try row.string("parameters_key_id")
        return try OutboxCipher(secrets: secrets).resealed(try row.string("parameters"), outboxID: try row.string("id"), keyID: keyID).map {
            [("parameters", .text($0)), ("parameters_key_id", .text(secrets.keyID))]
        }
    }

    /// The SQL expression that reads a row's key id: the id (a blob's 8 bytes, or for the mail
    /// outbox the column beside the text), NULL for a value sealed before key ids, and for text
    /// `''` when the value is plain JSON (nothing sealed).
    func keyIDExpression(_ dialect: SQLDialect) -> String {
        if isText {
            return "CASE WHEN substr(\(column), 1, 10) = 'sealed:v1:' THEN \(extraColumns[0]) ELSE '' END"
        }
        let marker = dialect == .sqlite ? "X'746b313a'" : "'\\x746b313a'::bytea"
        return "CASE WHEN substr(\(column), 1, 4) = \(marker) THEN substr(\(column), 5, 8) ELSE NULL END"
    }

    /// The key id `keyIDExpression` read: nil before key ids, `""` for a plain value.
    func keyID(from value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .text(let text): return text
        default: return nil
        }
    }
}
