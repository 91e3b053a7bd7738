import Foundation
import Storage

extension LinkOutReportStore {
    /// How many reports of one platform are in one status, and when the oldest of them was queued.
    public struct Count: Sendable, Equatable {
        public let reporting: LinkOutPolicy.Reporting
        /// `pending`, `sending`, `sent` or `failed`.
        public let status: String
        public let count: Int
        public let oldest: Date
    }

    /// Reports by platform and status (for `/metrics`).
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    public static func counts(on connection: Connection) throws -> [Count] {
        try connection.query(
            "SELECT reporting, status, COUNT(*) AS n, MIN(created_at) AS oldest FROM link_out_reports GROUP BY reporting, status ORDER BY reporting, status"
        ).map { row in
            Count(
                reporting: try reporting(row), status: try row.string("status"), count: try row.int("n"),
                oldest: Timestamp.date(try row.int64("oldest")))
        }
    }
}
