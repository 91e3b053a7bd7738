/// The one check an `app_user_id` goes through wherever it is sent: 1 to 255 bytes (the bound
/// `Public/openapi.json` states; Stripe's shorter `client_reference_id` is `StartCheckout`'s
/// concern) on one line.
enum AppUserIDInput {
    /// The longest `app_user_id`, in UTF-8 bytes.
    static let maxBytes = 255

    /// Whether `text` is an app user id.
    static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maxBytes && !text.contains(where: \.isNewline)
    }

    /// - Throws: `APIError.badRequest` naming `field` when `text` is not an app user id.
    static func require(_ text: String, field: String = "app_user_id") throws -> String {
        guard isValid(text) else { throw APIError.badRequest("\(field) must be 1 to \(maxBytes) characters on one line.") }
        return text
    }
}
