import JSON

extension TollgateConfig {
    /// `rate_limits`: every per-client budget the web edge enforces, one table. Each bucket is
    /// configurable as `rate_limits.<bucket>.limit` (requests, or failures where the bucket counts
    /// only those) and `rate_limits.<bucket>.window_seconds`; past its limit a client gets `429`
    /// with `Retry-After` until its window ends.
    public struct RateLimits: Sendable, Equatable {
        /// One allowance: `limit` per `windowSeconds` per key (a client address, an email).
        public struct Budget: Sendable, Equatable {
            public var limit: Int
            public var windowSeconds: Int

            public init(limit: Int, windowSeconds: Int) {
                self.limit = limit
                self.windowSeconds = windowSeconds
            }
        }

        /// The table: every bucket with its default budget, in the reference's order.
        public static let table: [(bucket: String, budget: Budget)] = [
            // Failed redemptions per client address (loose: many users share one behind NAT).
            ("redeem", Budget(limit: 300, windowSeconds: 600)),
            // Failed redemptions per client address and app user.
            ("redeem_user", Budget(limit: 10, windowSeconds: 600)),
            // `POST /api/v1/codes/resend` and the redeem page's resend form, together.
            ("resend", Budget(limit: 5, windowSeconds: 600)),
            // Password sign-ins through the API, per client address and per email.
            ("login", Budget(limit: 10, windowSeconds: 900)),
            // Password sign-ins on the web, per client address and per email.
            ("web_login", Budget(limit: 10, windowSeconds: 900)),
            // `POST /api/v1/auth/email`: sign-in mails asked for.
            ("auth_email", Budget(limit: 5, windowSeconds: 600)),
            // `POST /api/v1/account/email`: confirmation mails asked for.
            ("account_email", Budget(limit: 5, windowSeconds: 600)),
            // `POST /email/confirm/resend`.
            ("confirm_resend", Budget(limit: 5, windowSeconds: 600)),
            // `POST /account/resend`.
            ("account_resend", Budget(limit: 10, windowSeconds: 600)),
            // `POST /account/billing`.
            ("account_billing", Budget(limit: 20, windowSeconds: 600)),
            // `POST /account/sign-in`.
            ("web_sign_in", Budget(limit: 20, windowSeconds: 600)),
            // `POST /account/sign-in/code`.
            ("web_sign_in_code", Budget(limit: 20, windowSeconds: 600))
        ]

        /// Bucket → budget in effect.
        public var budgets: [String: Budget]

        public init() {
            budgets = Dictionary(Self.table.map { ($0.bucket, $0.budget) }, uniquingKeysWith: { first, _ in first })
        }
    }
}

extension ConfigKey {
    /// `rate_limits.<bucket>.limit` and `rate_limits.<bucket>.window_seconds` for every bucket of
    /// the table: positive integers (zero or less stops start-up naming the key; an unknown
    /// bucket is an unknown key).
    static let rateLimits: [ConfigKey] = TollgateConfig.RateLimits.table.flatMap { entry in
        [
            rateLimit("rate_limits.\(entry.bucket).limit", bucket: entry.bucket, maximum: 1_000_000_000, \.limit),
            rateLimit("rate_limits.\(entry.bucket).window_seconds", bucket: entry.bucket, maximum: 31_536_000, \.windowSeconds)
        ]
    }

    private static func rateLimit(
        _ path: String, bucket: String, maximum: Int, _ field: any WritableKeyPath<TollgateConfig.RateLimits.Budget, Int> & Sendable
    ) -> ConfigKey {
        ConfigKey(
            path: path, kind: .integer(minimum: 1, maximum: maximum), isSecret: false, isRequired: false,
            decode: { value, config in
                switch decodeInteger(value, path: path, minimum: 1, maximum: maximum) {
                case .success(let number):
                    config.rateLimits.budgets[bucket]?[keyPath: field] = number
                    return []
                case .failure(let problem): return [problem]
                }
            },
            encode: { config in config.rateLimits.budgets[bucket].map { .integer(Int64($0[keyPath: field])) } ?? .null })
    }
}
