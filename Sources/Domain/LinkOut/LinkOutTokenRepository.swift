import Foundation
import Storage

/// The platform tokens checkouts were started with (API.md "Link-out compliance"): one row per
/// token, sealed (`LinkOutTokenVault`), found by its keyed hash; each checkout names its token
/// (`checkouts.link_out_token_id`), so a purchase finds the token it was made under.
public enum LinkOutTokenRepository {
    /// A stored token, without the token itself.
    public struct Token: Sendable, Equatable {
        public let id: String
        public let reporting: LinkOutPolicy.Reporting
        /// Apple's `externalPurchaseId` from the token; nil for Google's opaque tokens.
        public let externalID: String?
        public let program: String
        public let storefront: String
        public let createdAt: Date

        static let columns = "id, reporting, external_id, program, storefront, created_at"

        init(row: Row) throws {
            id = try row.string("id")
            let reporting = try row.string("reporting")
            guard let known = LinkOutPolicy.Reporting(rawValue: reporting) else {
                throw DomainError(.corrupt, "link_out_tokens row \(id) reports to unknown \(reporting)")
            }
            self.reporting = known
            externalID = try row.optionalString("external_id")
            program = try row.string("program")
            storefront = try row.string("storefront")
            createdAt = Timestamp.date(try row.int64("created_at"))
        }
    }

    /// What a checkout brings: the token and where it came from.
    public struct Presented: Sendable, Equatable {
        public let token: String
        public let reporting: LinkOutPolicy.Reporting
        public let externalID: String?
        public let program: String
        public let storefront: String

        public init(token: String, reporting: LinkOutPolicy.Reporting, externalID: String?, program: String, storefront: String) {
            self.token = token
            self.reporting = reporting
            self.externalID = externalID
            self.program = program
            self.storefront = storefront
        }
    }

    /// Stores `presented` (once per token: a second checkout with the same token gets the same
    /// row) and names it on the checkout `sessionID`. Call inside the write transaction that
    /// records the checkout.
    /// - Throws: `StorageError`, `CryptoError`.
    @discardableResult
    public static func attach(_ presented: Presented, toCheckout sessionID: String, vault: LinkOutTokenVault, on connection: Connection, now: Date)
        throws -> Token
    {
        let hash = try vault.hash(presented.token)
        if let legacy = try findLegacy(reporting: presented.reporting.rawValue, hashes: vault.legacyHashes(presented.token), on: connection) {
            try connection.execute("UPDATE checkouts SET link_out_token_id = ? WHERE session_id = ?", [legacy.id, sessionID])
            return legacy
        }
        let id = try EntityID.make("lot")
        try connection.execute(
            """
            INSERT INTO link_out_tokens (id, reporting, token_hash, token_sealed, token_key_id, external_id, program, storefront, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (reporting, token_hash) DO NOTHING
            """,
            [
                id, presented.reporting.rawValue, hash, try vault.seal(presented.token, tokenID: id), vault.keyID, presented.externalID,
                presented.program,
                presented.storefront, Timestamp.milliseconds(now)
            ])
        guard
            let row = try connection.queryOne(
                "SELECT \(Token.columns) FROM link_out_tokens WHERE reporting = ? AND token_hash = ?", [presented.reporting.rawValue, hash])
        else { throw DomainError(.corrupt, "link-out token vanished after its insert") }
        let token = try Token(row: row)
        try connection.execute("UPDATE checkouts SET link_out_token_id = ? WHERE session_id = ?", [token.id, sessionID])
        return token
    }

    /// A row written before key ids, found by its keyed hash (until `tollgate keys rotate` moves it).
    static func findLegacy(reporting: String, hashes: [String], on connection: Connection) throws -> Token? {
        let marks = hashes.map { _ in "?" }.joined(separator: ", ")
        return try connection.queryOne(
            "SELECT \(Token.columns) FROM link_out_tokens WHERE reporting = ? AND token_hash IN (\(marks))",
            [reporting as any SQLBindable] + hashes.map { $0 as any SQLBindable }
        ).map(Token.init(row:))
    }

    /// What a row's `token_hash` is computed over: the token, or for an unrecognized row its id.
    public static func hashedText(token: String, program: String, externalID: String?) -> String {
        program == "unrecognized" ? "unrecognized:" + (externalID ?? "") : token
    }

    /// The token row `id`.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func find(id: String, on connection: Connection) throws -> Token? {
        try connection.queryOne("SELECT \(Token.columns) FROM link_out_tokens WHERE id = ?", [id]).map(Token.init(row:))
    }

    /// A row for an Apple token Tollgate never kept, named only by its `externalPurchaseId`
    /// (Apple told of it): programme `unrecognized`, no storefront, nothing sealed but an empty
    /// box. Once per id.
    /// - Throws: `StorageError`, `CryptoError`, `DomainError(.corrupt)`.
    public static func recordUnrecognized(externalID: String, vault: LinkOutTokenVault, on connection: Connection, now: Date) throws -> Token {
        let hash = try vault.hash("unrecognized:" + externalID)
        if let legacy = try findLegacy(reporting: "apple", hashes: vault.legacyHashes("unrecognized:" + externalID), on: connection) {
            return legacy
        }
        let id = try EntityID.make("lot")
        try connection.execute(
            """
            INSERT INTO link_out_tokens (id, reporting, token_hash, token_sealed, token_key_id, external_id, program, storefront, created_at)
            VALUES (?, 'apple', ?, ?, ?, ?, 'unrecognized', '', ?) ON CONFLICT (reporting, token_hash) DO NOTHING
            """,
            [id, hash, try vault.seal("", tokenID: id), vault.keyID, externalID, Timestamp.milliseconds(now)])
        guard let row = try connection.queryOne("SELECT \(Token.columns) FROM link_out_tokens WHERE reporting = 'apple' AND token_hash = ?", [hash])
        else { throw DomainError(.corrupt, "link-out token vanished after its insert") }
        return try Token(row: row)
    }

    /// The token of `reporting` whose platform id (Apple's `externalPurchaseId`) is `externalID`.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func find(reporting: LinkOutPolicy.Reporting, externalID: String, on connection: Connection) throws -> Token? {
        try connection.queryOne(
            "SELECT \(Token.columns) FROM link_out_tokens WHERE reporting = ? AND external_id = ? ORDER BY created_at LIMIT 1",
            [reporting.rawValue, externalID]
        ).map(Token.init(row:))
    }

    /// The token the purchase `purchaseID` was bought under, if its checkout carried one.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func find(purchaseID: String, on connection: Connection) throws -> Token? {
        try connection.queryOne(
            """
            SELECT t.id, t.reporting, t.external_id, t.program, t.storefront, t.created_at FROM checkouts c
            JOIN link_out_tokens t ON t.id = c.link_out_token_id WHERE c.purchase_id = ? ORDER BY c.created_at LIMIT 1
            """, [purchaseID]
        ).map(Token.init(row:))
    }

    /// The token of the checkout `sessionID`, if it carried one.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func find(sessionID: String, on connection: Connection) throws -> Token? {
        try connection.queryOne(
            """
            SELECT t.id, t.reporting, t.external_id, t.program, t.storefront, t.created_at FROM checkouts c
            JOIN link_out_tokens t ON t.id = c.link_out_token_id WHERE c.session_id = ?
            """, [sessionID]
        ).map(Token.init(row:))
    }

    /// The token itself, opened from its box (to report it).
    /// - Throws: `StorageError`, `CryptoError`, `DomainError(.notFound)`.
    public static func open(_ token: Token, vault: LinkOutTokenVault, on connection: Connection) throws -> String {
        guard let row = try connection.queryOne("SELECT token_sealed FROM link_out_tokens WHERE id = ?", [token.id]) else {
            throw DomainError(.notFound, "no link-out token \(token.id)")
        }
        return try vault.open(try row.blob("token_sealed"), tokenID: token.id)
    }
}
