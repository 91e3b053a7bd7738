/// What to do when someone claims a purchase: the one place `redemption.on_other_user` is
/// decided, for redemptions, store claims, `/receipts` and GoNative alike.
public enum OtherUserDecision: Sendable, Equatable {
    /// Nobody holds the purchase: link it to the claimant.
    case link
    /// The claimant already holds it: nothing moves.
    case keep
    /// `switch`: the claimant's app user joins the holder's account (the purchase stays).
    case switchToHolder(String)
    /// `transfer`: the purchase moves to the claimant; the holder loses it.
    case transfer
    /// `reject`, or `switch` where the claimant has no app user to move.
    case reject
}

extension OtherUserPolicy {
    /// The decision for a claim by `claimant` of a purchase held by `holder` (nil: nobody).
    /// - Parameter canSwitch: whether the claimant can join another account (an app user, or a
    ///   signed-in app that may be handed a login for the holder); a bare account cannot.
    public func decide(holder: String?, claimant: String, canSwitch: Bool) -> OtherUserDecision {
        guard let holder else { return .link }
        if holder == claimant { return .keep }
        switch self {
        case .switch: return canSwitch ? .switchToHolder(holder) : .reject
        case .transfer: return .transfer
        case .reject: return .reject
        }
    }
}
