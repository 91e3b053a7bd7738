import Domain

/// The one check an `app_user_id` goes through wherever it is sent: 1 to 255 bytes (the bound
/// `Public/openapi.json` states; Stripe's shorter `client_reference_id` is `StartCheckout`'s
/// concern) on one line, without control or format characters (`ControlCharacters`: no NUL, no
/// terminal escape, no bidi mark).
enum AppUserIDInput {
    /// The longest `app_user_id`, in UTF-8 bytes.
    static let maxBytes = 255

    /// Whether `text` is an app user id.
    static func isValid(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= maxBytes else { return false }
        return ControlCharacters.isPrintableASCII(text) || (!text.contains(where: \.isNewline) && !ControlCharacters.contains(text))
    }

    /// - Throws: `APIError.badRequest` naming `field` when `text` is not an app user id.
    static func require(_ text: String, field: String = "app_user_id") throws -> String {
        if ControlCharacters.isPrintableASCII(text), !text.isEmpty, text.utf8.count <= maxBytes { return text }
        if let scalar = text.unicodeScalars.first(where: ControlCharacters.isControl), !text.contains(where: \.isNewline) {
            throw APIError.badRequest("\(field) must not contain control or format characters (it has \(ControlCharacters.name(scalar))).")
        }
        guard isValid(text) else { throw APIError.badRequest("\(field) must be 1 to \(maxBytes) characters on one line.") }
        return text
    }
}
