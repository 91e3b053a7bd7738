import Foundation

/// Dates and numbers written the buyer's language's way, without ICU: the few forms Tollgate's
/// pages and mails use, for the shipped languages (English, German, French, Spanish, Japanese);
/// any other language gets the ISO form (`2026-11-21 18:00 UTC`) and plain digits grouped by
/// none. Times are UTC and say so: a mail is read anywhere.
public enum LocaleFormat {
    /// A moment: `21 November 2026, 9:05 UTC` (en), `21. November 2026, 09:05 UTC` (de),
    /// `21 novembre 2026 à 09:05 UTC` (fr, `1er` for the first), `21 de noviembre de 2026, 9:05 UTC`
    /// (es), `2026年11月21日 9:05 UTC` (ja), `2026-11-21 09:05 UTC` (any other).
    public static func dateTime(_ date: Date, language: String) -> String {
        let parts = UTCParts(date)
        let language = LanguageCode(language)
        // CLDR's 24-hour times: German and French pad the hour ("09:05"), the others do not.
        let hour = language == .de || language == .fr ? twoDigits(parts.hour) : String(parts.hour)
        let time = "\(hour):\(twoDigits(parts.minute)) UTC"
        switch language {
        case .en: return "\(parts.day) \(englishMonths[parts.month - 1]) \(parts.year), \(time)"
        case .de: return "\(parts.day). \(germanMonths[parts.month - 1]) \(parts.year), \(time)"
        case .fr: return "\(parts.day == 1 ? "1er" : String(parts.day)) \(frenchMonths[parts.month - 1]) \(parts.year) à \(time)"
        case .es: return "\(parts.day) de \(spanishMonths[parts.month - 1]) de \(parts.year), \(time)"
        case .ja: return "\(parts.year)年\(parts.month)月\(parts.day)日 \(time)"
        case .other: return "\(parts.year)-\(twoDigits(parts.month))-\(twoDigits(parts.day)) \(twoDigits(parts.hour)):\(twoDigits(parts.minute)) UTC"
        }
    }

    /// A whole number with the language's digit grouping: `1,234,567` (en, ja), `1.234.567`
    /// (de), `1 234 567` with narrow no-break spaces (fr), `1234` but `12.345` (es: four
    /// digits stay ungrouped); other languages: ungrouped digits.
    public static func integer(_ number: Int, language: String) -> String {
        let digits = String(number.magnitude)
        let sign = number < 0 ? "-" : ""
        let separator: String
        switch LanguageCode(language) {
        case .en, .ja: separator = ","
        case .de: separator = "."
        case .fr: separator = "\u{202F}"
        case .es:
            guard digits.count > 4 else { return sign + digits }
            separator = "."
        case .other: return sign + digits
        }
        var grouped = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped += separator }
            grouped.append(character)
        }
        return sign + grouped
    }

    /// The shipped languages this formatter knows, by primary subtag.
    private enum LanguageCode {
        case en, de, fr, es, ja, other

        init(_ tag: String) {
            switch tag.lowercased().split(separator: "-").first.map(String.init) ?? "" {
            case "en": self = .en
            case "de": self = .de
            case "fr": self = .fr
            case "es": self = .es
            case "ja": self = .ja
            default: self = .other
            }
        }
    }

    private struct UTCParts {
        let year: Int, month: Int, day: Int, hour: Int, minute: Int

        init(_ date: Date) {
            var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
            var parts = tm()
            gmtime_r(&seconds, &parts)
            year = Int(parts.tm_year) + 1900
            month = Int(parts.tm_mon) + 1
            day = Int(parts.tm_mday)
            hour = Int(parts.tm_hour)
            minute = Int(parts.tm_min)
        }
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }

    private static let englishMonths = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"
    ]
    private static let germanMonths = [
        "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"
    ]
    private static let frenchMonths = [
        "janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"
    ]
    private static let spanishMonths = [
        "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"
    ]
}
