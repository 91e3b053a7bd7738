import Logging
import Testing

@Suite("RFC 3339 parsing")
struct RFC3339ParsingTests {
    @Test("What the writer writes reads back to the same instant, for 2,000 random dates of years 0001–9999")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int.random(in: -62_135_596_800...253_402_300_799, using: &generator)
            let milliseconds = Int.random(in: 0...999, using: &generator)
            let whole = RFC3339.format(secondsSince1970: seconds)
            let fractional = RFC3339.format(secondsSince1970: seconds, milliseconds: milliseconds)
            #expect(RFC3339.parse(whole) == Double(seconds), "\(whole)")
            let parsed = try #require(RFC3339.parse(fractional), "\(fractional)")
            #expect(abs(parsed - (Double(seconds) + Double(milliseconds) / 1000)) < 1e-6, "\(fractional)")
        }
    }

    @Test("Offsets, lower-case and space separators, nine fraction digits and a leap second")
    func variants() throws {
        let base = 1_702_592_000.0  // 2023-12-14T22:13:20Z
        #expect(RFC3339.parse("2023-12-14T22:13:20Z") == base)
        #expect(RFC3339.parse("2023-12-15T00:13:20+02:00") == base)
        #expect(RFC3339.parse("2023-12-14T17:43:20-04:30") == base)
        #expect(RFC3339.parse("2023-12-14t22:13:20z") == base)
        #expect(RFC3339.parse("2023-12-14 22:13:20Z") == base)
        let nanoseconds = try #require(RFC3339.parse("2023-12-14T22:13:20.123456789Z"))
        #expect(abs(nanoseconds - (base + 0.123456789)) < 1e-6)
        #expect(RFC3339.parse("2016-12-31T23:59:60Z") == RFC3339.parse("2016-12-31T23:59:59Z"))
    }

    @Test("Impossible dates and other shapes are nil")
    func rejections() {
        for text in [
            "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2023-13-01T00:00:00Z", "2023-12-14T24:00:00Z",
            "2023-12-14T22:60:00Z", "2023-12-14T22:13:20", "2023-12-14T22:13:20.Z", "2023-12-14T22:13:20.1234567891Z",
            "2023-12-14T22:13:20+2:00", "2023-12-14T22:13:20Zjunk", "2023-12-14", "", "20231214T221320Z"
        ] {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
        #expect(RFC3339.parse("2024-02-29T00:00:00Z") != nil)
    }
}
