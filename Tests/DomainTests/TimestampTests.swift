import Domain
import Foundation
import Testing

@Suite("Timestamps in API responses")
struct TimestampTests {
    @Test("RFC 3339 UTC with whole seconds, the same as Foundation's formatter for any Gregorian date")
    func rfc3339() {
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: 1_795_284_000.999)) == "2026-11-21T18:00:00Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00Z")
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        // From 1590 on: Foundation switches to the Julian calendar before 1582, gmtime does not.
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -12_000_000_000...250_000_000_000, using: &generator)))
            #expect(Timestamp.rfc3339(date) == formatter.string(from: date))
        }
    }
}
