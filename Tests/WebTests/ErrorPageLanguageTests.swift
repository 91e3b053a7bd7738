import Foundation
import HTTPCore
import Templating
import Testing

@testable import Web

/// An HTML error page speaks the buyer's language: the catalog's words for the error's code,
/// never the API's English `message` (which stays, for developers, in the JSON error shape).
@Suite("Error pages in the buyer's language")
struct ErrorPageLanguageTests {
    static func catalogs() throws -> [String: MessageCatalog] {
        var catalogs = try MessageCatalog.load(directories: [PackagePaths.templates + "/locales"])
        catalogs["ar"] = try MessageCatalog.load(directories: [PackagePaths.testLocales])["ar"]
        return catalogs
    }

    /// Every code an error can carry to a page: the generic code of every status, each
    /// `error.code.*` text, and the specific codes use cases and routes throw.
    static let codes: [String] = Array(
        Set(
            (400...599).map { APIError.code(for: HTTPStatus(code: $0)) }
                + PageText.allCases.filter(\.isErrorText).map { String($0.rawValue.dropFirst(PageText.errorPrefix.count)) }
                + ["unknown_price", "invalid_grant", "unsupported_platform", "unsupported_object_type", "something_new"]
        )
    ).sorted()

    @Test("Every error a page can show has its own words in every catalog, the Arabic test catalog too")
    func everyErrorHasWords() throws {
        let catalogs = try Self.catalogs()
        let english = try #require(catalogs["en"])
        #expect(Set(catalogs.keys).isSuperset(of: ["en", "de", "fr", "es", "ja", "ar"]))
        for status in 400...599 {
            for code in Self.codes {
                let key = PageText.error(code: code, status: HTTPStatus(code: status))
                #expect(key.isErrorText, "\(code) \(status) → \(key.rawValue)")
                for (language, catalog) in catalogs {
                    #expect(catalog[key.rawValue] != nil, "\(language) lacks \(key.rawValue)")
                    if language != "en" {
                        #expect(catalog[key.rawValue] != english[key.rawValue], "\(language) \(key.rawValue) is still English")
                    }
                }
            }
        }
        // The buyer-facing cases of a generic code, worded more precisely (`APIError.onPage`).
        let precise = PageText.allCases.filter { $0.rawValue.hasPrefix("error.page.") }
        #expect(precise.count == 7)
        for text in precise {
            for (language, catalog) in catalogs {
                #expect(catalog[text.rawValue] != nil, "\(language) lacks \(text.rawValue)")
                if language != "en" { #expect(catalog[text.rawValue] != english[text.rawValue], "\(language) \(text.rawValue) is still English") }
            }
        }
        #expect(PageText.error(code: "purchase_belongs_to_other_user", status: .conflict) == .errorPurchaseBelongsToOtherUser)
        #expect(PageText.error(code: "unknown_price", status: .serviceUnavailable) == .errorUpstreamUnavailable)
        #expect(PageText.error(code: "something_new", status: HTTPStatus(code: 418)) == .errorBadRequest)
    }

    @Test("An error page rendered for any error in German has no English sentence, the API's message included")
    func renderedInGerman() throws {
        let pages = Pages(
            templates: try ShippedTemplates.shared, appName: "Example", baseURL: "https://pay.example.com")
        let search = PhraseSearch(try ShippedLanguagesTests.englishPhrases(unlike: "de"))
        for status in [400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 429, 500, 502, 503] {
            for code in Self.codes {
                let sentence = "The coupon SAVE10 is not valid for this plan."
                let page = pages.errorPage(for: APIError(status: HTTPStatus(code: status), code: code, message: sentence), language: "de").text
                #expect(page.contains(#"<html lang="de" dir="ltr">"#) && page.contains("Fehler \(status)"))
                #expect(!page.contains(sentence) && !page.contains("SAVE10"))
                let left = search.found(in: page)
                #expect(left.isEmpty, "\(code) \(status) still says \(left)")
            }
        }
    }

    @Test("Through the app: German error pages for a missing page, a malformed locale and a wrong method, JSON keeps its message")
    func throughTheApp() async throws {
        let app = try TestApp()
        let search = PhraseSearch(try ShippedLanguagesTests.englishPhrases(unlike: "de"))
        let german: HTTPHeaders = ["Accept-Language": "de-CH, de;q=0.9, en;q=0.5"]
        let cases: [(HTTPMethod, String, HTTPStatus, String)] = [
            (.get, "/no-such-page", .notFound, "Der Link ist vielleicht unvollständig oder veraltet."),
            (.get, "/checkout/start?plan=monthly&locale=%3Cscript%3E", .badRequest, "Dieser Link oder dieses Formular war unvollständig"),
            (.delete, "/account/sign-in", .methodNotAllowed, "Diese Seite lässt sich so nicht öffnen."),
            (.post, "/account/sign-in", .forbidden, "Dieses Formular ist abgelaufen oder kam von einer anderen Website."),
            (.get, "/checkout/success", .badRequest, "Diesem Link fehlt der zugehörige Bezahlvorgang.")
        ]
        for (method, path, status, words) in cases {
            let response = await app.send(method, path, headers: german)
            #expect(response.status == status, "\(path)")
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.text.contains(#"<html lang="de""#) && response.text.contains(words), "\(path): \(response.text)")
            let left = search.found(in: response.text)
            #expect(left.isEmpty, "\(path) still says \(left)")
            for english in [
                "locale must be a language tag", "is not allowed here", "There is nothing at this address", "This form has expired",
                "missing its checkout"
            ] {
                #expect(!response.text.contains(english), "\(path)")
            }
        }
        let api = await app.send(.get, "/api/v1/no-such-thing", headers: german)
        #expect(api.status == .notFound && api.text.contains(#""message":"There is nothing at this address.""#), "\(api.text)")
    }
}
