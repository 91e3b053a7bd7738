import Crypto
import Foundation
import Storage

/// Repeat redemptions (an SDK retrying, an app re-opening the emailed link) are the common
/// case and change nothing but a device's last-seen time and a new session. A reader plans
/// them; the single writer then re-checks the plan with one query and writes two rows,
/// instead of redoing every lookup while every other write waits.
extension RedemptionService {
    /// What a reader saw for a repeat redemption.
    public struct RepeatPlan: Sendable {
        let code: RedemptionCode
        let codeID: String
        let purchase: Purchase
        let account: Account
        let ownAccountID: String
        let appUserID: String
        let bearerAccountID: String?
    }

    /// A plan when `code` (found as `record`) was already redeemed into the account this app
    /// user (or bearer) uses now; nil for anything else (first redemptions, other users,
    /// expired codes...). Read-only: call it on a reader.
    public func planRepeat(
        code: RedemptionCode, record: RedemptionCodeRecord, appUserID: String, bearerAccountID: String?, on connection: Connection
    ) throws -> RepeatPlan? {
        guard record.status == .redeemed,
            let purchase = try PurchaseRepository.find(id: record.purchaseID, on: connection), let holder = purchase.accountID
        else { return nil }
        let account: Account?
        if let bearerAccountID {
            account = try AccountRepository.find(id: bearerAccountID, on: connection)
        } else {
            account = try AccountRepository.find(appUserID: appUserID, on: connection)
        }
        guard let account, account.id == holder else { return nil }
        let own = try bearerAccountID ?? AccountRepository.homeAccountID(appUserID: appUserID, on: connection) ?? account.id
        return RepeatPlan(
            code: code, codeID: record.id, purchase: purchase, account: account, ownAccountID: own, appUserID: appUserID,
            bearerAccountID: bearerAccountID)
    }

    /// Finishes a planned repeat in the writer's transaction, or returns nil when anything the
    /// plan relied on changed meanwhile (then run `redeem`).
    public func finishRepeat(_ plan: RepeatPlan, deviceID: String?, on connection: Connection, now: Date) throws -> RedeemOutcome? {
        guard let row = try connection.queryOne(
            """
            SELECT c.status AS code_status, p.account_id AS holder, p.updated_at AS purchase_updated,
                (SELECT account_id FROM app_users WHERE app_user_id = ?) AS app_user_account
            FROM redemption_codes c JOIN purchases p ON p.id = c.purchase_id WHERE c.id = ?
            """,
            [plan.appUserID, plan.codeID])
        else { return nil }
        guard try row.string("code_status") == RedemptionCodeRecord.Status.redeemed.rawValue,
            try row.optionalString("holder") == plan.account.id,
            try row.int64("purchase_updated") == Timestamp.milliseconds(plan.purchase.updatedAt),
            try plan.bearerAccountID != nil || row.optionalString("app_user_account") == plan.account.id
        else { return nil }
        let device = deviceID ?? "app_user:" + plan.appUserID
        let evicted = try DeviceRepository.touch(
            deviceID: device, appUserID: plan.appUserID, accountID: plan.account.id, maxDevices: policy.maxDevices, on: connection, now: now)
        let tokens = try SessionRepository.issue(accountID: plan.account.id, deviceID: device, on: connection, now: now)
        return .redeemed(RedeemOutcome.Redeemed(
            code: plan.code, purchase: plan.purchase, account: plan.account, accountSwitched: plan.account.id != plan.ownAccountID,
            tokens: tokens, evictedDevices: evicted, isEntitled: plan.purchase.isEntitled(at: now)))
    }
}
