/// One page of Get Notification History (`POST /inApps/v1/notifications/history`): the
/// notifications the App Store sent (or tried to send) in the requested period, as signed.
///
/// Each `signedPayload` is exactly what the App Store posts to the webhook (`{"signedPayload"}`):
/// verify and apply it as if it had been pushed. While `hasMore` is true, ask again with
/// `paginationToken` and the same dates.
public struct AppStoreNotificationHistoryPage: Sendable, Equatable {
    /// `notificationHistory[].signedPayload`, in the order Apple listed them.
    public let signedPayloads: [String]
    /// Whether another page follows.
    public let hasMore: Bool
    /// The token that asks for the next page; nil when Apple sent none.
    public let paginationToken: String?

    /// A page (the client builds it; tests may too).
    public init(signedPayloads: [String], hasMore: Bool, paginationToken: String?) {
        self.signedPayloads = signedPayloads
        self.hasMore = hasMore
        self.paginationToken = paginationToken
    }
}
