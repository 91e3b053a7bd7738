import Foundation
import Domain
import Templating

/// Renders an outbox row into a `MailMessage` with the templates under `templates/email/`.
///
/// Each email has a text template `email/<name>.txt` and optionally an HTML one `email/<name>`
/// (`<name>.html` on disk). **The subject is the first line of the text template**, written
/// `Subject: ...`, followed by one blank line and the body; the HTML template receives it as
/// `{{subject}}`. Every template also receives `{{app_name}}` and the row's parameters.
public struct MailComposer: Sendable {
    /// The loaded templates, one build per language.
    public let templates: LocalizedTemplates
    /// The sender of every message.
    public let from: MailAddress
    /// The service's name, `{{app_name}}` in the templates.
    public let appName: String

    /// A composer sending as `from`, naming the service `appName`.
    public init(templates: LocalizedTemplates, from: MailAddress, appName: String) {
        self.templates = templates
        self.from = from
        self.appName = appName
    }

    /// The parameter naming the language a message is written in (`de`, `fr`, ...), kept with
    /// the outbox row; absent or unknown: the default language.
    public static let localeParameter = "locale"

    /// The parameter carrying a message's one-click unsubscribe URL (`MailMessage.listUnsubscribe`).
    public static let listUnsubscribeParameter = "list_unsubscribe"

    /// Renders template `template` for `recipient` with `parameters`, in the language of the
    /// `locale` parameter.
    /// - Throws: `MailError` (permanent) for an unknown template, a text template without a
    ///   `Subject:` first line, an invalid recipient, or a line break in the recipient, its name
    ///   or any parameter (parameters are single-line values).
    public func compose(
        outboxID: String, template: String, recipient: String, recipientName: String?, parameters: [String: String],
        messageID: String, date: Date
    ) throws -> MailMessage {
        let to = try MailAddress(recipient, displayName: recipientName)
        // Every recipient is held to the edge's whole rule (finding 8): what was accepted can be mailed.
        guard EmailAddressRule.accepts(recipient) else {
            throw MailError.permanent("invalid recipient address (expected ASCII local@domain with a dotted domain)")
        }
        let textName = "email/\(template).txt"
        let language = templates.language(for: parameters[Self.localeParameter])
        let templates = templates.library(for: language)
        guard templates.contains(textName) else {
            throw MailError.permanent("no email template '\(textName)'")
        }
        var context: [String: TemplateValue] = [:]
        for (key, value) in parameters {
            // Parameters are single-line values (codes, links, dates); a line break could move
            // text between the subject line and the body.
            if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
                throw MailError.permanent("header injection refused: the template parameter '\(key)' contains a line break")
            }
            context[key] = .string(value)
        }
        context["app_name"] = .string(appName)
        context["lang"] = .string(language)
        context["dir"] = .string(LanguageTag.isRightToLeft(language) ? "rtl" : "ltr")
        let rendered = try templates.render(textName, .dictionary(context))
        let (subject, text) = try Self.splitSubject(rendered, template: textName)
        var html: String?
        if templates.contains("email/\(template)") {
            context["subject"] = .string(subject)
            html = try templates.render("email/\(template)", .dictionary(context))
        }
        var message = MailMessage(
            outboxID: outboxID, template: template, from: from, to: to, subject: subject, textBody: text,
            htmlBody: html, messageID: messageID, date: date)
        message.listUnsubscribe = parameters[Self.listUnsubscribeParameter]
        return message
    }

    /// Splits `Subject: ...\n\nbody` into the subject and the body.
    static func splitSubject(_ rendered: String, template: String) throws -> (String, String) {
        var remainder = Substring(rendered)
        while remainder.first == "\n" || remainder.first == "\r\n" { remainder = remainder.dropFirst() }
        let prefix = "Subject:"
        guard remainder.hasPrefix(prefix) else {
            throw MailError.permanent("the text template '\(template)' must start with a 'Subject: ...' line")
        }
        let lineEnd = remainder.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) ?? remainder.endIndex
        let subject = String(remainder[remainder.index(remainder.startIndex, offsetBy: prefix.count)..<lineEnd]).trimmingSpaces
        var body = remainder[lineEnd...]
        if !body.isEmpty { body = body.dropFirst() }
        if body.first == "\n" || body.first == "\r\n" { body = body.dropFirst() }
        return (subject, String(body))
    }
}
