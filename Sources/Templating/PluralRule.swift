/// The plural category a count falls in (CLDR's names). A plural message has a form for
/// `other` and for the categories its language uses; a missing form falls back to `other`.
public enum PluralCategory: String, Sendable, CaseIterable {
    case zero, one, two, few, many, other
}

/// How a language picks the plural category of a whole number (CLDR cardinal rules,
/// integers only: counts on our pages and mails are never fractions).
public enum PluralRule: Sendable, Equatable {
    /// One form for every count (Japanese, Chinese, Korean, ...).
    case otherOnly
    /// `one` for 1, `other` for the rest (English, German, Spanish, Italian, Dutch, ...).
    case oneOther
    /// `one` for 0 and 1, `other` for the rest (French, Brazilian Portuguese).
    case zeroOneAsOne
    /// Arabic: zero, one, two, few (3–10 mod 100), many (11–99 mod 100), other.
    case arabic
    /// Russian, Ukrainian, ...: one (1, 21, 31 … but not 11), few (2–4, 22–24 …), many.
    case eastSlavic

    /// The rule of `language` (a tag such as `fr` or `pt-BR`; only the primary subtag counts
    /// except for Portuguese). Languages not listed use `oneOther`.
    public init(language: String) {
        let lowered = language.lowercased()
        let primary = lowered.split(separator: "-").first.map(String.init) ?? lowered
        switch primary {
        case "ja", "zh", "ko", "th", "vi", "id", "ms": self = .otherOnly
        case "fr": self = .zeroOneAsOne
        case "pt": self = lowered == "pt-pt" ? .oneOther : .zeroOneAsOne
        case "ar": self = .arabic
        case "ru", "uk", "be": self = .eastSlavic
        default: self = .oneOther
        }
    }

    /// The category of `count` (negative counts are taken by their magnitude).
    public func category(_ count: Int) -> PluralCategory {
        let n = count.magnitude
        switch self {
        case .otherOnly:
            return .other
        case .oneOther:
            return n == 1 ? .one : .other
        case .zeroOneAsOne:
            return n <= 1 ? .one : .other
        case .arabic:
            if n == 0 { return .zero }
            if n == 1 { return .one }
            if n == 2 { return .two }
            let hundred = n % 100
            if (3...10).contains(hundred) { return .few }
            if (11...99).contains(hundred) { return .many }
            return .other
        case .eastSlavic:
            let ten = n % 10, hundred = n % 100
            if ten == 1 && hundred != 11 { return .one }
            if (2...4).contains(ten) && !(12...14).contains(hundred) { return .few }
            return .many
        }
    }
}
