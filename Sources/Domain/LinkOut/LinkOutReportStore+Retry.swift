import Foundation
import Storage

extension LinkOutReportStore {
    /// Queues a failed report again, due now (an operator's retry); false when no failed report has `id`.
    /// The report keeps its request id, so Apple and Google see the same report again.
    /// - Throws: `StorageError`.
    public static func retry(id: String, on connection: Connection, now: Date) throws -> Bool {
        let nowMS = Timestamp.milliseconds(now)
        return try connection.queryOne(
            "UPDATE link_out_reports SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'failed' RETURNING id",
            [nowMS, nowMS, id]) != nil
    }
}
