import Foundation
import Storage

/// What a repeat redemption is judged on, each in one query: who holds a code's purchase (on a
/// reader), and, in the writer's transaction, the code's status, its purchase and the account
/// holding it (with what its row says toward "formed by"), the app user's current and home
/// accounts, the session generations a new session carries and the device's row.
public enum RepeatStateRepository {
    /// The state a repeat is finished from.
    public struct State: Sendable {
        /// Nil when the stored status is none this version knows.
        public let codeStatus: RedemptionCodeRecord.Status?
        public let purchase: Purchase
        /// The account the app user uses now; nil when it has no row.
        public let appUserAccountID: String?
        /// The app user's home account, if any.
        public let homeAccountID: String?
        /// The account holding the purchase; nil when none does.
        public let holder: Account?
        /// What the holder's row says toward "formed by" (`AccountFormation.isFormed`); nil when no
        /// account holds the purchase.
        public let holderOwnRow: AccountFormation.Facts.OwnRow?
        /// The holder's and the device's session generations, for the session a repeat issues;
        /// nil when no account holds the purchase.
        public let generations: SessionRepository.Generations?
        /// The device's row on the holder's account, for `DeviceRepository.touch`.
        public let device: DeviceRepository.Seen
    }

    /// The account holding `purchaseID`; nil when none does (or no such purchase).
    public static func holder(purchaseID: String, on connection: Connection) throws -> String? {
        try connection.queryOne("SELECT account_id FROM purchases WHERE id = ?", [purchaseID])?.optionalString("account_id")
    }

    private static let holderColumns = Account.ColumnNames(alias: "a", prefix: "holder_")
    private static let holderOwnNames = AccountFormation.Facts.OwnRow.Names(alias: "a", prefix: "holder_own_")

    private static let stateQuery = """
        SELECT c.status AS code_status, u.account_id AS app_user_account, u.home_account_id AS home_account,
            \(Purchase.columns(qualifiedBy: "p")), \(holderColumns.selectList), \(holderOwnNames.selectList), a.session_generation AS holder_generation,
            d.device_id AS device_row, d.session_generation AS device_generation, d.last_seen_at AS device_last_seen,
            d.signed_out_at AS device_signed_out
        FROM redemption_codes c JOIN purchases p ON p.id = c.purchase_id LEFT JOIN app_users u ON u.app_user_id = ?
            LEFT JOIN accounts a ON a.id = p.account_id LEFT JOIN devices d ON d.account_id = p.account_id AND d.device_id = ?
        WHERE c.id = ?
        """

    /// The state of code `codeID` for `appUserID` on device `deviceID`; nil when the code has no row.
    public static func state(codeID: String, appUserID: String, deviceID: String, on connection: Connection) throws -> State? {
        guard let row = try connection.queryOne(stateQuery, [appUserID, deviceID, codeID]) else { return nil }
        let holder = try row.optionalString(holderColumns.id) == nil ? nil : try Account(row: row, names: holderColumns)
        let device: DeviceRepository.Seen
        if try row.optionalString("device_row") == nil {
            device = .unknown
        } else if try row.optionalInt64("device_signed_out") != nil {
            device = .signedOut
        } else {
            device = .signedIn(lastSeenAt: try row.int64("device_last_seen"))
        }
        return State(
            codeStatus: RedemptionCodeRecord.Status(rawValue: try row.string("code_status")), purchase: try Purchase(row: row),
            appUserAccountID: try row.optionalString("app_user_account"), homeAccountID: try row.optionalString("home_account"),
            holder: holder, holderOwnRow: holder == nil ? nil : try AccountFormation.Facts.OwnRow(row: row, names: holderOwnNames),
            generations: holder == nil
                ? nil
                : SessionRepository.Generations(
                    account: try row.int64("holder_generation"), device: try row.optionalInt64("device_generation") ?? 0),
            device: device)
    }
}
