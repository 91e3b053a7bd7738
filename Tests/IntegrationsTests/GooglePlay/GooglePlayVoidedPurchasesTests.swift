import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Google Play voidedpurchases.list")
struct GooglePlayVoidedPurchasesTests {
    /// A whole second `days` days before the harness clock.
    static func daysAgo(_ harness: PlayHarness, _ days: Double) -> Date {
        Date(timeIntervalSince1970: (harness.clock.now().timeIntervalSince1970 - days * 86_400).rounded(.down))
    }

    /// Every page from `start` to `end`, following `nextPageToken`.
    static func allPages(_ client: GooglePlayClient, start: Date, end: Date?) async throws -> [GooglePlayVoidedPurchasesPage] {
        var pages: [GooglePlayVoidedPurchasesPage] = []
        var token: String?
        repeat {
            let page = try await client.voidedPurchases(startTime: start, endTime: end, pageToken: token)
            pages.append(page)
            token = page.nextPageToken
        } while token != nil && pages.count < 20
        return pages
    }

    @Test("Pages of the window's voids, subscriptions and products (type=1), every field read")
    func pagingAndWindow() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let fake = harness.fake
        let expiry = Self.daysAgo(harness, -20)
        for index in 0..<3 {
            fake.setSubscription(
                token: "sub-\(index)", state: .active, productID: "pro_monthly", expiry: expiry, orderID: "GPA.0000-0000-0000-0000\(index)")
            fake.setProduct(
                token: "otp-\(index)", productID: "coins_100", purchaseTime: Self.daysAgo(harness, 12), orderID: "GPA.1111-0000-0000-0000\(index)")
        }
        fake.setVoidedPageSize(2)
        // Before the window, inside it (five), after its end.
        fake.voidPurchase(token: "sub-0", voidedTime: Self.daysAgo(harness, 9))
        fake.voidPurchase(token: "otp-0", voidedTime: Self.daysAgo(harness, 7), source: 1, reason: 7)
        fake.voidPurchase(token: "sub-1", voidedTime: Self.daysAgo(harness, 6))
        fake.voidPurchase(token: "otp-1", voidedTime: Self.daysAgo(harness, 5), source: 2, reason: 5)
        fake.voidPurchase(token: "sub-2", voidedTime: Self.daysAgo(harness, 4), orderID: "GPA.0000-0000-0000-00002..1")
        fake.voidPurchase(token: "otp-2", voidedTime: Self.daysAgo(harness, 3))
        fake.voidPurchase(token: "sub-2", voidedTime: Self.daysAgo(harness, 1), orderID: "GPA.0000-0000-0000-00002..2")

        let start = Self.daysAgo(harness, 8)
        let end = Self.daysAgo(harness, 2)
        let pages = try await Self.allPages(harness.client, start: start, end: end)
        #expect(pages.map(\.voidedPurchases.count) == [2, 2, 1])
        #expect(pages.last?.nextPageToken == nil)
        let all = pages.flatMap(\.voidedPurchases)
        #expect(all.map(\.purchaseToken) == ["otp-0", "sub-1", "otp-1", "sub-2", "otp-2"])
        #expect(
            all.map(\.orderID) == [
                "GPA.1111-0000-0000-00000", "GPA.0000-0000-0000-00001", "GPA.1111-0000-0000-00001", "GPA.0000-0000-0000-00002..1",
                "GPA.1111-0000-0000-00002"
            ])
        let first = try #require(all.first)
        #expect(first.voidedTime == Self.daysAgo(harness, 7))
        #expect(first.purchaseTime == Self.daysAgo(harness, 12), "purchaseTimeMillis is the purchase's own time")
        #expect(first.voidedSource == 1)
        #expect(first.voidedReason == 7)
        #expect(first.kind == "androidpublisher#voidedPurchase")
        #expect(first.voidedQuantity == nil)
        #expect(first.refundType == nil, "a full void")
        #expect(all[2].voidedSource == 2 && all[2].voidedReason == 5)

        // What went over the wire: the discovery document's parameter names, int64 as decimal milliseconds.
        let lists = fake.requests.filter { $0.path.hasSuffix("/purchases/voidedpurchases") }
        #expect(lists.count == 3)
        let firstQuery = try #require(lists.first)
        #expect(firstQuery.path == "/androidpublisher/v3/applications/com.example.app/purchases/voidedpurchases")
        #expect(firstQuery.queryParameter("startTime") == String(Int64(start.timeIntervalSince1970 * 1000)))
        #expect(firstQuery.queryParameter("endTime") == String(Int64(end.timeIntervalSince1970 * 1000)))
        #expect(firstQuery.queryParameter("type") == "1")
        #expect(firstQuery.queryParameter("token") == nil)
        #expect(lists[1].queryParameter("token") == pages[0].nextPageToken)
    }

    @Test("Without endTime the window runs to now; it filters on when Google saw the void, not voidedTimeMillis")
    func windowIsWhenSeen() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setProduct(token: "late", productID: "coins_100")
        harness.fake.setProduct(token: "early", productID: "coins_100")
        // Refunded ten days ago but reported to the list only an hour ago.
        harness.fake.voidPurchase(token: "late", voidedTime: Self.daysAgo(harness, 10), seenAt: Self.daysAgo(harness, 1.0 / 24))
        harness.fake.voidPurchase(token: "early", voidedTime: Self.daysAgo(harness, 10))
        let page = try await harness.client.voidedPurchases(startTime: Self.daysAgo(harness, 2), endTime: nil, pageToken: nil)
        #expect(page.voidedPurchases.map(\.purchaseToken) == ["late"])
        #expect(page.voidedPurchases.first?.voidedTime == Self.daysAgo(harness, 10))
        #expect(page.nextPageToken == nil)
        #expect(harness.fake.requests.last?.queryParameter("endTime") == nil)
    }

    @Test("An empty window is a page with no voids and no next token")
    func emptyWindow() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let page = try await harness.client.voidedPurchases(startTime: Self.daysAgo(harness, 1), endTime: nil, pageToken: nil)
        #expect(page == GooglePlayVoidedPurchasesPage(voidedPurchases: [], nextPageToken: nil))
    }

    @Test("A startTime older than 30 days is refused as Google refuses it: requestRejected, not a missing purchase")
    func tooOld() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        await expectPlayError(.requestRejected) {
            _ = try await harness.client.voidedPurchases(startTime: Self.daysAgo(harness, 31), endTime: nil, pageToken: nil)
        }
        harness.fake.setOutage(true)
        await expectUpstream {
            _ = try await harness.client.voidedPurchases(startTime: Self.daysAgo(harness, 1), endTime: nil, pageToken: nil)
        }
    }

    @Test("int32 fields are read as numbers or strings; voidedQuantity marks a quantity-based partial refund")
    func decoding() throws {
        let body = #"""
            {"tokenPagination": {"nextPageToken": "abc"}, "voidedPurchases": [
              {"kind": "androidpublisher#voidedPurchase", "purchaseToken": "t1", "orderId": "GPA.1", "purchaseTimeMillis": "1468825200000",
               "voidedTimeMillis": "1469430000000", "voidedSource": "0", "voidedReason": "4"},
              {"purchaseToken": "t2", "voidedTimeMillis": "1469430000001", "voidedSource": 2, "voidedReason": 8, "voidedQuantity": 1}]}
            """#
        let page = try GooglePlayVoidedPurchasesPage(json: Array(body.utf8))
        #expect(page.nextPageToken == "abc")
        #expect(
            page.voidedPurchases == [
                GooglePlayVoidedPurchase(
                    purchaseToken: "t1", orderID: "GPA.1", voidedTime: Date(timeIntervalSince1970: 1_469_430_000),
                    purchaseTime: Date(timeIntervalSince1970: 1_468_825_200), voidedSource: 0, voidedReason: 4),
                GooglePlayVoidedPurchase(
                    purchaseToken: "t2", orderID: nil, voidedTime: Date(timeIntervalSince1970: 1_469_430_000.001), voidedSource: 2,
                    voidedReason: 8, kind: nil, voidedQuantity: 1, refundType: 2)
            ])
        #expect(throws: UpstreamError.self) { try GooglePlayVoidedPurchasesPage(json: Array(#"{"voidedPurchases": [{"purchaseToken": "t"}]}"#.utf8)) }
        #expect(throws: UpstreamError.self) { try GooglePlayVoidedPurchasesPage(json: Array(#"{"voidedPurchases": {}}"#.utf8)) }
    }
}
