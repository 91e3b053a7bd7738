/// Facts about BCP 47 language tags as Tollgate uses them (`en`, `de`, `pt-BR`).
public enum LanguageTag {
    /// Primary subtags of languages written right to left.
    static let rightToLeft: Set<String> = ["ar", "he", "fa", "ur", "ps", "yi", "dv", "ckb", "sd", "ug"]

    /// Whether `tag` is 2–3 letters, then optional `-` subtags of 1–8 letters or digits.
    public static func isValid(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// The primary subtag, lower-cased (`pt-BR` → `pt`).
    public static func primary(_ tag: String) -> String {
        String(tag.lowercased().split(separator: "-").first ?? "")
    }

    /// Whether the language of `tag` is written right to left.
    public static func isRightToLeft(_ tag: String) -> Bool { rightToLeft.contains(primary(tag)) }
}
