import Domain
import Foundation
import Storage
import Testing
@testable import UseCases

/// How install secrets are bound and unbound: by the call that creates the app user, further ones
/// only with a bearer, and unbound by eviction, signing out everywhere and "forget secrets".
@Suite("Install secrets: binding and unbinding")
struct InstallSecretBindingTests {
    static let first = InstallSecret("first-install-secret-0123456789")!
    static let second = InstallSecret("second-install-secret-0123456789")!

    static func proof(_ bench: UseCaseBench, _ appUserID: String, _ secret: InstallSecret?) throws -> AppUserProof {
        try bench.database.readSync { try AppUserSecretRepository.proof(appUserID: appUserID, presented: secret, bearerAccountID: nil, on: $0) }
    }

    @Test("Reads and failed calls bind nothing; the creating call binds; a second secret needs a bearer; max_devices caps them")
    func binding() async throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase()
        // A failed call (an unknown code) creates no app user and binds nothing.
        _ = try await bench.redeem.redeem(
            RedeemCode.Request(code: "AAAA-BBBB-CCCC-DDDD", appUserID: "u", secret: Self.first, deviceID: "d1", bearer: nil), now: bench.now)
        #expect(try bench.dump("app_users").isEmpty && bench.dump("app_user_secrets").isEmpty)
        guard
            case .redeemed(let redeemed, _) = try await bench.redeem.redeem(
                RedeemCode.Request(code: code.display, appUserID: "u", secret: Self.first, deviceID: "d1", bearer: nil), now: bench.now
            ).answer
        else { Issue.record("redeem"); return }
        #expect(try Self.proof(bench, "u", Self.first) == .proven)
        #expect(try Self.proof(bench, "u", Self.second) == .mismatch, "a second install without a bearer proves nothing")
        #expect(try bench.dump("app_user_secrets").allSatisfy { !$0.contains("first-install-secret") }, "only the hash is stored")
        // With the account's bearer, the second install binds its secret.
        let bearer = try #require(redeemed.tokens?.accessToken)
        guard
            case .redeemed = try await bench.redeem.redeem(
                RedeemCode.Request(code: code.display, appUserID: "u", secret: Self.second, deviceID: "d2", bearer: bearer), now: bench.now
            ).answer
        else { Issue.record("bearer redeem"); return }
        #expect(try Self.proof(bench, "u", Self.second) == .proven)
        let now = bench.now
        let capped = try bench.database.writeSync {
            try AppUserSecretRepository.bindWithBearer(
                InstallSecret("third-install-secret-0123456789")!, appUserID: "u", deviceID: "d3", maxDevices: 2, on: $0, now: now)
        }
        #expect(!capped, "at most max_devices secrets")
    }

    @Test("Signing a device out, signing out everywhere and forget secrets unbind; forgetting is audited")
    func unbinding() async throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase()
        guard
            case .redeemed(let redeemed, _) = try await bench.redeem.redeem(
                RedeemCode.Request(code: code.display, appUserID: "u", secret: Self.first, deviceID: "d1", bearer: nil), now: bench.now
            ).answer
        else { Issue.record("redeem"); return }
        let accountID = redeemed.account.id
        let now = bench.now
        try bench.database.writeSync { try SessionRepository.revoke(accountID: accountID, deviceID: "d1", on: $0, now: now) }
        #expect(try Self.proof(bench, "u", Self.first) == .unproven, "the device's secret is unbound with its sign-out")

        try bench.database.writeSync { try AppUserSecretRepository.bind(Self.first, appUserID: "u", deviceID: "d1", on: $0, now: now) }
        try bench.database.writeSync { try SessionRepository.revokeAll(accountID: accountID, on: $0) }
        #expect(try Self.proof(bench, "u", Self.first) == .unproven, "signing out everywhere unbinds every secret")

        try bench.database.writeSync { try AppUserSecretRepository.bind(Self.first, appUserID: "u", deviceID: "d1", on: $0, now: now) }
        let actions = OperatorActions(database: bench.database, resend: bench.resend, codeMail: bench.codeMail)
        #expect(try await actions.forgetSecrets(accountID: accountID, reason: "lost phone", actor: "admin token 1", now: now) == 1)
        #expect(try Self.proof(bench, "u", Self.first) == .unproven)
        #expect(try bench.dump("audit_log").contains { $0.contains("account.forget_secrets") && $0.contains(accountID) })
        await #expect(throws: UseCaseError.self) { try await actions.forgetSecrets(accountID: accountID, reason: "", actor: "a", now: now) }
    }

    @Test("max_devices eviction unbinds the evicted install's secret")
    func eviction() throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase()
        let policy = RedemptionPolicy(maxDevices: 1, codeTTL: 3600)
        let now = bench.now
        _ = try bench.redeemInWrite(code.display, appUserID: "a", secret: Self.first, deviceID: "d1", policy: policy, now: now)
        _ = try bench.redeemInWrite(code.display, appUserID: "b", secret: Self.second, deviceID: "d2", policy: policy, now: now)
        #expect(try Self.proof(bench, "a", Self.first) == .unproven)
        #expect(try Self.proof(bench, "b", Self.second) == .proven)
    }
}

extension InstallSecretBindingTests {
    @Test("A refused redemption (reject, another account holds it) and a secret that does not match create and bind nothing")
    func failedCallsCreateNothing() throws {
        let bench = try UseCaseBench()
        let (_, code) = try bench.paidPurchase()
        let policy = RedemptionPolicy(onOtherUser: .reject, codeTTL: 3600)
        let now = bench.now
        _ = try bench.redeemInWrite(code.display, appUserID: "a", secret: Self.first, deviceID: nil, policy: policy, now: now)
        let before = try bench.dump("app_users").count
        let refused = try bench.redeemInWrite(code.display, appUserID: "b", secret: Self.second, deviceID: nil, policy: policy, now: now)
        guard case .belongsToOtherUser = refused else { Issue.record("\(refused)"); return }
        let mismatch = try bench.redeemInWrite(code.display, appUserID: "a", secret: Self.second, deviceID: nil, policy: policy, now: now)
        guard case .secretMismatch = mismatch else { Issue.record("\(mismatch)"); return }
        #expect(try bench.dump("app_users").count == before && bench.dump("app_user_secrets").count == 1)
    }
}
