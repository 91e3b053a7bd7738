import Domain
import Foundation
import Testing

@Suite("Purchase snapshots")
struct PurchaseSnapshotTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func snapshot(_ status: PurchaseStatus, expires: TimeInterval?) -> PurchaseSnapshot {
        PurchaseSnapshot(
            platform: .stripe, externalID: "sub_1", productID: "price_1", status: status,
            expiresAt: expires.map { now.addingTimeInterval($0) }, observedAt: now)
    }

    @Test("Statuses that grant access do so until expiry", arguments: [PurchaseStatus.active, .trialing, .inGracePeriod, .canceled])
    func entitledUntilExpiry(status: PurchaseStatus) {
        #expect(Self.snapshot(status, expires: 60).isEntitled(at: Self.now))
        #expect(!Self.snapshot(status, expires: -1).isEntitled(at: Self.now))
        #expect(Self.snapshot(status, expires: nil).isEntitled(at: Self.now))
    }

    @Test(
        "Statuses that withhold access do so even before expiry",
        arguments: [PurchaseStatus.billingRetry, .paused, .expired, .refunded, .revoked, .pending])
    func notEntitled(status: PurchaseStatus) {
        #expect(!Self.snapshot(status, expires: 3600).isEntitled(at: Self.now))
    }

    @Test("Platform raw values are the API's source names")
    func platformNames() {
        #expect(Platform.allCases.map(\.rawValue) == ["stripe", "app_store", "play_store"])
    }
}
