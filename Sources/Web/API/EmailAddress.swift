/// The one check every email input goes through (API bodies, forms, admin queries): trimmed,
/// lower-cased, one `@` with a dotted domain, no whitespace, at most 254 bytes.
enum EmailAddress {
    /// The normalized address, or nil when `raw` is not an email address.
    static func normalized(_ raw: String) -> String? {
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
}
