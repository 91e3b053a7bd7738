import Foundation
import Testing
import TollgateClient

extension LiveServiceTests {
    @Suite("Redeeming codes with the client against a live Tollgate")
    struct RedemptionTests {
        @Test("A paid code redeems to success with entitlements, account and session; a repeat gets the same success")
        func successAndRepeat() async throws {
            try await LiveTollgate.run { live in
                let code = try await live.paidCode()
                let storage = InMemoryTokenStorage()
                let client = live.client(storage: storage)
                let first = try await client.redeem(code: code.lowercased(), appUserID: "user-1", deviceID: "device-1")
                guard case .success(let success) = first else {
                    Issue.record("expected success, got \(first)")
                    return
                }
                #expect(success.code == code)
                #expect(success.info.entitlements.map(\.id) == ["premium"])
                #expect(success.info.entitlements.first?.active == true)
                #expect(success.info.purchase.platform == "stripe")
                #expect(success.info.purchase.subscriptionID?.hasPrefix("sub_") == true)
                #expect(success.info.purchaserInfo.email == "buyer@example.com")
                #expect(success.accountSwitched == false)
                let account = try #require(success.account)
                let session = try #require(success.session)
                #expect(session.accountID == account.id)
                #expect(await storage.load() == session, "the session is stored")

                let again = try await client.redeem(code: code, appUserID: "user-1", deviceID: "device-1")
                guard case .success(let repeated) = again else {
                    Issue.record("expected the same success, got \(again)")
                    return
                }
                #expect(repeated.account?.id == account.id)
                #expect(repeated.info.purchase == success.info.purchase)
                #expect(try await live.count("SELECT count(*) FROM accounts") == 1)
            }
        }

        @Test("An unknown code is invalid_code, not an error")
        func invalidCode() async throws {
            try await LiveTollgate.run { live in
                let result = try await live.client().redeem(code: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "user-1")
                #expect(result == .invalidCode(code: "ZZZZ-ZZZZ-ZZZZ-ZZZZ"))
            }
        }

        @Test("A code past its lifetime is expired_code, re-sent once to the masked address")
        func expiredCode() async throws {
            try await LiveTollgate.run { live in
                let code = try await live.paidCode()
                live.clock.advance(seconds: 3601)  // code_ttl_seconds is 3600
                let client = live.client()
                let first = try await client.redeem(code: code, appUserID: "user-1")
                #expect(first == .expiredCode(code: code, resent: true, obfuscatedEmail: "b•••@e•••.com"))
                let second = try await client.redeem(code: code, appUserID: "user-1")
                #expect(second == .expiredCode(code: code, resent: false, obfuscatedEmail: "b•••@e•••.com"))
            }
        }

        @Test("Under on_other_user: reject, a second user gets purchase_belongs_to_other_user and no session")
        func belongsToOtherUser() async throws {
            try await LiveTollgate.run(redemption: ["on_other_user": "reject"]) { live in
                let code = try await live.paidCode()
                let owner = try await live.client().redeem(code: code, appUserID: "owner", deviceID: "d1")
                guard case .success = owner else {
                    Issue.record("the owner should redeem first: \(owner)")
                    return
                }
                let otherStorage = InMemoryTokenStorage()
                let other = try await live.client(storage: otherStorage).redeem(code: code, appUserID: "other", deviceID: "d2")
                #expect(other == .purchaseBelongsToOtherUser(code: code))
                #expect(await otherStorage.load() == nil)
            }
        }

        @Test("Entitlements by app user before and after redeeming, and by the stored session")
        func entitlements() async throws {
            try await LiveTollgate.run { live in
                let anonymous = live.client()
                let before = try await anonymous.entitlements(appUserID: "user-7")
                #expect(before.accountID == nil && before.entitlements.isEmpty)
                let signedIn = live.client()
                _ = try await signedIn.redeem(code: try await live.paidCode(), appUserID: "user-7")
                let byUser = try await anonymous.entitlements(appUserID: "user-7")
                #expect(byUser.isActive("premium"))
                #expect(byUser.entitlements.first?.source == "stripe")
                #expect(byUser.entitlements.first?.expiresAt == live.clock.now.addingTimeInterval(30 * 86400))
                // Issue 40: a read by name from another install gives entitlements only, no account id.
                #expect(byUser.accountID == nil)
                let byBearer = try await signedIn.entitlements()
                #expect(byBearer.entitlements == byUser.entitlements && byBearer.accountID != nil)
                #expect(!byBearer.isActive("gold"))
            }
        }
    }
}
