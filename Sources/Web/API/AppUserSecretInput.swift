import Domain
import HTTPCore
import HTTPRouting

/// The one check an install secret (`app_user_secret`, API.md "Who may act for an account") goes
/// through wherever it is sent: in the body or query beside `app_user_id`, or as header
/// `X-App-User-Secret`; 22–128 characters `[A-Za-z0-9_-]`, else `400`. Only its hash leaves here.
enum AppUserSecretInput {
    static let header = "X-App-User-Secret"
    static let field = "app_user_secret"

    /// The secret sent in `fieldValue` (body or query, beside `app_user_id`), else the header's;
    /// nil when neither carries one. When both come and differ, the field's is the one checked: it
    /// travels with the app user it names (and a secret proves only by matching a bound hash, so
    /// which of two a caller holds grants nothing the other would not).
    /// - Throws: `APIError.badRequest` for a malformed secret.
    static func read(_ request: HTTPRequest, fieldValue: String?) throws -> InstallSecret? {
        let headerValue = request.headers[header]
        if let headerValue, InstallSecret(headerValue) == nil {
            throw APIError.badRequest("The \(header) header must be 22 to 128 characters of A-Z, a-z, 0-9, _ and -.")
        }
        guard let text = fieldValue ?? headerValue else { return nil }
        guard let secret = InstallSecret(text) else {
            throw APIError.badRequest("\(field) must be 22 to 128 characters of A-Z, a-z, 0-9, _ and -.")
        }
        return secret
    }

    /// The secret of a query-string request (the checkout poll, reads by name).
    /// - Throws: `APIError.badRequest` for a malformed secret.
    static func fromQuery(_ request: HTTPRequest) throws -> InstallSecret? {
        try read(request, fieldValue: request.queryParameter(field))
    }
}
