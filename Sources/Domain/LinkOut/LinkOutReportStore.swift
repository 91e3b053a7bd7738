import Foundation
import Storage

/// The durable queue of reports owed to Apple and Google (API.md "Link-out compliance").
///
/// A report is queued in the same write transaction as the purchase change it reports, once: its
/// natural key (`payment:<purchase id>:<payment>` for the first payment and each renewal,
/// `refund:<purchase id>:<payment>`, `no_purchase:<token id>`, `unrecognized:<externalPurchaseId>`, where `<payment>` is the Stripe
/// invoice or payment intent) is unique per platform, so a repeated
/// webhook or a second instance queues nothing more. Its `request_id` (Apple's
/// `requestIdentifier`, Google's `externalTransactionId`) is chosen then and kept, so a retry
/// resends the same report and the platform can tell a repeat. Claiming follows `EventStore`:
/// `FOR UPDATE SKIP LOCKED` on PostgreSQL, a lease that hands a dead claimer's work on.
public enum LinkOutReportStore {
    /// Which report.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The first purchase made under the token.
        case purchase
        case renewal
        case refund
        /// A token that led to no purchase (Apple wants those reported too).
        case noPurchase = "no_purchase"
        /// A token Apple told of (`EXTERNAL_PURCHASE_TOKEN`) that Tollgate never kept.
        case unrecognized = "unrecognized_token"

        /// Reports queued in the same instant go out in this order: a payment before its refund.
        var order: Int {
            switch self {
            case .purchase: 0
            case .renewal: 1
            case .refund: 2
            case .noPurchase: 3
            case .unrecognized: 4
            }
        }
    }

    /// A report claimed for sending.
    public struct Claimed: Sendable, Equatable {
        public let id: String
        public let tokenID: String
        public let reporting: LinkOutPolicy.Reporting
        public let kind: Kind
        /// The purchase reported; nil for `noPurchase`.
        public let purchaseID: String?
        public let requestID: String
        /// Attempts so far, this one included.
        public let attempts: Int
        public let lines: [LinkOutReportLine]
        public let createdAt: Date
    }

    /// How an attempt ended.
    public enum Outcome: Sendable, Equatable {
        case sent
        /// Retry at `retryAt`, or give up (`failed`) when nil.
        case failed(error: String, retryAt: Date?)
    }

    /// A report as operators see it.
    public struct Listed: Sendable, Equatable {
        public let id: String
        public let reporting: LinkOutPolicy.Reporting
        public let kind: Kind
        public let status: String
        public let requestID: String
        public let program: String
        public let storefront: String
        public let attempts: Int
        public let lastError: String?
        public let lines: [LinkOutReportLine]
        public let createdAt: Date
        public let sentAt: Date?
    }

    /// Queues a report for `token` unless one with `naturalKey` exists; returns whether it did.
    /// Call inside the write transaction of the change it reports.
    /// - Parameter requestID: the id the platform sees; a fresh UUID when nil.
    /// - Throws: `StorageError`.
    @discardableResult
    public static func enqueue(
        token: LinkOutTokenRepository.Token, kind: Kind, naturalKey: String, purchaseID: String?, lines: [LinkOutReportLine],
        requestID: String? = nil, on connection: Connection, now: Date
    ) throws -> Bool {
        let nowMS = Timestamp.milliseconds(now)
        let body = String(decoding: try JSONEncoder.linkOutLines.encode(lines), as: UTF8.self)
        return try connection.run(
            """
            INSERT INTO link_out_reports (id, token_id, reporting, natural_key, purchase_id, kind, request_id, body, status, attempts,
                next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)
            ON CONFLICT (reporting, natural_key) DO NOTHING
            """,
            [
                try EntityID.make("lor"), token.id, token.reporting.rawValue, naturalKey, purchaseID, kind.rawValue,
                requestID ?? UUID().uuidString.lowercased(), body, nowMS, nowMS, nowMS
            ]) == 1
    }

    /// The lines of the purchase's payment reports (first payment and renewals), oldest first.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func paymentLines(purchaseID: String, on connection: Connection) throws -> [LinkOutReportLine] {
        try connection.query(
            "SELECT body FROM link_out_reports WHERE purchase_id = ? AND kind IN ('purchase', 'renewal') ORDER BY created_at", [purchaseID]
        ).flatMap(lines)
    }

    /// The refund lines of the purchase's reports, oldest first.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func refundLines(purchaseID: String, on connection: Connection) throws -> [LinkOutReportLine] {
        try connection.query(
            "SELECT body FROM link_out_reports WHERE purchase_id = ? AND kind = 'refund' ORDER BY created_at", [purchaseID]
        ).flatMap(lines)
    }

    /// The payment report of the purchase whose line is `lineID`: its `request_id` and status.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func payment(purchaseID: String, lineID: String, on connection: Connection) throws -> (requestID: String, status: String)? {
        for row in try connection.query(
            "SELECT request_id, status, body FROM link_out_reports WHERE purchase_id = ? AND kind IN ('purchase', 'renewal')", [purchaseID])
        where try lines(row).contains(where: { $0.lineID == lineID }) {
            return (try row.string("request_id"), try row.string("status"))
        }
        return nil
    }

    /// The lines of the report `naturalKey` (a refund reads what it refunds), if queued.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func lines(naturalKey: String, on connection: Connection) throws -> [LinkOutReportLine]? {
        try connection.queryOne("SELECT body FROM link_out_reports WHERE natural_key = ?", [naturalKey]).map(lines)
    }

    /// The natural key and `request_id` of the purchase's first payment report (`purchase`): Google's
    /// `initialExternalTransactionId` of every renewal.
    /// - Throws: `StorageError`.
    public static func firstPayment(purchaseID: String, on connection: Connection) throws -> (naturalKey: String, requestID: String, status: String)?
    {
        try connection.queryOne(
            "SELECT natural_key, request_id, status FROM link_out_reports WHERE purchase_id = ? AND kind = 'purchase' ORDER BY created_at LIMIT 1",
            [purchaseID]
        ).map { (try $0.string("natural_key"), try $0.string("request_id"), try $0.string("status")) }
    }

    /// Whether any report was queued for the token.
    /// - Throws: `StorageError`.
    public static func hasReports(tokenID: String, on connection: Connection) throws -> Bool {
        try connection.queryOne("SELECT 1 AS one FROM link_out_reports WHERE token_id = ? LIMIT 1", [tokenID]) != nil
    }

    /// Claims up to `limit` due reports: status `sending`, attempts + 1. A report left `sending`
    /// for longer than `lease` (its claimer died) is due again.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func claim(limit: Int, lease: TimeInterval, on connection: Connection, now: Date) throws -> [Claimed] {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            "UPDATE link_out_reports SET status = 'pending' WHERE status = 'sending' AND updated_at <= ?", [nowMS - Int64(lease * 1000)])
        let rows = try connection.query(
            """
            UPDATE link_out_reports SET status = 'sending', attempts = attempts + 1, updated_at = ?
            WHERE id IN (
                SELECT id FROM link_out_reports WHERE status = 'pending' AND next_attempt_at <= ?
                ORDER BY next_attempt_at LIMIT ?\(connection.dialect.skipLockedClause))
            RETURNING id, token_id, reporting, kind, purchase_id, request_id, attempts, body, created_at
            """,
            [nowMS, nowMS, limit])
        return try rows.map { row in
            Claimed(
                id: try row.string("id"), tokenID: try row.string("token_id"), reporting: try reporting(row), kind: try kind(row),
                purchaseID: try row.optionalString("purchase_id"), requestID: try row.string("request_id"), attempts: try row.int("attempts"),
                lines: try lines(row),
                createdAt: Timestamp.date(try row.int64("created_at")))
        }.sorted { ($0.createdAt, $0.kind.order) < ($1.createdAt, $1.kind.order) }
    }

    /// Records how an attempt ended.
    /// - Throws: `StorageError`.
    public static func record(_ id: String, _ outcome: Outcome, on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        switch outcome {
        case .sent:
            try connection.execute(
                "UPDATE link_out_reports SET status = 'sent', last_error = NULL, updated_at = ?, sent_at = ? WHERE id = ?", [nowMS, nowMS, id])
        case .failed(let error, let retryAt):
            try connection.execute(
                "UPDATE link_out_reports SET status = ?, next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?",
                [retryAt == nil ? "failed" : "pending", retryAt.map(Timestamp.milliseconds) ?? nowMS, String(error.prefix(300)), nowMS, id])
        }
    }

    /// Returns every `sending` report to `pending` (the process that claimed them stopped). Only
    /// on SQLite, whose one worker runs it at start; on PostgreSQL the lease does it.
    /// - Throws: `StorageError`.
    @discardableResult
    public static func recoverAbandoned(on connection: Connection, now: Date) throws -> Int {
        guard connection.dialect == .sqlite else { return 0 }
        return try connection.run(
            "UPDATE link_out_reports SET status = 'pending', updated_at = ? WHERE status = 'sending'", [Timestamp.milliseconds(now)])
    }

    /// Reports queued in `[from, to)`, oldest first, at most `limit`.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func list(from: Date, to: Date, limit: Int, on connection: Connection) throws -> [Listed] {
        try connection.query(
            """
            SELECT r.id, r.reporting, r.kind, r.status, r.request_id, r.attempts, r.last_error, r.body, r.created_at, r.sent_at,
                t.program, t.storefront
            FROM link_out_reports r JOIN link_out_tokens t ON t.id = r.token_id
            WHERE r.created_at >= ? AND r.created_at < ? ORDER BY r.created_at, r.id LIMIT ?
            """,
            [Timestamp.milliseconds(from), Timestamp.milliseconds(to), limit]
        ).map { row in
            Listed(
                id: try row.string("id"), reporting: try reporting(row), kind: try kind(row), status: try row.string("status"),
                requestID: try row.string("request_id"), program: try row.string("program"), storefront: try row.string("storefront"),
                attempts: try row.int("attempts"), lastError: try row.optionalString("last_error"), lines: try lines(row),
                createdAt: Timestamp.date(try row.int64("created_at")), sentAt: try row.optionalInt64("sent_at").map(Timestamp.date))
        }
    }

    /// When the next pending report is due, if any.
    /// - Throws: `StorageError`.
    public static func nextDue(on connection: Connection) throws -> Date? {
        try connection.queryOne("SELECT MIN(next_attempt_at) AS due FROM link_out_reports WHERE status = 'pending'")?
            .optionalInt64("due").map(Timestamp.date)
    }

    static func reporting(_ row: Row) throws -> LinkOutPolicy.Reporting {
        let text = try row.string("reporting")
        guard let value = LinkOutPolicy.Reporting(rawValue: text) else { throw DomainError(.corrupt, "link-out report to unknown \(text)") }
        return value
    }

    private static func kind(_ row: Row) throws -> Kind {
        let text = try row.string("kind")
        guard let value = Kind(rawValue: text) else { throw DomainError(.corrupt, "link-out report of unknown kind \(text)") }
        return value
    }

    private static func lines(_ row: Row) throws -> [LinkOutReportLine] {
        do {
            return try JSONDecoder.linkOutLines.decode([LinkOutReportLine].self, from: Data(try row.string("body").utf8))
        } catch let error as DecodingError {
            throw DomainError(.corrupt, "link-out report body: \(error)")
        }
    }
}

extension JSONEncoder {
    /// Report lines as stored: keys sorted, dates as milliseconds since 1970.
    static var linkOutLines: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }
}

extension JSONDecoder {
    /// Reads what `JSONEncoder.linkOutLines` wrote.
    static var linkOutLines: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}
