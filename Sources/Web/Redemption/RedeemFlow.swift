import Crypto
import Domain
import Foundation
import HTTPServer
import Storage

/// `POST /api/v1/redeem` once its input is checked. Three ways through, cheapest first:
/// - a retry of a repeat this app user made lately (`RecentRepeats`) goes straight to the
///   writer, which re-reads everything and sends it down the full path if it is no longer one;
/// - a reader answers unknown codes (typos, guessing: they never wait on, or hold, the single
///   writer) and spots repeats, which the writer finishes with two reads and two writes;
/// - everything else runs `RedemptionService.redeem` in one write transaction.
extension RedemptionAPIRoutes {
    /// What a redemption answered, whether it counts toward the failure limit, and whether mail was queued.
    struct RedeemResult {
        let response: HTTPResponse
        let failed: Bool
        let mailed: Bool
    }

    func redeem(_ body: RedeemBody, bearer: String?, now: Date) async throws -> RedeemResult {
        let services = self.services
        let sentCode = String(body.code.prefix(64))
        let code = RedemptionCode(normalizing: body.code)
        let codeHash = try code.map(services.vault.hash)
        if bearer == nil, let code, let codeHash,
            let codeID = services.recentRepeats.codeID(codeHash: codeHash, appUserID: body.appUserId) {
            let plan = RedemptionService.RepeatPlan(code: code, codeID: codeID, appUserID: body.appUserId)
            if let redeemed = try await finishRepeat(plan, deviceID: body.deviceId, now: now) {
                return success(redeemed, body, now: now)
            }
            services.recentRepeats.forget(codeHash: codeHash, appUserID: body.appUserId)
        }

        enum Look: Sendable { case unknown, repeatable(RedemptionService.RepeatPlan), other }
        let look = try await services.database.read { connection -> Look in
            let accountID = try AppAuthentication.account(for: bearer, on: connection, now: now)
            guard let code, let codeHash, let record = try CodeRepository.find(codeHash: codeHash, on: connection),
                record.status != .revoked
            else { return .unknown }
            if let plan = try services.redemption.planRepeat(
                code: code, record: record, appUserID: body.appUserId, bearerAccountID: accountID, on: connection) {
                return .repeatable(plan)
            }
            return .other
        }
        switch look {
        case .unknown:
            return RedeemResult(response: RedeemResponse.invalid(sentCode), failed: true, mailed: false)
        case .repeatable(let plan):
            if let redeemed = try await finishRepeat(plan, deviceID: body.deviceId, now: now) {
                // Bearer requests are not remembered: their token is checked on the reader.
                if bearer == nil, let codeHash {
                    services.recentRepeats.remember(codeHash: codeHash, appUserID: body.appUserId, codeID: plan.codeID)
                }
                return success(redeemed, body, now: now)
            }
        case .other:
            break
        }
        return try await redeemFully(body, bearer: bearer, sentCode: sentCode, now: now)
    }

    /// A repeat finished in the writer's transaction; nil when it was no longer one.
    private func finishRepeat(_ plan: RedemptionService.RepeatPlan, deviceID: String?, now: Date) async throws -> RedeemOutcome.Redeemed? {
        let services = self.services
        let session = try SessionRepository.draft(at: now)
        let outcome = try await services.database.write { connection in
            try services.redemption.finishRepeat(plan, deviceID: deviceID, session: session, on: connection, now: now)
        }
        guard case .redeemed(let redeemed)? = outcome else { return nil }
        return redeemed
    }

    /// Any redemption, in one write transaction.
    private func redeemFully(_ body: RedeemBody, bearer: String?, sentCode: String, now: Date) async throws -> RedeemResult {
        let services = self.services
        return try await services.database.write { connection in
            let accountID = try AppAuthentication.account(for: bearer, on: connection, now: now)
            let outcome: RedeemOutcome
            do {
                outcome = try services.redemption.redeem(
                    codeText: body.code, appUserID: body.appUserId, deviceID: body.deviceId, bearerAccountID: accountID,
                    on: connection, now: now)
            } catch let error as DomainError {
                services.logger.error("redeem_failed", [("error", .string(error.description))])
                let message = "This code cannot be redeemed right now; contact support."
                return RedeemResult(response: RedeemResponse.error(sentCode, message: message), failed: false, mailed: false)
            }
            switch outcome {
            case .redeemed(let redeemed):
                return success(redeemed, body, now: now)
            case .invalidCode:
                return RedeemResult(response: RedeemResponse.invalid(sentCode), failed: true, mailed: false)
            case .belongsToOtherUser:
                return RedeemResult(response: RedeemResponse.belongsToOtherUser(sentCode), failed: false, mailed: false)
            case .expiredCode(let expired):
                var mailed = false
                if let fresh = expired.resent, let email = expired.email {
                    try CodeMail(services: services).queueResent(fresh, purchase: expired.purchase, to: email, on: connection)
                    mailed = true
                }
                return RedeemResult(
                    response: RedeemResponse.expired(sentCode, resent: mailed, email: expired.email), failed: false, mailed: mailed)
            }
        }
    }

    private func success(_ redeemed: RedeemOutcome.Redeemed, _ body: RedeemBody, now: Date) -> RedeemResult {
        RedeemResult(
            response: RedeemResponse.success(redeemed, appUserID: body.appUserId, catalog: services.catalog, now: now),
            failed: false, mailed: false)
    }
}
