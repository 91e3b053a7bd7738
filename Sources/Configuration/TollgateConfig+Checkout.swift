extension TollgateConfig {
    /// `checkout`: what web checkout refuses (API.md "Already entitled").
    public struct Checkout: Sendable, Equatable {
        /// `checkout.on_already_entitled`, default `refuse`: a plan whose entitlements the app
        /// user or signed-in account already holds from any store is refused; `allow` lets the
        /// buyer pay again.
        public var onAlreadyEntitled = OnAlreadyEntitled.refuse

        public init() {}
    }
}

/// `checkout.on_already_entitled`: refuse a checkout for what the buyer already holds, or allow it.
public enum OnAlreadyEntitled: String, Sendable, Equatable, CaseIterable {
    case refuse, allow
}
