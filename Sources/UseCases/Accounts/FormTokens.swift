import Crypto
import Domain

/// CSRF tokens of the web account's forms: the HMAC of what the form is bound to (the cookie
/// session's id, or before sign-in a random visitor cookie) under a key derived from the
/// configured secret. Another site can neither read a page's token nor compute one; nothing is
/// stored, and a token stops working with the session it was bound to.
public struct FormTokens: Sendable {
    private let key: [UInt8]

    public init(secrets: DomainSecrets) {
        key = secrets.formTokenKey
    }

    /// What a form is bound to.
    public enum Binding: Sendable {
        /// A signed-in buyer's session (its id, never its secret).
        case session(String)
        /// A visitor before sign-in: the value of the visitor cookie.
        case visitor(String)
        /// An operator's console session (its id).
        case console(String)
        /// A visitor of the console's sign-in page: the value of its own visitor cookie.
        case consoleVisitor(String)
        /// An operator's invitation page: the invitation's token (secret, in its URL).
        case invitation(String)

        var text: String {
            switch self {
            case .session(let id): "session:" + id
            case .visitor(let value): "visitor:" + value
            case .console(let id): "console:" + id
            case .consoleVisitor(let value): "console-visitor:" + value
            case .invitation(let token): "invitation:" + token
            }
        }
    }

    /// The token the form carries.
    /// - Throws: `CryptoError` when OpenSSL fails.
    public func token(for binding: Binding) throws -> String {
        Base64URL.encode(try HMACSHA256.authenticationCode(for: Array(binding.text.utf8), key: key))
    }

    /// Whether `token` is the one for `binding` (constant time).
    public func isValid(_ token: String?, for binding: Binding) -> Bool {
        guard let token, token.utf8.count <= 64, let expected = try? self.token(for: binding) else { return false }
        return ConstantTime.equals(Array(token.utf8), Array(expected.utf8))
    }
}
