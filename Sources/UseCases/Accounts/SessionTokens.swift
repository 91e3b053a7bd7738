import Domain

/// The tokens a sign-in or redemption hands the app (access, refresh, lifetime, account).
public typealias SessionTokens = SessionRepository.Tokens

/// Why a one-time link (confirmation, password, sign-in) was refused: unknown, expired or used.
public typealias LinkRejection = AuthTokenRepository.Rejection
