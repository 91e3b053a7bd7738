import Domain

/// The one check a `device_id` goes through: 1 to 255 bytes without control or format
/// characters (`ControlCharacters`), like `AppUserIDInput`.
enum DeviceIDInput {
    /// The longest `device_id`, in UTF-8 bytes.
    static let maxBytes = 255

    /// - Throws: `APIError.badRequest` naming `device_id` when `text` is not a device id.
    static func require(_ text: String) throws -> String {
        if ControlCharacters.isPrintableASCII(text), !text.isEmpty, text.utf8.count <= maxBytes { return text }
        if let scalar = text.unicodeScalars.first(where: ControlCharacters.isControl) {
            throw APIError.badRequest("device_id must not contain control or format characters (it has \(ControlCharacters.name(scalar))).")
        }
        guard !text.isEmpty, text.utf8.count <= maxBytes else { throw APIError.badRequest("device_id must be 1 to \(maxBytes) characters.") }
        return text
    }
}
