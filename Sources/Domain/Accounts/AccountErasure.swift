import Foundation
import Storage

/// Erases an account's personal data in the caller's transaction (API.md "Account deletion and
/// data export"). The account row stays as a tombstone (`deleted_at`, no email, username or
/// password) so what points at it still resolves; its app users, devices and sign-in links go;
/// its sessions end and lose their device; its purchases, and the unlinked ones bought with
/// its addresses, stay for accounting and store notifications but are detached and hold no
/// email, owner, app user or attribution; their codes are revoked; the checkouts behind them
/// and the resend throttles keyed by its addresses forget them; their reminders stop and their
/// unsubscribe tokens go (the funnel times and the history of each change stay: no personal
/// data); operators' manual grants to it go (they carry reasons about the buyer). The audit
/// log stays. Mail lives in another module: the caller cancels it with `Erased.emails`.
public enum AccountErasure {
    /// What an erasure did. `emails` are the addresses it erased, for the caller to cancel mail
    /// to them in the same transaction; never log or store them.
    public struct Erased: Sendable, Equatable {
        public let accountID: String
        public let obfuscatedID: String
        /// The app users that pointed at the account (for `account.deleted`).
        public let appUserIDs: [String]
        public let emails: Set<String>
        public let purchaseIDs: [String]
        public let codesRevoked: Int
        public let devicesRemoved: Int
    }

    /// The result of `erase`.
    public enum Outcome: Sendable, Equatable {
        case erased(Erased)
        /// Deleted before: nothing left to do (a repeat answers as the first did).
        case alreadyDeleted
        case notFound
    }

    /// Erases `accountID`. Call inside a write transaction.
    /// - Throws: `StorageError`.
    public static func erase(accountID: String, on connection: Connection, now: Date) throws -> Outcome {
        guard
            let account = try connection.queryOne("SELECT obfuscated_id, email, requested_email, deleted_at FROM accounts WHERE id = ?", [accountID])
        else {
            return .notFound
        }
        if try account.optionalInt64("deleted_at") != nil { return .alreadyDeleted }
        let nowMS = Timestamp.milliseconds(now)
        let appUserIDs = try AccountRepository.appUserIDs(accountID: accountID, on: connection)
        var emails = Set<String>()
        if let email = try account.optionalString("email") { emails.insert(email.lowercased()) }
        if let email = try account.optionalString("requested_email") { emails.insert(email.lowercased()) }
        for row in try connection.query("SELECT email FROM auth_tokens WHERE account_id = ? AND email IS NOT NULL", [accountID]) {
            emails.insert(try row.string("email").lowercased())
        }
        var purchaseIDs: [String] = []
        for row in try connection.query("SELECT id, purchaser_email FROM purchases WHERE account_id = ?", [accountID]) {
            purchaseIDs.append(try row.string("id"))
            if let email = try row.optionalString("purchaser_email") { emails.insert(email.lowercased()) }
        }
        // Web purchases bought with the account's addresses but never redeemed into any account.
        for email in emails.sorted() {
            for row in try connection.query("SELECT id FROM purchases WHERE purchaser_email = ? AND account_id IS NULL", [email]) {
                purchaseIDs.append(try row.string("id"))
            }
        }

        var codesRevoked = 0
        for purchaseID in purchaseIDs {
            codesRevoked += try connection.run(
                "UPDATE redemption_codes SET status = 'revoked', updated_at = ? WHERE purchase_id = ? AND status IN ('live', 'redeemed')",
                [nowMS, purchaseID])
            try connection.execute("UPDATE redemption_codes SET redeemed_app_user_id = NULL WHERE purchase_id = ?", [purchaseID])
            try connection.execute(
                """
                UPDATE purchases SET account_id = NULL, purchaser_email = NULL, owner_hint = NULL, app_user_id = NULL,
                    attribution = NULL, erased_at = ?, updated_at = ? WHERE id = ?
                """,
                [nowMS, nowMS, purchaseID])
            try forgetCheckouts("purchase_id = ?", [purchaseID], on: connection)
            try BuyerJourneyRepository.stopReminders(purchaseID: purchaseID, unsubscribed: false, on: connection, now: now)
            try connection.execute("DELETE FROM reminder_unsubscribes WHERE purchase_id = ?", [purchaseID])
        }
        try ManualEntitlementRepository.delete(accountID: accountID, on: connection)
        // A kept App Store receipt (verifyReceipt-only deployments) is the buyer's: it goes too.
        try AppStoreReceiptRepository.forget(purchaseIDs: purchaseIDs, on: connection)
        // Checkouts started but never paid, by one of its app users or addresses (one pass).
        let owners = appUserIDs + emails.sorted()
        if !owners.isEmpty {
            let marks = Array(repeating: "?", count: owners.count).joined(separator: ", ")
            try forgetCheckouts(
                "purchase_id IS NULL AND (app_user_id IN (\(marks)) OR email IN (\(marks)))", (owners + owners).map { $0 as any SQLBindable },
                on: connection)
        }
        for email in emails.sorted() {
            // Throttle keys `email:<address>:<purchase>` (see `CodeResend.throttleKeys` in UseCases).
            try connection.execute(
                "DELETE FROM resend_throttle WHERE throttle_key >= ? AND throttle_key < ?", ["email:\(email):", "email:\(email);"])
        }

        try connection.execute(
            "UPDATE app_users SET home_account_id = account_id WHERE home_account_id = ? AND account_id <> ?", [accountID, accountID])
        try AppUserSecretRepository.unbindAll(accountID: accountID, on: connection)
        try connection.execute(
            "DELETE FROM purchase_guests WHERE holder_account_id = ? OR app_user_id IN (SELECT app_user_id FROM app_users WHERE account_id = ?)",
            [accountID, accountID])
        try connection.execute("DELETE FROM app_users WHERE account_id = ?", [accountID])
        let devicesRemoved = try connection.run("DELETE FROM devices WHERE account_id = ?", [accountID])
        try connection.execute("DELETE FROM auth_tokens WHERE account_id = ?", [accountID])
        // The rows keep only hashes once the device is gone; they let a repeated deletion with the
        // same token answer as the first did, and retention removes them when they expire.
        try connection.execute(
            "UPDATE sessions SET device_id = NULL, revoked_at = COALESCE(revoked_at, ?) WHERE account_id = ?", [nowMS, accountID])
        try WebSessionRepository.revokeAll(accountID: accountID, on: connection, now: now)
        try connection.execute(
            """
            UPDATE accounts SET email = NULL, email_verified = 0, requested_email = NULL, email_requested_at = NULL, username = NULL, password_hash = NULL, deleted_at = ?,
                session_generation = session_generation + 1, updated_at = ? WHERE id = ?
            """,
            [nowMS, nowMS, accountID])
        return .erased(
            Erased(
                accountID: accountID, obfuscatedID: try account.string("obfuscated_id"), appUserIDs: appUserIDs, emails: emails,
                purchaseIDs: purchaseIDs, codesRevoked: codesRevoked, devicesRemoved: devicesRemoved))
    }

    /// Whether `accountID` was deleted.
    /// - Throws: `StorageError`.
    public static func isDeleted(accountID: String, on connection: Connection) throws -> Bool {
        try connection.queryOne("SELECT deleted_at FROM accounts WHERE id = ?", [accountID])?.optionalInt64("deleted_at") != nil
    }

    private static func forgetCheckouts(_ condition: String, _ arguments: [any SQLBindable], on connection: Connection) throws {
        try connection.execute(
            "UPDATE checkouts SET email = NULL, app_user_id = NULL, redirect_url = NULL, context = '{}' WHERE \(condition)", arguments)
    }
}
