import Configuration
import Logging
import Mail
import Templating

/// Builds the mail pieces from configuration: the sender, the transport and the composer.
enum MailSetup {
    /// Parses `mail.from` (`Example <no-reply@example.com>` or a bare address).
    /// - Throws: `MailError` when the address is not valid.
    static func sender(_ from: String) throws -> MailAddress {
        let trimmed = from.trimmingCharacters(in: .whitespaces)
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            let address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            var name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
            return try MailAddress(address, displayName: name.isEmpty ? nil : name)
        }
        return try MailAddress(trimmed)
    }

    /// The transport `mail.transport` names.
    /// - Throws: `MailError` for missing SMTP settings.
    static func transport(_ config: TollgateConfig, logger: Logger) throws -> any Mail.MailTransport {
        let kind = config.mail.transport.rawValue
        var smtp: SMTPConfiguration?
        if let host = config.mail.smtp.host {
            smtp = SMTPConfiguration(
                host: host, port: config.mail.smtp.port,
                security: Mail.SMTPSecurity(rawValue: config.mail.smtp.security.rawValue) ?? .starttls,
                username: config.mail.smtp.username, password: config.mail.smtp.password, caFile: config.mail.smtp.caFile,
                heloName: Self.host(of: config.baseURL) ?? "localhost")
        }
        return try MailTransportConfiguration(kind: kind, smtp: smtp, directory: config.mail.fileDir).makeTransport(logger: logger)
    }

    /// The host of a URL (`https://pay.example.com` → `pay.example.com`), for HELO and Message-IDs.
    static func host(of url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let host = rest.prefix { $0 != "/" && $0 != ":" }
        return host.isEmpty ? nil : String(host)
    }
}
