import Foundation
import Testing

@testable import Domain

/// Dates and numbers per language, against outputs written down by hand (CLDR's patterns as
/// each language's readers expect them).
@Suite("Locale formats")
struct LocaleFormatTests {
    /// 2026-11-21 18:05:42 UTC.
    static let evening = Date(timeIntervalSince1970: 1_795_284_342)
    /// 2027-03-01 09:07:00 UTC.
    static let morning = Date(timeIntervalSince1970: 1_803_892_020)

    @Test(
        "Dates and times, in UTC, the language's way",
        arguments: [
            ("en", evening, "21 November 2026, 18:05 UTC"), ("en", morning, "1 March 2027, 9:07 UTC"),
            ("de", evening, "21. November 2026, 18:05 UTC"), ("de", morning, "1. März 2027, 09:07 UTC"),
            ("fr", evening, "21 novembre 2026 à 18:05 UTC"), ("fr", morning, "1er mars 2027 à 09:07 UTC"),
            ("es", evening, "21 de noviembre de 2026, 18:05 UTC"), ("es", morning, "1 de marzo de 2027, 9:07 UTC"),
            ("ja", evening, "2026年11月21日 18:05 UTC"), ("ja", morning, "2027年3月1日 9:07 UTC"),
            ("de-AT", morning, "1. März 2027, 09:07 UTC"), ("ar", morning, "2027-03-01 09:07 UTC")
        ])
    func dateTime(language: String, date: Date, expected: String) {
        #expect(LocaleFormat.dateTime(date, language: language) == expected)
    }

    @Test(
        "Whole numbers with the language's grouping",
        arguments: [
            ("en", 1_234_567, "1,234,567"), ("en", -1234, "-1,234"), ("en", 999, "999"),
            ("de", 1_234_567, "1.234.567"), ("fr", 1_234_567, "1\u{202F}234\u{202F}567"),
            ("es", 1234, "1234"), ("es", 12_345, "12.345"), ("ja", 1_234_567, "1,234,567"), ("ar", 1_234_567, "1234567")
        ])
    func integer(language: String, number: Int, expected: String) {
        #expect(LocaleFormat.integer(number, language: language) == expected)
    }
}
