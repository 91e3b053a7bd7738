extension TollgateConfig {
    /// `console`: the operators' console under `/console/` (API.md "The operators' console").
    public struct Console: Sendable, Equatable {
        /// `console.enabled`: false answers 404 on every `/console/*` path. Default true.
        public var enabled = true

        public init() {}
    }

    /// One of `admin.tokens`: a named admin bearer token, by its SHA-256.
    public struct AdminToken: Sendable, Equatable {
        /// `name`: what the audit log calls whoever uses it.
        public var name: String
        /// `sha256`: lower-case hex SHA-256 of the token.
        public var sha256: String

        public init(name: String, sha256: String) {
            self.name = name
            self.sha256 = sha256
        }
    }
}

extension TollgateConfig.Admin {
    /// Every admin token's hash with its audit name: `admin.tokens` by their names, then
    /// `admin.tokens_sha256` as "admin token 1", "admin token 2", ...
    public var namedTokens: [(sha256: String, name: String)] {
        tokens.map { ($0.sha256, $0.name) } + tokensSHA256.enumerated().map { ($0.element, "admin token \($0.offset + 1)") }
    }
}
