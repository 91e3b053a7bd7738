import Foundation
import Storage

/// At most one code email per key (a purchase, an email address) per interval, remembered
/// in the database so restarts and several processes agree.
public enum ResendThrottle {
    /// Claims the right to send for `key` at `now`: true (and recorded) when the last send
    /// was at least `interval` ago, false otherwise.
    public static func claim(_ key: String, interval: TimeInterval, on connection: Connection, now: Date) throws -> Bool {
        let nowMS = Timestamp.milliseconds(now)
        let cutoff = Timestamp.milliseconds(now.addingTimeInterval(-interval))
        let changed = try connection.run(
            """
            INSERT INTO resend_throttle (throttle_key, last_sent_at) VALUES (?, ?)
            ON CONFLICT (throttle_key) DO UPDATE SET last_sent_at = excluded.last_sent_at
            WHERE resend_throttle.last_sent_at <= ?
            """,
            [key, nowMS, cutoff])
        return changed > 0
    }

    /// Records a send for `key` at `now` whatever came before (an operator's resend).
    public static func mark(_ key: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            """
            INSERT INTO resend_throttle (throttle_key, last_sent_at) VALUES (?, ?)
            ON CONFLICT (throttle_key) DO UPDATE SET last_sent_at = excluded.last_sent_at
            """,
            [key, Timestamp.milliseconds(now)])
    }

    /// Seconds until `key` may send again (0 when it may now).
    public static func secondsUntilAllowed(_ key: String, interval: TimeInterval, on connection: Connection, now: Date) throws -> Int {
        guard let row = try connection.queryOne("SELECT last_sent_at FROM resend_throttle WHERE throttle_key = ?", [key]) else {
            return 0
        }
        let next = Timestamp.date(try row.int64("last_sent_at")).addingTimeInterval(interval)
        return max(0, Int(next.timeIntervalSince(now).rounded(.up)))
    }
}
