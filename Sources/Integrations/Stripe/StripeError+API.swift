extension StripeError {
    /// Stripe rejected a request with a 4xx and its error body
    /// `{"error": {"type", "code", "message", "param", ...}}`. Unlike `UpstreamError`, retrying the
    /// same request will not help.
    public struct API: Sendable, Equatable, CustomStringConvertible {
        /// The HTTP status (400, 401, 402, 403, 404, 409).
        public let httpStatus: Int
        /// `invalid_request_error`, `card_error`, `idempotency_error`, `api_error`, ...
        public let type: String
        /// `resource_missing`, `parameter_missing`, `parameter_invalid_string_empty`, ...
        public let code: String?
        /// Stripe's human sentence (Stripe already masks keys in it).
        public let message: String
        /// The request parameter at fault, e.g. `line_items[0][price]`.
        public let param: String?
        /// Stripe's `Request-Id` header (or `request_id` in the body), for support tickets.
        public let requestID: String?

        /// An API error with every field given.
        public init(httpStatus: Int, type: String, code: String?, message: String, param: String?, requestID: String?) {
            self.httpStatus = httpStatus
            self.type = type
            self.code = code
            self.message = message
            self.param = param
            self.requestID = requestID
        }

        /// The object does not exist (`404 resource_missing`): "unknown session" on the success page.
        public var isResourceMissing: Bool { code == "resource_missing" || httpStatus == 404 }

        /// The secret key was missing, wrong or lacks permission (a configuration problem).
        public var isAuthenticationFailure: Bool { httpStatus == 401 || httpStatus == 403 }

        public var description: String {
            var text = "Stripe \(httpStatus) \(type)"
            if let code { text += " \(code)" }
            text += ": \(message)"
            if let param { text += " (param \(param))" }
            if let requestID { text += " [\(requestID)]" }
            return text
        }
    }
}
