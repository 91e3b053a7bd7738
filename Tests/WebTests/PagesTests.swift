import Foundation
import HTTPCore
import HTTPRouting
import Templating
import Testing

@testable import Web
@testable import App

/// The browser pages without a browser: the templates the accounts routes will render, the
/// rules every template keeps (documented values, nothing inline the CSP would block), the
/// theme's contrast, and that an operator's edit of `templates/` shows without a rebuild.
@Suite("Pages and templates")
struct PagesTests {
    static func pages() throws -> Pages {
        Pages(templates: try ShippedTemplates.shared, appName: "Example", baseURL: "https://pay.example.com")
    }

    @Test(
        "A page's language: the link's locale (wherever it stands) before its lang, the first of each, then Accept-Language, then the default",
        arguments: [
            ("/", nil, "en"),
            ("/", "ja, de;q=0.5", "ja"),
            ("/?locale=de", "ja", "de"),
            ("/?lang=fr&locale=de", nil, "de"),
            ("/?lang=fr&lang=de", nil, "fr"),
            ("/?locale=es&locale=de", nil, "es"),
            ("/?locale=xx&lang=fr", "ja", "ja"),
            ("/?other=1", "de-AT", "de"),
            ("/?", nil, "en")
        ] as [(String, String?, String)])
    func pageLanguage(target: String, acceptLanguage: String?, expected: String) throws {
        var headers = HTTPHeaders()
        if let acceptLanguage { headers.add("Accept-Language", acceptLanguage) }
        let request = HTTPRequest(method: .get, target: target, headers: headers)
        #expect(try Self.pages().language(for: request) == expected)
        // The purchase's kept language comes first of all.
        #expect(try Self.pages().language(for: request, kept: "fr") == "fr")
    }

    @Test("email_confirmed shows the address and the way back into the app, escaped")
    func emailConfirmed() throws {
        let page = try Self.pages().render("email_confirmed", ["email": "a<b>@example.com", "app_link": "exampleapp://account?x=1"])
        #expect(page.status == .ok)
        #expect(page.text.contains("<title>Email confirmed · Example</title>"))
        #expect(page.text.contains("a&lt;b&gt;@example.com"))
        #expect(page.text.contains(#"href="exampleapp://account?x&#61;1""#))
        let without = try Self.pages().render("email_confirmed", ["email": "a@example.com"])
        #expect(!without.text.contains("id=\"open-app\""))
        #expect(without.text.contains("go back to Example"))
    }

    @Test("set_password posts the token and a password of the minimum length, and shows an error accessibly")
    func setPassword() throws {
        let pages = try Self.pages()
        let page = try pages.render(
            "set_password",
            [
                "action": "/account/password", "token": "tok\"en", "min_length": 12, "error": "Too short."
            ])
        let text = page.text
        #expect(text.contains(#"<form method="post" action="/account/password">"#))
        #expect(text.contains(#"<input type="hidden" name="token" value="tok&quot;en">"#))
        #expect(text.contains(#"minlength="12""#) && text.contains("At least 12 characters"))
        #expect(text.contains(#"<label for="password">"#) && text.contains(#"autocomplete="new-password""#))
        #expect(text.contains(#"role="alert" id="password-error">Too short.</p>"#))
        #expect(text.contains(#"aria-describedby="password-hint password-error""#))
        let clean = try pages.render("set_password", ["action": "/a", "token": "t", "min_length": 10]).text
        #expect(!clean.contains("role=\"alert\"") && !clean.contains("aria-invalid"))
        let done = try pages.render("set_password_done", ["app_link": "exampleapp://signin"]).text
        #expect(done.contains("Your password is set") && done.contains(#"href="exampleapp://signin""#))
    }

    @Test(
        "The error page words a 404 its own way and shows the status, the code and the catalog's words; the API's English message, escaped, only in English"
    )
    func errorPage() throws {
        let notFound = try Self.pages().errorPage(for: .notFound("No such <code>."))
        #expect(notFound.status == .notFound)
        #expect(notFound.text.contains("We could not find this page") && notFound.text.contains("The link may be incomplete or out of date."))
        #expect(notFound.text.contains("No such &lt;code&gt;."))
        let bad = try Self.pages().errorPage(for: .badRequest("Bad plan."))
        #expect(bad.text.contains("Something went wrong") && bad.text.contains("Error 400") && bad.text.contains("<code>bad_request</code>"))
        #expect(bad.text.contains("This link or form was incomplete") && bad.text.contains("Bad plan."))
        let german = try Self.pages().errorPage(for: .badRequest("Bad plan."), language: "de")
        #expect(german.text.contains("Fehler 400") && german.text.contains("Dieser Link oder dieses Formular") && !german.text.contains("Bad plan."))
    }

    @Test("Every page template documents its values and has nothing inline that the CSP would block")
    func templateRules() throws {
        let folder = PackagePaths.templates
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".html") }.sorted()
        #expect(names.count >= 11, "\(names)")
        for name in names + ((try? FileManager.default.contentsOfDirectory(atPath: folder + "/partials")) ?? []).map({ "partials/" + $0 }) {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            #expect(text.hasPrefix("{{!"), "\(name) does not start with a {{! }} comment listing its values")
            #expect(text.range(of: #"<script(?![^>]*\bsrc=)"#, options: .regularExpression) == nil, "\(name) has an inline script")
            #expect(
                text.range(of: #"<style|\sstyle=|\son[a-z]+="#, options: [.regularExpression, .caseInsensitive]) == nil,
                "\(name) has inline style or an event handler")
            #expect(
                text.range(of: #"(src|href)="(https?:)?//"#, options: .regularExpression) == nil,
                "\(name) loads or links something by a fixed absolute URL")
        }
    }

    @Test("The theme's text colours have a contrast of 4.5:1 or more, light and dark")
    func contrast() throws {
        let css = try String(contentsOfFile: PackagePaths.publicDir + "/style.css", encoding: .utf8)
        let theme = try #require(css.components(separatedBy: "END THEME").first)
        let blocks = theme.components(separatedBy: "@media (prefers-color-scheme: dark)")
        #expect(blocks.count == 2, "the THEME block has a light and a dark part")
        let pairs = [
            ("fg", "bg"), ("fg", "card"), ("muted", "bg"), ("muted", "card"), ("accent", "bg"), ("accent", "card"),
            ("accent-fg", "accent"), ("danger", "card"), ("ok", "card")
        ]
        for (index, block) in blocks.enumerated() {
            var colours: [String: (Double, Double, Double)] = [:]
            for match in block.matches(of: /--([a-z-]+):\s*#([0-9a-fA-F]{6})/) {
                let hex = String(match.output.2)
                let channel = { (offset: Int) in Double(Int(hex.dropFirst(offset).prefix(2), radix: 16) ?? 0) / 255 }
                colours[String(match.output.1)] = (channel(0), channel(2), channel(4))
            }
            for (text, background) in pairs {
                let a = try #require(colours[text], "--\(text) missing in block \(index)")
                let b = try #require(colours[background], "--\(background) missing in block \(index)")
                let ratio = Self.contrast(a, b)
                #expect(ratio >= 4.5, "--\(text) on --\(background) (\(index == 0 ? "light" : "dark")) is \(ratio):1")
            }
        }
    }

    @Test("An operator's edit of templates/ and a catalog in locales.dir show on the next start, with no rebuild")
    func operatorEditsTemplates() throws {
        let copy = try TemporaryDirectory()
        let templates = copy.path + "/templates"
        try FileManager.default.copyItem(atPath: PackagePaths.templates, toPath: templates)
        let home = templates + "/home.html"
        let original = try String(contentsOfFile: home, encoding: .utf8)
        try original.replacingOccurrences(of: "<h1>{{@home.heading}}</h1>", with: "<h1>{{@home.heading}}</h1>\n<p id=\"operator\">Hello</p>")
            .write(toFile: home, atomically: true, encoding: .utf8)
        let locales = copy.path + "/locales"
        try FileManager.default.createDirectory(atPath: locales, withIntermediateDirectories: true)
        try #"{"home.heading": "Welcome back to {app_name}"}"#.write(toFile: locales + "/en.json", atomically: true, encoding: .utf8)
        let app = try TestApp(extra: [
            "paths": ["templates_dir": templates, "public_dir": PackagePaths.publicDir], "locales": ["dir": locales]
        ])
        let page = try #require(try? app.app.pages.render("home"))
        #expect(page.text.contains("<h1>Welcome back to Example</h1>\n<p id=\"operator\">Hello</p>"))
        #expect(page.text.contains("<html lang=\"en\" dir=\"ltr\">"))
        #expect(page.text.contains("Bought on the web?"), "the keys the operator did not replace keep the shipped text")
    }

    @Test(
        "The visitor's platform comes from the User-Agent",
        arguments: [
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X)", ClientPlatform.iOS),
            ("Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X)", .iOS),
            ("Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile", .android),
            ("Mozilla/5.0 (Linux; Android 13; SM-X200)", .android),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0)", .desktop),
            ("", .desktop)
        ])
    func platform(agent: String, expected: ClientPlatform) {
        #expect(ClientPlatform(userAgent: agent) == expected)
    }

    /// WCAG's contrast ratio of two sRGB colours.
    static func contrast(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        func luminance(_ c: (Double, Double, Double)) -> Double {
            func linear(_ v: Double) -> Double { v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear(c.0) + 0.7152 * linear(c.1) + 0.0722 * linear(c.2)
        }
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }
}
