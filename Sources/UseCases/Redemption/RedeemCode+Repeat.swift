import Crypto
import Domain
import Foundation
import Storage

/// Repeat redemptions (an SDK retrying, an app re-opening the emailed link) are the common
/// case and change nothing but a device's last-seen time and a new session. A reader (or the
/// memory of a recent repeat, `RecentRepeats`) decides that a request is one; the single
/// writer then reads the code, purchase and accounts afresh and writes two rows, instead of
/// redoing every lookup of a first redemption while every other write waits.
///
/// The writer, not a reader, reads that state: a reader's transaction that begins after a commit
/// finds its cache dropped, and repeats commit all the time. Deciding the whole repeat on a
/// reader (the writer only checking the session generations) took 88k instructions off the
/// writer per repeat, but cost 1.49× the CPU per request and 0.77× the req/s at load
/// (docs/BENCHMARKS.md, 2026-11-29T23:00Z).
extension RedeemCode {
    /// A redemption expected to repeat an earlier one: which code row, for whom. It carries
    /// no data to answer with; `finishRepeat` reads that in the writer's transaction.
    struct RepeatPlan: Sendable {
        let code: RedemptionCode
        /// The code's row.
        let codeID: String
        let appUserID: String
        /// The install secret this call carries (checked again in the writer's transaction).
        let secret: InstallSecret?
        let bearerAccountID: String?

        init(code: RedemptionCode, codeID: String, appUserID: String, secret: InstallSecret?, bearerAccountID: String? = nil) {
            self.code = code
            self.codeID = codeID
            self.appUserID = appUserID
            self.secret = secret
            self.bearerAccountID = bearerAccountID
        }
    }

    /// A plan when `code` (found as `record`) was already redeemed into the account this app
    /// user (or bearer) uses now; nil for anything else (first redemptions, other users,
    /// expired codes...). Read-only: call it on a reader.
    static func planRepeat(
        code: RedemptionCode, record: RedemptionCodeRecord, appUserID: String, secret: InstallSecret? = nil, bearerAccountID: String?,
        on connection: Connection
    ) throws -> RepeatPlan? {
        guard record.status == .redeemed, let holder = try RepeatStateRepository.holder(purchaseID: record.purchaseID, on: connection)
        else { return nil }
        let redeemer = try bearerAccountID ?? AccountRepository.find(appUserID: appUserID, on: connection)?.id
        guard isRepeat(status: record.status, holder: holder, redeemer: redeemer) else { return nil }
        return RepeatPlan(code: code, codeID: record.id, appUserID: appUserID, secret: secret, bearerAccountID: bearerAccountID)
    }

    /// A repeat: the code was redeemed and its purchase is held by the account the redeemer
    /// (the bearer's account, else the app user's current one) uses now.
    static func isRepeat(status: RedemptionCodeRecord.Status?, holder: String?, redeemer: String?) -> Bool {
        status == .redeemed && holder != nil && holder == redeemer
    }

    /// Finishes a repeat in the writer's transaction from what the database says now, or
    /// returns nil when it is no longer a repeat (the code was revoked or replaced, the
    /// purchase moved, the app user switched accounts, the secret does not match): then run
    /// `redemption(of:...)`. The session goes out only while the rules still give one: the caller
    /// proved the app user, or the account is still formed by the code's purchase.
    /// - Parameter session: credentials drafted before the transaction (see `SessionRepository.draft`).
    func finishRepeat(
        _ plan: RepeatPlan, deviceID: String?, session: SessionRepository.Draft, on connection: Connection, now: Date
    ) throws -> RedeemOutcome.Redeemed? {
        guard
            let state = try RepeatStateRepository.state(
                codeID: plan.codeID, appUserID: plan.appUserID, deviceID: Self.device(deviceID, appUserID: plan.appUserID), on: connection)
        else { return nil }
        let purchase = state.purchase
        guard let holder = purchase.accountID,
            Self.isRepeat(status: state.codeStatus, holder: holder, redeemer: plan.bearerAccountID ?? state.appUserAccountID),
            let account = state.holder, let ownRow = state.holderOwnRow
        else { return nil }
        // The app user's row came with the state query: only its secrets are read here.
        let proof: AppUserProof =
            plan.bearerAccountID != nil
            ? .proven
            : AppUserProof.judge(
                exists: state.appUserAccountID != nil,
                bound: try AppUserSecretRepository.hashes(appUserID: plan.appUserID, on: connection), presented: plan.secret,
                bearerHoldsIt: false)
        guard proof == .proven || proof == .unproven else { return nil }
        // A bearer of the app user's account binds this install's secret (at most `max_devices`).
        if let bearer = plan.bearerAccountID, let secret = plan.secret, state.appUserAccountID == bearer {
            _ = try AppUserSecretRepository.bindWithBearer(
                secret, appUserID: plan.appUserID, deviceID: deviceID, maxDevices: policy.maxDevices, on: connection, now: now)
        }
        let proves = try proof == .proven || AccountFormation.isFormed(accountID: holder, ownRow: ownRow, by: purchase, on: connection)
        let ownAccountID = Self.ownAccountID(bearer: plan.bearerAccountID, home: state.homeAccountID, redeemer: holder)
        return try redeemed(
            plan.code, purchase: purchase, holder: account, ownAccountID: ownAccountID, appUserID: plan.appUserID, deviceID: deviceID,
            session: proves ? session : nil, generations: state.generations, seenDevice: state.device, on: connection, now: now)
    }
}
