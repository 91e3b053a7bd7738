import Crypto

/// An access or refresh token as the app holds it (or a web session cookie, `WebSessionRepository`): `<session id>.<secret>`. The id names the
/// session row (looked up by primary key); the 256-bit secret is stored only as its SHA-256
/// and compared in constant time, so the database alone signs no one in.
struct SessionToken: Sendable {
    let sessionID: String
    let secret: String

    /// A token for the session `sessionID` whose secret is `secretBytes` (random, see
    /// `SessionRepository.draft`), written as an opaque token.
    init(sessionID: String, secretBytes: some Collection<UInt8>) {
        self.init(sessionID: sessionID, secret: OpaqueToken.encode(Array(secretBytes)))
    }

    private init(sessionID: String, secret: String) {
        self.sessionID = sessionID
        self.secret = secret
    }

    /// Splits a token the app sent; nil when it does not have this shape (a token issued before
    /// session ids were part of tokens, or garbage). `prefix` is the id prefix of its table.
    init?(parsing text: String, prefix: String = SessionRepository.idPrefix) {
        guard text.utf8.count <= 128, let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let id = String(text[..<dot])
        let secret = String(text[text.index(after: dot)...])
        guard id.hasPrefix(prefix + "_"), id.utf8.count <= 64, !secret.isEmpty else { return nil }
        self.init(sessionID: id, secret: secret)
    }

    /// What the app is given.
    var text: String { sessionID + "." + secret }

    /// What the database keeps.
    var secretHash: [UInt8] {
        get throws { try SHA256.hash(Array(secret.utf8)) }
    }

    /// Whether this token's secret is the one whose hash is `stored`, in constant time.
    func matches(_ stored: [UInt8]?) throws -> Bool {
        guard let stored else { return false }
        return ConstantTime.equals(try secretHash, stored)
    }
}
