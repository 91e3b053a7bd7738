import Crypto
import Domain

/// CSRF tokens of the web account's forms: the HMAC of what the form is bound to (the cookie
/// session's id, or before sign-in a random visitor cookie) under a key derived from the
/// current `secret_keys` entry, prefixed with that key's id (`<key id>.<mac>`); a token signed
/// under any listed key verifies (a form served before a rotation still posts). Another site can neither read a page's token nor compute one; nothing is
/// stored, and a token stops working with the session it was bound to.
public struct FormTokens: Sendable {
    private let secrets: DomainSecrets

    public init(secrets: DomainSecrets) {
        self.secrets = secrets
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
        try token(for: binding, under: secrets)
    }

    private func token(for binding: Binding, under key: DomainSecrets) throws -> String {
        key.keyID + "." + Base64URL.encode(try HMACSHA256.authenticationCode(for: Array(binding.text.utf8), key: key.formTokenKey))
    }

    /// Whether `token` is the one for `binding` under the listed key it names (constant time).
    /// A token from before key ids (no `.`) verifies under any listed key.
    public func isValid(_ token: String?, for binding: Binding) -> Bool {
        guard let token, token.utf8.count <= 80 else { return false }
        guard token.contains(".") else {
            return secrets.all.contains { key in
                guard let mac = try? HMACSHA256.authenticationCode(for: Array(binding.text.utf8), key: key.formTokenKey) else { return false }
                return ConstantTime.equals(Array(token.utf8), Array(Base64URL.encode(mac).utf8))
            }
        }
        guard let dot = token.firstIndex(of: "."), let key = secrets.key(id: String(token[..<dot])),
            let expected = try? self.token(for: binding, under: key)
        else { return false }
        return ConstantTime.equals(Array(token.utf8), Array(expected.utf8))
    }
}
