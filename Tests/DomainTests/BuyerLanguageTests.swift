import Testing

@testable import Domain

/// The buyer's language rule, without HTTP (API.md "The buyer's language").
@Suite("Buyer language")
struct BuyerLanguageTests {
    static let rule = BuyerLanguage(available: ["en", "de", "fr", "es", "ja", "pt-BR"], defaultLanguage: "en")

    @Test(
        "The checkout's locale wins, then Accept-Language by quality, then the default",
        arguments: [
            ("fr", "de", "fr"),
            ("FR-ca", "de", "fr"),
            ("it", "de-AT, en;q=0.5", "de"),
            (nil, "da, en-GB;q=0.8, en;q=0.7", "en"),
            (nil, "en;q=0.2, ja;q=0.9, de;q=0.5", "ja"),
            (nil, "es;q=0, fr;q=0.1", "fr"),
            (nil, "es;q=abc, pt-br;q=0.4", "pt-BR"),
            (nil, "*", "en"),
            (nil, "ko, zh", "en"),
            (nil, nil, "en"),
            (nil, "", "en"),
            (nil, "ja;q=0.5, de;q=0.5", "ja"),
            ("pt-BR", nil, "pt-BR"),
            ("pt-PT", nil, "en")
        ] as [(String?, String?, String)])
    func choose(requested: String?, accept: String?, expected: String) {
        #expect(Self.rule.choose(requested: requested, acceptLanguage: accept) == expected)
    }

    @Test("Accept-Language is read best first; q=0 and unreadable qualities drop the entry")
    func preferences() {
        #expect(BuyerLanguage.preferences("de-CH, fr;q=0.9, en;q=0.8, *;q=0.5") == ["de-CH", "fr", "en", "*"])
        #expect(BuyerLanguage.preferences(" ja ;q=0.3 , ko;q=0 , es;q=2, fr") == ["fr", "ja"])
        let long = (0..<100).map { "x\($0)" }.joined(separator: ",")
        #expect(BuyerLanguage.preferences(long).count == BuyerLanguage.maximumPreferences)
    }

    @Test(
        "A checkout's locale must look like a language tag",
        arguments: [
            ("de", true), ("pt-BR", true), ("pt_BR", true), ("zh-Hant-TW", true), ("e", false), ("english", false),
            ("de--x", false), ("<script>", false), (String(repeating: "a-", count: 20) + "b", false)
        ])
    func wellFormed(tag: String, expected: Bool) {
        #expect(BuyerLanguage.isWellFormed(tag) == expected)
    }

    @Test("A default outside the catalogs is still the answer of last resort")
    func defaultLanguage() {
        let rule = BuyerLanguage(available: ["en", "de"], defaultLanguage: "de")
        #expect(rule.choose(requested: "xx", acceptLanguage: "yy") == "de")
        #expect(BuyerLanguage.normalized(" pt_BR ") == "pt-BR")
    }
}
