import Domain
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// Renders the HTML pages in `templates/` in the buyer's language, with the site-wide values
/// every page needs (the app's name, `lang` and `dir`, the page title) and the shared layout
/// partials. The templates are built once per language (`LocalizedTemplates`): choosing the
/// language costs one dictionary lookup per page.
public struct Pages: Sendable {
    public let templates: LocalizedTemplates
    /// Language → what every page of that language is rendered with, resolved at start-up so
    /// a page in a catalog's language costs one dictionary lookup.
    private let languages: [String: LanguagePages]
    /// Chooses the buyer's language among the catalogs.
    public let buyerLanguage: BuyerLanguage

    /// One language's templates and the values every page of it gets.
    private struct LanguagePages: Sendable {
        let site: [String: TemplateValue]
        let library: TemplateLibrary
    }

    public init(templates: LocalizedTemplates, appName: String, baseURL: String) {
        self.templates = templates
        var languages: [String: LanguagePages] = [:]
        for language in templates.languages {
            let site: [String: TemplateValue] = [
                "app_name": .string(appName), "base_url": .string(baseURL), "lang": .string(language),
                "dir": .string(LanguageTag.isRightToLeft(language) ? "rtl" : "ltr")
            ]
            languages[language] = LanguagePages(site: site, library: templates.library(for: language))
        }
        self.languages = languages
        buyerLanguage = BuyerLanguage(available: templates.languages, defaultLanguage: templates.defaultLanguage)
    }

    /// The language of a page for `request`: `kept` (the purchase's or checkout's, when the page
    /// is about one), else the link's `?locale=` (mails' links carry the mail's language;
    /// `?lang=` in links mailed before it was named so), when a catalog serves it; else the
    /// browser's `Accept-Language`; else the default.
    public func language(for request: HTTPRequest, kept: String? = nil) -> String {
        if let requested = kept ?? Self.requestedLocale(request), let language = buyerLanguage.match(requested) { return language }
        return buyerLanguage.choose(requested: nil, acceptLanguage: request.headers["Accept-Language"])
    }

    /// The query's first `locale`, else its first `lang`; nil without a query (no parsing then:
    /// every page asks, and most requests carry none).
    static func requestedLocale(_ request: HTTPRequest) -> String? {
        guard request.query != nil else { return nil }
        var lang: String?
        for item in request.queryItems {
            if item.name == Links.localeParameter { return item.value }
            if lang == nil, item.name == "lang" { lang = item.value }
        }
        return lang
    }

    /// Renders template `name` in `language` (nil: the default language; a language without
    /// a catalog: its primary language's or the default) with `values` plus the site values and
    /// `title` (the text of a `PageText` key, for pages whose layout shows the handler's title).
    /// - Throws: `TemplateError` when the template does not exist.
    public func render(
        _ name: String, title: PageText? = nil, language: String? = nil, status: HTTPStatus = .ok,
        _ values: [String: TemplateValue] = [:]
    ) throws -> HTTPResponse {
        let chosen: String
        let pages: LanguagePages
        if let language, let exact = languages[language] {
            (chosen, pages) = (language, exact)
        } else {
            chosen = templates.language(for: language)
            pages = languages[chosen] ?? LanguagePages(site: [:], library: templates.library(for: chosen))
        }
        var context = pages.site
        if let title { context["title"] = .string(text(title, language: chosen)) }
        for (key, value) in values { context[key] = value }
        var body: [UInt8] = []
        body.reserveCapacity(4096)
        try pages.library.render(name, .dictionary(context), into: &body)
        return .html(body, status: status)
    }

    /// The text of `key` in `language` (English when that catalog lacks it), its placeholders
    /// filled from `arguments`, its plural form chosen by `count`.
    public func text(_ key: PageText, language: String?, _ arguments: [String: String] = [:], count: Int? = nil) -> String {
        templates.text(key.rawValue, language: language, arguments, count: count) ?? key.rawValue
    }

    /// The error page for `error` in `language`: the catalog's words for its code, the status
    /// and the code itself for support (`templates/error.html`, which also gets `status_<code>` =
    /// true to word each status its own way). The API's `message` is English: it is added as the
    /// page's `detail` (what exactly was wrong, for the app's developer trying a link) only on a
    /// page in English, so no other language's page carries an English sentence. Never fails
    /// (falls back to a minimal escaped page).
    public func errorPage(for error: APIError, language: String? = nil) -> HTTPResponse {
        let chosen = templates.language(for: language)
        let message = text(error.pageText ?? .error(code: error.code, status: error.status), language: chosen)
        var values: [String: TemplateValue] = [
            "status": .int(error.status.code),
            "code": .string(error.code),
            "message": .string(message),
            "status_\(error.status.code)": .bool(true)
        ]
        if LanguageTag.primary(chosen) == "en", error.message != message {
            values["has_detail"] = .bool(true)
            values["detail"] = .string(error.message)
        }
        if let response = try? render("error", language: chosen, status: error.status, values) {
            return response
        }
        let fallback = "<!doctype html><title>\(error.status.code)</title><p>\(HTMLEscaping.escape(message))</p>"
        return .html(Array(fallback.utf8), status: error.status)
    }
}
