import Foundation

/// A promotion code as `GET /v1/promotion_codes` lists it: the id Checkout takes for the code a
/// customer types.
public struct StripePromotionCode: Sendable, Equatable, Decodable {
    /// `promo_...`.
    public let id: String
    /// The customer-facing code.
    public let code: String
    public let active: Bool
}

extension StripeClient {
    private struct PromotionCodeList: Decodable {
        let data: [StripePromotionCode]
    }

    /// The active promotion code whose customer-facing code is `code`, or nil when Stripe has none
    /// (`GET /v1/promotion_codes?code=...&active=true`).
    /// - Throws: `StripeError.request` (a code with characters Stripe codes never have),
    ///   `StripeError.api`, `UpstreamError`.
    public func findPromotionCode(_ code: String) async throws -> StripePromotionCode? {
        let valid =
            !code.isEmpty && code.utf8.count <= 200
            && code.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0)) }
        guard valid else {
            throw StripeError.request(.init(.invalidParameter, "a promotion code is 1 to 200 letters, digits, _, - or ."))
        }
        let path = "/v1/promotion_codes"
        let request = try makeRequest(method: "GET", path: path, query: "code=\(code)&active=true&limit=1")
        let list = try await perform(request, path: path, decoding: PromotionCodeList.self, what: "list")
        return list.data.first { $0.active && $0.code.caseInsensitiveCompare(code) == .orderedSame }
    }
}
