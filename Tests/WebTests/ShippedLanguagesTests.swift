import Foundation
import HTTPCore
import Mail
import Templating
import Testing

@testable import Web

/// English, German, French, Spanish and Japanese ship complete: every buyer page and every
/// mail in each is checked against the English catalog (no English text of its own left).
@Suite("Shipped languages")
struct ShippedLanguagesTests {
    static let shipped = ["de", "fr", "es", "ja"]

    static func english() throws -> MessageCatalog {
        try #require(try MessageCatalog.load(directories: [PackagePaths.templates + "/locales"])["en"])
    }

    /// The English phrases of 12 characters or more that `language` words differently: outside
    /// placeholders, markup and code (a command is not English), each must be absent from a page or mail in that language.
    static func englishPhrases(unlike language: String) throws -> [String] {
        let catalogs = try MessageCatalog.load(directories: [PackagePaths.templates + "/locales"])
        let english = try #require(catalogs["en"]), other = try #require(catalogs[language])
        var phrases: Set<String> = []
        for key in english.keys where other[key] != english[key] {
            for text in english[key]?.texts ?? [] {
                let plain = text.replacingOccurrences(
                    of: #"<code>.*?</code>|\{[A-Za-z0-9_.-]+\}|<[^>]*>"#, with: "\u{0}", options: .regularExpression)
                for piece in plain.split(separator: "\u{0}") {
                    let phrase = piece.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters))
                    if phrase.count >= 12 { phrases.insert(phrase) }
                }
            }
        }
        return phrases.sorted()
    }

    /// Values that take every page down one branch (`wide`: the other).
    static func values(wide: Bool) -> [String: TemplateValue] {
        [
            "product_name": "Premium", "code": "K7P2-9QXM-4D8R-2WTF", "code_groups": ["K7P2", "9QXM", "4D8R", "2WTF"],
            "masked_email": "b•••@e•••.com", "email": "buyer@example.com", "universal_link": "https://pay.example.com/redeem/K7P2",
            "deeplink": "exampleapp://redeem?code=K7P2", "open_link": "https://pay.example.com/redeem/K7P2",
            "app_store_url": "https://apps.apple.com/app/id1", "play_store_url": "https://play.google.com/store/apps/details?id=x",
            "is_desktop": .bool(wide), "qr_svg": wide ? "<svg></svg>" : nil, "redeemed": .bool(wide), "unknown": .bool(wide),
            "expired": .bool(wide), "password_not_set": .bool(wide), "status_404": .bool(wide), "demo": .bool(wide), "open": .bool(wide),
            "subscription": .bool(wide), "email_verified": .bool(wide), "can_resend": true, "has_billing": true,
            "app_link": "exampleapp://x", "retry_url": "/checkout/start?plan=x", "operator_hint": "x", "status": 404, "reason": "Not Found",
            "message": "", "min_length": 12, "delete_word": "DELETE", "csrf": "t", "token": "t", "action": "/x", "price_id": "price_1",
            "session_id": "cs_1", "mail_dir": "data/mail", "demo_plan": "demo", "cancel_url": "/x", "resend_action": "/x",
            "entitlements": [["name": "Premium", "active": .bool(wide), "until": "x"]],
            "purchases": [["name": "Premium", "plan": "", "source": "Web", "status": "x", "when": ""]],
            "products": wide ? [["id": "com.example.monthly", "name": "Monthly"]] : [],
            "heading": "x", "advice": "x",
            // The console's pages (templates/console_*.html).
            "operator_email": "sue@example.com", "operator_role": "support", "can_support": true, "is_admin": .bool(wide),
            "wrong": .bool(wide), "signed_out": .bool(wide), "enrolled": .bool(wide), "refused": .bool(wide), "used": .bool(wide),
            "secret": "ABCD EFGH", "password_short": .bool(wide), "code_wrong": .bool(wide), "notice_done": .bool(wide),
            "searched": true, "has_hits": .bool(wide),
            "hits": wide ? [["buyer_url": "/console/accounts/a", "email": "b•••@e•••.com", "matched": "email", "id": "a"]] : [],
            "has_unredeemed": .bool(wide),
            "unredeemed": wide ? [["buyer_url": "/x", "email": "b•••@e•••.com", "product": "p", "created": "2026"]] : [],
            "has_failed_mail": .bool(wide), "failed_mail": wide ? [["id": "m", "template": "t", "email": "e", "attempts": 3]] : [],
            "has_entries": .bool(wide), "entries": wide ? [["when": "2026", "actor": "sue@example.com", "action": "code.resend"]] : [],
            "has_account": .bool(wide), "account_id": "acc_1", "buyer_id": "acc_1", "can_confirm": .bool(wide),
            "can_sign_out_everywhere": .bool(wide),
            "can_export": .bool(wide), "can_delete": .bool(wide), "app_users": [["id": "user-1"]],
            "has_codes": .bool(wide), "codes": wide ? [["id": "c", "status": "live", "can_revoke": true]] : [],
            "has_devices": .bool(wide), "devices": wide ? [["id": "d", "url_id": "d", "can_sign_out": true]] : [],
            "has_mail": .bool(wide), "mail": wide ? [["id": "m", "template": "t", "status": "failed", "can_retry": true]] : [],
            "has_audit": .bool(wide), "audit": wide ? [["when": "2026", "actor": "a", "action": "b"]] : []
        ]
    }

    static let pages = [
        "home", "success", "redeem", "redeem_expired", "redeem_resent", "checkout_cancel", "checkout_pending", "checkout_unavailable",
        "error", "account", "account_deleted", "account_link_sent", "account_sign_in", "account_sign_in_link", "email_confirm",
        "email_confirmed", "email_taken", "gonative_store", "link_expired", "link_resent", "set_password", "set_password_done",
        "demo_checkout", "console_sign_in", "console_invite", "console_home", "console_search", "console_buyer", "console_audit"
    ]

    @Test("Each shipped catalog has every key English has", arguments: shipped)
    func complete(language: String) throws {
        let localized = try ShippedTemplates.shared
        #expect(localized.languages.contains(language))
        #expect(localized.missingKeys[language] == nil, "\(language) lacks \(localized.missingKeys[language] ?? [])")
    }

    @Test("Every page, down each branch, is in the language with no English left, lang and dir set", arguments: shipped)
    func pagesSpeakTheLanguage(language: String) throws {
        let pages = Pages(
            templates: try ShippedTemplates.shared, appName: "Example", baseURL: "https://pay.example.com")
        let phrases = try Self.englishPhrases(unlike: language)
        #expect(phrases.count > 150)
        let search = PhraseSearch(phrases)
        // The search finds what is there: English's own page says many of these phrases.
        let english = try pages.render("account", title: .titleAccount, language: "en", Self.values(wide: true)).text
        #expect(search.found(in: english).count > 10)
        for name in Self.pages {
            for wide in [false, true] {
                let page = try pages.render(name, title: .titleAccount, language: language, Self.values(wide: wide)).text
                #expect(page.contains(#"<html lang="\#(language)" dir="ltr">"#), "\(name)")
                let left = search.found(in: page)
                #expect(left.isEmpty, "\(language) \(name) (wide: \(wide)) still says \(left)")
            }
        }
    }

    @Test("Every mail, as text and HTML, is in the language with no English left", arguments: shipped)
    func mailsSpeakTheLanguage(language: String) throws {
        let composer = MailComposer(
            templates: try ShippedTemplates.shared,
            from: try MailAddress("noreply@example.com", displayName: "Example"), appName: "Example")
        let english = try Self.english()
        let search = PhraseSearch(try Self.englishPhrases(unlike: language))
        let parameters = [
            "code": "K7P2-9QXM-4D8R-2WTF", "product_name": "Premium", "redeem_url": "https://pay.example.com/redeem/K7P2",
            "expiry_text": "x", "manage_url": "https://pay.example.com/manage", "masked_email": "b•••@e•••.com",
            "confirm_url": "https://pay.example.com/email/confirm?token=t", "expiry_days": "3", "email": "buyer@example.com",
            "set_password_url": "https://pay.example.com/auth/password/reset?token=t", "expiry_hours": "1",
            "login_url": "https://pay.example.com/account/sign-in/link?token=t", "expiry_minutes": "10", "sign_in_code": "123456",
            MailComposer.localeParameter: language
        ]
        for template in ["redemption_code", "code_resent", "email_confirmation", "set_password", "login_link"] {
            let message = try composer.compose(
                outboxID: "o1", template: template, recipient: "buyer@example.com", recipientName: nil, parameters: parameters,
                messageID: "<m@example.com>", date: Date(timeIntervalSince1970: 1_800_000_000))
            let html = try #require(message.htmlBody)
            #expect(html.contains(#"lang="\#(language)" dir="ltr""#))
            for (part, text) in [("subject", message.subject), ("text", message.textBody), ("html", html)] {
                let left = search.found(in: text)
                #expect(left.isEmpty, "\(language) \(template) \(part) still says \(left)")
            }
            #expect(!english.keys.contains { english[$0]?.formatted(parameters.merging(["app_name": "Example"]) { a, _ in a }) == message.subject })
        }
    }

    @Test("The plural forms and dates of a language reach its mails: Japanese has one form, French says 1 jour")
    func countsAndDates() throws {
        let composer = MailComposer(
            templates: try ShippedTemplates.shared,
            from: try MailAddress("noreply@example.com", displayName: "Example"), appName: "Example")
        func text(_ language: String, days: String) throws -> String {
            try composer.compose(
                outboxID: "o1", template: "email_confirmation", recipient: "a@example.com", recipientName: nil,
                parameters: ["confirm_url": "https://x", "expiry_days": days, "email": "a@example.com", "locale": language],
                messageID: "<m@example.com>", date: Date()
            ).textBody
        }
        #expect(try text("fr", days: "1").contains("expire dans 1 jour."))
        #expect(try text("fr", days: "3").contains("expire dans 3 jours."))
        #expect(try text("de", days: "1").contains("in 1 Tag ab."))
        #expect(try text("ja", days: "3").contains("有効期限は3日です"))
        #expect(try text("en", days: "1").contains("expires in 1 day."))
    }
}
