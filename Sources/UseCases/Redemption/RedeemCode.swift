import Crypto
import Domain
import Foundation
import Logging
import Storage

/// Redeems a code for an app user (`POST /api/v1/redeem`). Three ways through, cheapest first:
/// - a retry of a repeat this app user made lately (`RecentRepeats`) goes straight to the
///   writer, which re-reads everything and sends it down the full path if it is no longer one;
/// - a reader answers unknown codes (typos, guessing: they never wait on, or hold, the single
///   writer) and spots repeats, which the writer finishes with two reads and two writes;
/// - everything else runs the full redemption (`RedeemCode+Redeem.swift`) in one write transaction.
/// This type owns the operation and its transactions; Domain gives it the model, the rules
/// (`RedemptionPolicy`, `OtherUserPolicy.decide`, `AppUserProof`) and the repositories.
/// A class: every write closure captures it, and a struct's copy retained each dependency.
public final class RedeemCode: Sendable {
    /// What the app sent.
    public struct Request: Sendable {
        public let code: String
        public let appUserID: String
        /// The install's secret (`app_user_secret`), when sent.
        public let secret: InstallSecret?
        public let deviceID: String?
        /// The access token, when the app is signed in.
        public let bearer: String?

        public init(code: String, appUserID: String, secret: InstallSecret? = nil, deviceID: String?, bearer: String?) {
            self.code = code
            self.appUserID = appUserID
            self.secret = secret
            self.deviceID = deviceID
            self.bearer = bearer
        }
    }

    /// API.md's statuses.
    public enum Answer: Sendable {
        /// `success`, or `expired_subscription` when `redeemed.isEntitled` is false.
        case redeemed(RedeemOutcome.Redeemed, entitlements: [Entitlement])
        case invalidCode
        /// `expired_code`: whether a fresh code was emailed, and to which address.
        case expiredCode(resent: Bool, email: String?)
        case belongsToOtherUser
        /// The app user has secrets bound and the call carried none of them: nothing linked
        /// (`session_required`, `secret_mismatch`), the code stays redeemable.
        case secretMismatch
        /// `error`: the code cannot be redeemed because stored data is broken.
        case error(message: String)
    }

    /// The answer and the code as sent (trimmed to 64 characters), for the response.
    public struct Result: Sendable {
        public let sentCode: String
        public let answer: Answer

        /// Whether it counts toward the client's failure limit (unknown codes, secrets that do not match).
        public var isFailure: Bool {
            switch answer {
            case .invalidCode, .secretMismatch: return true
            default: return false
            }
        }
    }

    let database: Database
    let policy: RedemptionPolicy
    let vault: CodeVault
    /// For the accounts a redemption creates.
    let secrets: DomainSecrets
    /// Where redemptions, switches, transfers, new accounts and new codes are reported.
    let events: EventQueue
    let recentRepeats: RecentRepeats
    let catalog: EntitlementCatalog
    let codeMail: CodeMail
    let logger: Logger

    public init(
        database: Database, policy: RedemptionPolicy, vault: CodeVault, secrets: DomainSecrets, events: EventQueue = .disabled,
        recentRepeats: RecentRepeats, catalog: EntitlementCatalog, codeMail: CodeMail, logger: Logger
    ) {
        self.database = database
        self.policy = policy
        self.vault = vault
        self.secrets = secrets
        self.events = events
        self.recentRepeats = recentRepeats
        self.catalog = catalog
        self.codeMail = codeMail
        self.logger = logger
    }

    /// - Throws: `UseCaseError.unauthorized` for an invalid bearer token, `StorageError`.
    public func redeem(_ request: Request, now: Date) async throws -> Result {
        let sentCode = String(request.code.prefix(64))
        // Normalized and hashed here, once, for every lookup below.
        let key = try CodeKey(normalizing: request.code, vault: vault)
        if request.bearer == nil, let key, let codeID = recentRepeats.codeID(codeHash: key.hash, appUserID: request.appUserID) {
            let plan = RepeatPlan(code: key.code, codeID: codeID, appUserID: request.appUserID, secret: request.secret)
            if let redeemed = try await finishRepeat(plan, deviceID: request.deviceID, now: now) {
                return success(redeemed, sentCode: sentCode, now: now)
            }
            recentRepeats.forget(codeHash: key.hash, appUserID: request.appUserID)
        }

        enum Look: Sendable { case unknown, repeatable(RepeatPlan), other }
        let look = try await database.read { connection -> Look in
            let accountID = try BearerSession.account(for: request.bearer, on: connection, now: now)
            guard let key, let record = try CodeRepository.find(key: key, on: connection), record.status != .revoked
            else { return .unknown }
            if let plan = try Self.planRepeat(
                code: key.code, record: record, appUserID: request.appUserID, secret: request.secret, bearerAccountID: accountID,
                on: connection)
            {
                return .repeatable(plan)
            }
            return .other
        }
        switch look {
        case .unknown:
            return Result(sentCode: sentCode, answer: .invalidCode)
        case .repeatable(let plan):
            if let redeemed = try await finishRepeat(plan, deviceID: request.deviceID, now: now) {
                // Bearer requests are not remembered: their token is checked on the reader.
                if request.bearer == nil, let key {
                    recentRepeats.remember(codeHash: key.hash, appUserID: request.appUserID, codeID: plan.codeID)
                }
                return success(redeemed, sentCode: sentCode, now: now)
            }
        case .other:
            break
        }
        guard let key else { return Result(sentCode: sentCode, answer: .invalidCode) }
        return try await redeemFully(request, key: key, sentCode: sentCode, now: now)
    }

    /// A repeat finished in the writer's transaction; nil when it was no longer one.
    private func finishRepeat(_ plan: RepeatPlan, deviceID: String?, now: Date) async throws -> RedeemOutcome.Redeemed? {
        let session = try SessionRepository.draft(at: now)
        return try await database.write(isolation: .readCommitted) { [self] connection in
            try finishRepeat(plan, deviceID: deviceID, session: session, on: connection, now: now)
        }
    }

    /// Any redemption, in one write transaction.
    private func redeemFully(_ request: Request, key: CodeKey, sentCode: String, now: Date) async throws -> Result {
        let codeMail = self.codeMail
        let logger = self.logger
        let session = try SessionRepository.draft(at: now)
        // READ COMMITTED on PostgreSQL: `redemption(of:...)` takes the locks that order redemptions.
        let answer = try await database.write(isolation: .readCommitted) { [self] connection -> Answer in
            let accountID = try BearerSession.account(for: request.bearer, on: connection, now: now)
            let outcome: RedeemOutcome
            do {
                outcome = try redemption(
                    of: key, appUserID: request.appUserID, secret: request.secret, deviceID: request.deviceID, bearerAccountID: accountID,
                    session: session, on: connection, now: now)
            } catch let error as DomainError {
                logger.error("redeem_failed", [("error", .string(error.description))])
                return .error(message: "This code cannot be redeemed right now; contact support.")
            }
            switch outcome {
            case .redeemed(let redeemed):
                return .redeemed(redeemed, entitlements: [])
            case .invalidCode:
                return .invalidCode
            case .belongsToOtherUser:
                return .belongsToOtherUser
            case .secretMismatch:
                return .secretMismatch
            case .expiredCode(let expired):
                var mailed = false
                if let fresh = expired.resent, let email = expired.email {
                    try codeMail.queueResent(fresh, purchase: expired.purchase, to: email, on: connection)
                    mailed = true
                }
                return .expiredCode(resent: mailed, email: expired.email)
            }
        }
        switch answer {
        case .redeemed(let redeemed, _):
            return success(redeemed, sentCode: sentCode, now: now)
        case .expiredCode(resent: true, _):
            codeMail.queued()
        default:
            break
        }
        return Result(sentCode: sentCode, answer: answer)
    }

    private func success(_ redeemed: RedeemOutcome.Redeemed, sentCode: String, now: Date) -> Result {
        Result(sentCode: sentCode, answer: .redeemed(redeemed, entitlements: catalog.entitlements(for: [redeemed.purchase], at: now)))
    }
}
