/// The one rule for the buyer's language (API.md "The buyer's language"): the language the
/// checkout asked for (`/checkout/start?locale=`, or the app's), else the best match of the
/// browser's `Accept-Language` (quality values honoured), else `locales.default`. Only
/// languages with a catalog are ever chosen; a tag matches its own catalog, else its primary
/// language's (`de-AT` → `de`). The choice is kept with the checkout and its purchase, so
/// every later page and mail of the purchase uses it.
public struct BuyerLanguage: Sendable {
    /// Lower-cased tag → the catalog's own spelling (`pt-br` → `pt-BR`).
    private let available: [String: String]
    /// The language when nothing else matches.
    public let defaultLanguage: String

    /// At most this many `Accept-Language` entries are read (a longer header is cut there).
    public static let maximumPreferences = 32
    /// The longest `locale` a checkout may name (BCP 47 tags in use are far shorter).
    public static let maximumTagLength = 35

    /// A rule choosing among `available` (the languages with a catalog).
    public init(available: [String], defaultLanguage: String) {
        var table: [String: String] = [:]
        for language in available { table[language.lowercased()] = language }
        self.available = table
        self.defaultLanguage = defaultLanguage
    }

    /// The buyer's language: `requested` when a catalog serves it, else the first language of
    /// `acceptLanguage` (by quality) that one serves, else the default.
    public func choose(requested: String?, acceptLanguage: String?) -> String {
        if let requested, let language = match(requested) { return language }
        guard let acceptLanguage, !acceptLanguage.isEmpty else { return defaultLanguage }
        for tag in Self.preferences(acceptLanguage) {
            if let language = match(tag) { return language }
        }
        return defaultLanguage
    }

    /// The catalog serving `tag`: its own, else its primary language's; nil for none (and `*`).
    public func match(_ tag: String) -> String? {
        let lowered = tag.trimmingSpaces.lowercased()
        guard !lowered.isEmpty, lowered != "*" else { return nil }
        if let exact = available[lowered] { return exact }
        guard let primary = lowered.split(separator: "-").first else { return nil }
        return available[String(primary)]
    }

    /// Whether `tag` is shaped like a BCP 47 language tag: 2–3 letters, then `-` subtags of 1–8
    /// letters or digits, at most `maximumTagLength` characters (`_` is read as `-`).
    public static func isWellFormed(_ tag: String) -> Bool {
        guard tag.utf8.count <= maximumTagLength else { return false }
        let parts = tag.replacingUnderscores.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// `tag` with `_` read as `-` (`pt_BR` → `pt-BR`), as apps often send it.
    public static func normalized(_ tag: String) -> String { tag.trimmingSpaces.replacingUnderscores }

    /// The tags of an `Accept-Language` header, best first: entries with `q=0` or an unreadable
    /// quality are dropped, equal qualities keep their order (RFC 9110 §12.5.4).
    public static func preferences(_ header: String) -> [String] {
        var entries: [(tag: String, quality: Double, index: Int)] = []
        for (index, item) in header.split(separator: ",").prefix(maximumPreferences).enumerated() {
            let fields = item.split(separator: ";")
            guard let first = fields.first else { continue }
            let tag = String(first).trimmingSpaces
            guard !tag.isEmpty else { continue }
            var quality = 1.0
            for parameter in fields.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                guard let value = Double(pair[1]), (0...1).contains(value) else { quality = 0; break }
                quality = value
            }
            if quality > 0 { entries.append((tag, quality, index)) }
        }
        return entries.sorted { $0.quality != $1.quality ? $0.quality > $1.quality : $0.index < $1.index }.map(\.tag)
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }

    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}
