import Domain

/// The one check every email input goes through (API bodies, forms, admin queries): the
/// mailer's own rule (`EmailAddressRule`: ASCII `local@domain`, a dotted domain, nothing that
/// breaks a header or an SMTP path), after refusing controls and format characters, trimmed of
/// spaces, lower-cased. An address taken here is one a mail can be sent to.
enum EmailAddress {
    /// The normalized address, or nil when `raw` is not an address the mailer would send to.
    static func normalized(_ raw: String) -> String? {
        // Up front, before trimming: a NUL or an escape sequence must never reach storage or mail headers.
        guard raw.unicodeScalars.allSatisfy({ $0 == " " || isPrintable($0) }) else { return nil }
        return EmailAddressRule.normalized(raw)
    }

    /// - Throws: `APIError.badRequest` naming `field` when `raw` is not an email address.
    static func require(_ raw: String, field: String = "email") throws -> String {
        guard let email = normalized(raw) else {
            throw APIError.badRequest("\(field) must be an email address that mail can be sent to (ASCII local@domain).")
        }
        return email
    }

    /// Whether `scalar` shows as a visible character (letters of any script, digits, marks,
    /// punctuation, symbols); false for controls, format characters, separators, surrogates,
    /// private-use and unassigned code points.
    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return false
        default:
            return true
        }
    }
}
