import Foundation
import Storage

extension DeviceRepository {
    /// Whether the account has a row for this device.
    public static func exists(accountID: String, deviceID: String, on connection: Connection) throws -> Bool {
        try connection.queryOne("SELECT 1 AS one FROM devices WHERE account_id = ? AND device_id = ?", [accountID, deviceID]) != nil
    }

    /// Marks the device signed out (an operator ended its sessions); it counts again when it next redeems.
    public static func signOut(accountID: String, deviceID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE devices SET signed_out_at = COALESCE(signed_out_at, ?) WHERE account_id = ? AND device_id = ?",
            [Timestamp.milliseconds(now), accountID, deviceID])
    }
}
