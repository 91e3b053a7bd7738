import Foundation
import Testing
import TollgateClient

extension LiveServiceTests {
    @Suite("Sessions: refresh with rotation, sign-out, typed errors")
    struct SessionTests {
        /// A client signed in by redeeming a paid code as `user-1`, and its storage.
        static func signedIn(_ live: LiveTollgate) async throws -> (Tollgate, InMemoryTokenStorage, TokenSet) {
            let storage = InMemoryTokenStorage()
            let client = live.client(storage: storage)
            _ = try await client.redeem(code: try await live.paidCode(), appUserID: "user-1")
            return (client, storage, try #require(await storage.load()))
        }

        @Test("An expired access token is refreshed once on 401, the rotated pair is stored, the old refresh token is dead")
        func refreshWithRotation() async throws {
            try await LiveTollgate.run { live in
                let (client, storage, original) = try await Self.signedIn(live)
                live.clock.advance(seconds: 3700)  // access tokens live 3600 s
                // Three calls meet the 401 at once: they share one refresh. (Two refreshes would send the
                // old refresh token twice, and the service revokes a sign-in whose refresh token is reused.)
                async let first = client.entitlements()
                async let second = client.entitlements()
                async let third = client.entitlements()
                let answers = try await [first, second, third]
                #expect(answers.allSatisfy { $0.isActive("premium") })
                let rotated = try #require(await storage.load())
                #expect(rotated.accessToken != original.accessToken)
                #expect(rotated.refreshToken != original.refreshToken)
                #expect(rotated.accountID == original.accountID)
                #expect(try await client.entitlements().isActive("premium"), "the rotated session still works")

                // Someone replaying the old refresh token is refused, and that client forgets it.
                let replayStorage = InMemoryTokenStorage(original)
                let replay = live.client(storage: replayStorage)
                let error = await #expect(throws: TollgateClientError.self) { try await replay.refreshSession() }
                #expect(error?.code == .invalidGrant)
                #expect(error?.retryable == false)
                #expect(await replayStorage.load() == nil)
            }
        }

        @Test("refreshSession rotates ahead of time; signOut forgets the session")
        func explicitRefreshAndSignOut() async throws {
            try await LiveTollgate.run { live in
                let (client, storage, original) = try await Self.signedIn(live)
                let refreshed = try await client.refreshSession()
                #expect(refreshed.refreshToken != original.refreshToken)
                #expect(await storage.load() == refreshed)
                try await client.signOut()
                #expect(try await client.currentSession() == nil)
                let error = await #expect(throws: TollgateClientError.self) { try await client.refreshSession() }
                #expect(error?.code == .notSignedIn)
                // Signed out and no app user: the service's own 400, typed.
                let missing = await #expect(throws: TollgateClientError.self) { try await client.entitlements() }
                #expect(missing?.code == .badRequest && missing?.status == 400 && missing?.retryable == false)
                #expect(missing?.message.contains("app_user_id") == true)
                #expect(missing?.requestID?.isEmpty == false)
            }
        }

        @Test("A wrong API key is a typed 401 after one attempt")
        func wrongAPIKey() async throws {
            try await LiveTollgate.run { live in
                let proxy = try live.proxy([])
                defer { proxy.stop() }
                let client = live.client(through: proxy, apiKey: "pk_wrong")
                let error = await #expect(throws: TollgateClientError.self) { try await client.redeem(code: "ABCD", appUserID: "u") }
                #expect(error?.code == .unauthorized && error?.status == 401 && error?.retryable == false)
                #expect(proxy.received.count == 1, "a 4xx is not retried")
            }
        }
    }
}
