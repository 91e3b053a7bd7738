import Domain
import HTTPServer

/// The token answer of `/auth/token` and `/api/v1/auth/login`.
enum TokenResponse {
    static func json(_ tokens: SessionRepository.Tokens) -> HTTPResponse {
        .json { json in
            json.string("access_token", tokens.accessToken)
            json.string("refresh_token", tokens.refreshToken)
            json.string("token_type", "Bearer")
            json.int("expires_in", tokens.expiresIn)
            json.string("account_id", tokens.accountID)
        }
    }

    /// `400 invalid_grant` in the API.md error shape (OAuth's name for a bad code or token).
    static func invalidGrant(_ message: String) -> APIError {
        APIError(status: .badRequest, code: "invalid_grant", message: message)
    }
}
