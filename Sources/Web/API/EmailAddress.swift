/// The one check every email input goes through (API bodies, forms, admin queries): only
/// printable characters (no controls, format characters such as zero-width or bidi marks,
/// separators, private-use or unassigned code points), trimmed of spaces, lower-cased, one `@`
/// with a dotted domain, no whitespace, at most 254 bytes.
enum EmailAddress {
    /// The normalized address, or nil when `raw` is not an email address.
    static func normalized(_ raw: String) -> String? {
        // Up front, before trimming: a NUL or an escape sequence must never reach storage or mail headers.
        guard raw.unicodeScalars.allSatisfy({ $0 == " " || isPrintable($0) }) else { return nil }
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            email.utf8.count <= 254, !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { return nil }
        return email
    }

    /// - Throws: `APIError.badRequest` naming `field` when `raw` is not an email address.
    static func require(_ raw: String, field: String = "email") throws -> String {
        guard let email = normalized(raw) else { throw APIError.badRequest("\(field) must be an email address.") }
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
