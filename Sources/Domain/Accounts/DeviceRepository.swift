import Foundation
import Storage

/// The devices signed in to an account, with the `max_devices` rule: past the limit the
/// least recently seen device is signed out (its sessions revoked).
public enum DeviceRepository {
    /// A device's last-seen time moves at most this often. The limit only needs to know which
    /// device was seen least recently, and to the minute is enough for that; an SDK retrying a
    /// redemption then writes no device row (one page in the log, and later in the checkpoint).
    public static let lastSeenResolution: TimeInterval = 60

    /// A device's row as the caller already read it in this transaction.
    public enum Seen: Sendable, Equatable {
        /// No row: the account never saw the device.
        case unknown
        case signedOut
        /// Signed in, last seen at this time (Unix milliseconds).
        case signedIn(lastSeenAt: Int64)
    }

    /// Records that `deviceID` uses `accountID` now; returns the devices signed out to stay
    /// within `maxDevices`.
    /// - Parameter seen: the device's row as read earlier in this transaction (a repeat redemption
    ///   reads it with the code's state); nil reads it here.
    public static func touch(
        deviceID: String, appUserID: String?, accountID: String, maxDevices: Int, seen: Seen? = nil, on connection: Connection, now: Date
    ) throws -> [String] {
        let nowMS = Timestamp.milliseconds(now)
        let lastSeenAt: Int64?
        switch seen {
        case .signedIn(let at): lastSeenAt = at
        case .signedOut, .unknown: lastSeenAt = nil
        case nil:
            lastSeenAt = try connection.queryOne(
                "SELECT last_seen_at FROM devices WHERE account_id = ? AND device_id = ? AND signed_out_at IS NULL", [accountID, deviceID]
            )?.int64("last_seen_at")
        }
        // A device already signed in only moves its last-seen time: no limit can be crossed.
        if let lastSeenAt {
            if nowMS - lastSeenAt >= Int64(lastSeenResolution * 1000) {
                try connection.executeDeferred(
                    "UPDATE devices SET last_seen_at = ? WHERE account_id = ? AND device_id = ?", [nowMS, accountID, deviceID])
            }
            return []
        }
        // A new device may cross the limit: on PostgreSQL (READ COMMITTED) the account's new
        // devices take turns from here, so two of them never both see room for one.
        try connection.lockKey("devices:" + accountID)
        try connection.executeDeferred(
            """
            INSERT INTO devices (account_id, device_id, app_user_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (account_id, device_id) DO UPDATE SET last_seen_at = excluded.last_seen_at,
                app_user_id = COALESCE(excluded.app_user_id, devices.app_user_id), signed_out_at = NULL
            """,
            [accountID, deviceID, appUserID, nowMS, nowMS])
        let active = try connection.query(
            "SELECT device_id FROM devices WHERE account_id = ? AND signed_out_at IS NULL ORDER BY last_seen_at DESC, created_at DESC",
            [accountID])
        guard active.count > maxDevices else { return [] }
        // The device seen now stays whatever the order of ties (devices first seen in one
        // millisecond); the least recently seen of the others go.
        let others = try active.map { try $0.string("device_id") }.filter { $0 != deviceID }
        var evicted: [String] = []
        for id in others.dropFirst(max(maxDevices, 1) - 1) {
            try connection.execute(
                "UPDATE devices SET signed_out_at = ? WHERE account_id = ? AND device_id = ?", [nowMS, accountID, id])
            // Its sessions end and its install secret proves nothing any more.
            try SessionRepository.revoke(accountID: accountID, deviceID: id, on: connection, now: now)
            evicted.append(id)
        }
        return evicted
    }

    /// Devices of an account that are signed in, most recent first.
    public static func active(accountID: String, on connection: Connection) throws -> [String] {
        try connection.query(
            "SELECT device_id FROM devices WHERE account_id = ? AND signed_out_at IS NULL ORDER BY last_seen_at DESC",
            [accountID]
        ).map { try $0.string("device_id") }
    }
}
