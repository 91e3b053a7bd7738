import UseCases
import HTTPCore
import HTTPRouting

/// The token answer of `/auth/token` and `/api/v1/auth/login`.
enum TokenResponse {
    static func json(_ tokens: SessionTokens) -> HTTPResponse {
        .json { json in
            json.string("access_token", tokens.accessToken)
            json.string("refresh_token", tokens.refreshToken)
            json.string("token_type", "Bearer")
            json.int("expires_in", tokens.expiresIn)
            json.string("account_id", tokens.accountID)
        }
    }
}
