import Foundation
import Testing
import TollgateClient

extension LiveServiceTests {
    @Suite("The account's own data: export and deletion")
    struct AccountDataTests {
        @Test("exportAccountData returns the account's document; deleteAccount deletes it and forgets the session")
        func exportThenDelete() async throws {
            try await LiveTollgate.run { live in
                let storage = InMemoryTokenStorage()
                let client = live.client(storage: storage)
                _ = try await client.redeem(code: try await live.paidCode(), appUserID: "user-1")
                let session = try #require(await storage.load())

                let data = try await client.exportAccountData()
                let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect((document["account"] as? [String: Any])?["id"] as? String == session.accountID)
                #expect((document["app_users"] as? [[String: Any]])?.first?["app_user_id"] as? String == "user-1")

                try await client.deleteAccount()
                #expect(await storage.load() == nil, "the session is forgotten")
                let again = await #expect(throws: TollgateClientError.self) { try await client.deleteAccount() }
                #expect(again?.code == .notSignedIn)
                // The old session no longer signs anything in.
                let stale = live.client(storage: InMemoryTokenStorage(session))
                await #expect(throws: TollgateClientError.self) { try await stale.entitlements() }
            }
        }
    }
}
