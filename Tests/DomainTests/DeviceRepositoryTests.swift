import Domain
import Foundation
import Storage
import Testing

@Suite("Devices: last seen to the minute, least recently seen signed out")
struct DeviceRepositoryTests {
    static func lastSeen(_ db: TestDatabase, _ accountID: String, _ deviceID: String) throws -> Date? {
        try db.write { connection in
            try connection.queryOne(
                "SELECT last_seen_at FROM devices WHERE account_id = ? AND device_id = ?", [accountID, deviceID]
            ).map { Date(timeIntervalSince1970: Double(try $0.int64("last_seen_at")) / 1000) }
        }
    }

    @Test("Seeing a device again within a minute writes nothing; past it the time moves, and the limit evicts by it")
    func lastSeenResolution() throws {
        let db = try TestDatabase()
        let account = try db.write { try AccountRepository.findOrCreate(appUserID: "u", secrets: Fixtures.secrets, on: $0, now: Fixtures.t0).0 }
        let touch = { (device: String, seconds: TimeInterval) throws -> [String] in
            try db.write {
                try DeviceRepository.touch(
                    deviceID: device, appUserID: "u", accountID: account.id, maxDevices: 2, on: $0, now: Fixtures.t0.addingTimeInterval(seconds))
            }
        }
        #expect(try touch("d1", 0).isEmpty)
        #expect(try touch("d2", 10).isEmpty)
        #expect(try touch("d1", 30).isEmpty)
        #expect(try Self.lastSeen(db, account.id, "d1") == Fixtures.t0, "30 s later: still the first sighting")
        #expect(try touch("d2", 10 + DeviceRepository.lastSeenResolution).isEmpty)
        #expect(try Self.lastSeen(db, account.id, "d2") == Fixtures.t0.addingTimeInterval(10 + DeviceRepository.lastSeenResolution))
        // A third device passes the limit of two: d1, last seen at t0, is signed out.
        #expect(try touch("d3", 80) == ["d1"])
        #expect(try db.write { try DeviceRepository.active(accountID: account.id, on: $0) } == ["d3", "d2"])
    }

    @Test("Devices first seen in the same millisecond: the limit holds, and the device seen now is never the one signed out")
    func tiesKeepTheLimit() throws {
        let db = try TestDatabase()
        let account = try db.write { try AccountRepository.findOrCreate(appUserID: "u", secrets: Fixtures.secrets, on: $0, now: Fixtures.t0).0 }
        for index in 1...7 {
            let evicted = try db.write {
                try DeviceRepository.touch(deviceID: "d\(index)", appUserID: "u", accountID: account.id, maxDevices: 5, on: $0, now: Fixtures.t0)
            }
            #expect(!evicted.contains("d\(index)"))
            let active = try db.write { try DeviceRepository.active(accountID: account.id, on: $0) }
            #expect(active.count == min(index, 5), "after d\(index): \(active)")
            #expect(active.contains("d\(index)"))
        }
    }
}
