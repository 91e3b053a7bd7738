import Crypto

/// What a call proves about the app user it names (API.md "Who may act for an account"): the one
/// rule for redeem, the checkout poll, store claims and a paid checkout. An app user id alone proves
/// nothing; a secret proves the app user when it is one of the secrets bound to it, or when the
/// call creates the app user and binds it.
public enum AppUserProof: Sendable, Equatable {
    /// The caller proved the app user: a bound secret matched, or a bearer of its account.
    case proven
    /// The app user does not exist yet and the call carries a secret: a write that creates the app
    /// user binds it (then the call has proved it); a read proves nothing.
    case bindsNew
    /// No secret is bound to the app user (a new one, or one made before secrets, by `/receipts`,
    /// by a paywall link or by an operator) and the caller sent none that could be bound: the
    /// caller proved nothing, but may still link to it.
    case unproven
    /// Secrets are bound and the call carries none of them: it proves nothing and links nothing
    /// (`secret_mismatch`).
    case mismatch

    /// The judgement for a call naming an app user.
    /// - Parameters:
    ///   - exists: whether the app user exists.
    ///   - bound: hashes of the secrets bound to it.
    ///   - presented: the call's secret, if any.
    ///   - bearerHoldsIt: whether the call's bearer is of the app user's account.
    public static func judge(exists: Bool, bound: [String], presented: InstallSecret?, bearerHoldsIt: Bool) -> AppUserProof {
        if bearerHoldsIt { return .proven }
        if !exists { return presented == nil ? .unproven : .bindsNew }
        guard !bound.isEmpty else { return .unproven }
        guard let presented else { return .mismatch }
        // Every bound hash is compared, in constant time each, whatever matched first.
        var matched = false
        for hash in bound where ConstantTime.equals(Array(hash.utf8), Array(presented.hash.utf8)) { matched = true }
        return matched ? .proven : .mismatch
    }

    /// Whether a write may link something to the app user's account.
    public var mayLink: Bool { self != .mismatch }

    /// Whether the caller proved the app user once the write that carries it is done.
    public var provesOnWrite: Bool { self == .proven || self == .bindsNew }
}
