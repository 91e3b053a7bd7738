import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("App Store Server API: Get Notification History")
struct AppStoreNotificationHistoryTests {
    @Test("Pages of what the App Store sent in the period, by paginationToken; the body carries startDate and endDate in ms")
    func pages() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        defer { Task { await setup.fake.stop() } }
        let now = setup.clock.now
        var sent: [String] = []
        for index in 0..<5 {
            let notification = FakeAppStoreNotification(
                notificationType: "DID_RENEW", signedDate: now.addingTimeInterval(Double(index - 10) * 3600), environment: "Production",
                bundleID: AppStoreTests.bundleID)
            let body = try setup.fake.send(notification, signer: setup.pki.signer(), result: index == 2 ? "NO_RESPONSE" : "SUCCESS")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
            sent.append(try #require(object["signedPayload"]))
        }
        // Outside the period, and a sandbox notification: neither is listed.
        try setup.fake.send(
            FakeAppStoreNotification(
                notificationType: "DID_RENEW", signedDate: now.addingTimeInterval(-30 * 86400),
                environment: "Production", bundleID: AppStoreTests.bundleID), signer: setup.pki.signer())
        try setup.fake.send(
            FakeAppStoreNotification(
                notificationType: "DID_RENEW", signedDate: now.addingTimeInterval(-3600),
                environment: "Sandbox", bundleID: AppStoreTests.bundleID), signer: setup.pki.signer())

        let start = now.addingTimeInterval(-86400)
        let first = try await setup.client.notificationHistory(startDate: start, endDate: now, paginationToken: nil)
        #expect(first.signedPayloads == Array(sent.prefix(3)))
        #expect(first.hasMore)
        let token = try #require(first.paginationToken)
        let second = try await setup.client.notificationHistory(startDate: start, endDate: now, paginationToken: token)
        #expect(second.signedPayloads == Array(sent.suffix(2)))
        #expect(!second.hasMore)

        let requests = setup.fake.requests.filter { $0.path.hasSuffix("/notifications/history") }
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.path == "/production/inApps/v1/notifications/history" && $0.method == .post })
        #expect(requests[0].query == nil)
        #expect(requests[1].queryParameter("paginationToken") == token)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(requests[0].body)) as? [String: Any])
        #expect((body["startDate"] as? NSNumber)?.int64Value == Int64(start.timeIntervalSince1970 * 1000))
        #expect((body["endDate"] as? NSNumber)?.int64Value == Int64(now.timeIntervalSince1970 * 1000))
        #expect(body.count == 2)
        // Each payload verifies as the pushed notification would.
        let verified = try AppStoreTests.verifier(setup.pki, environment: .production).verifyNotification(first.signedPayloads[0], now: now)
        #expect(verified.notificationType == "DID_RENEW")
        #expect(verified.signedDate == now.addingTimeInterval(-10 * 3600))
    }

    @Test("Apple's refusals are request_rejected with its errorCode: a token it did not issue, a start before 180 days")
    func refusals() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        defer { Task { await setup.fake.stop() } }
        let now = setup.clock.now
        await #expect {
            _ = try await setup.client.notificationHistory(startDate: now.addingTimeInterval(-3600), endDate: now, paginationToken: "not-a-token")
        } throws: { error in
            ((error as? AppStoreError)?.apiError).map { $0.kind == .requestRejected && $0.errorCode == 4000014 } ?? false
        }
        await #expect {
            _ = try await setup.client.notificationHistory(startDate: now.addingTimeInterval(-200 * 86400), endDate: now, paginationToken: nil)
        } throws: { error in
            (error as? AppStoreError)?.apiError?.errorCode == 4000012
        }
    }

    @Test("A Sandbox deployment asks the sandbox host")
    func sandboxHost() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup(clientEnvironment: .sandbox)
        defer { Task { await setup.fake.stop() } }
        let now = setup.clock.now
        try setup.fake.send(
            FakeAppStoreNotification(
                notificationType: "TEST", signedDate: now.addingTimeInterval(-60), environment: "Sandbox",
                bundleID: AppStoreTests.bundleID), signer: setup.pki.signer())
        let page = try await setup.client.notificationHistory(startDate: now.addingTimeInterval(-3600), endDate: now, paginationToken: nil)
        #expect(page.signedPayloads.count == 1)
        #expect(!page.hasMore)
        #expect(page.paginationToken == nil)
        #expect(setup.fake.requests.last?.path == "/sandbox/inApps/v1/notifications/history")
    }
}
