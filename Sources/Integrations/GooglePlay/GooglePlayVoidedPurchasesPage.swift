import Foundation
import JSON

/// One page of `purchases.voidedpurchases.list` (`VoidedPurchasesListResponse`).
public struct GooglePlayVoidedPurchasesPage: Sendable, Equatable {
    /// `voidedPurchases[]` (Google omits the member when the page is empty).
    public let voidedPurchases: [GooglePlayVoidedPurchase]
    /// `tokenPagination.nextPageToken`: pass it as `pageToken` for the next page; nil on the last.
    public let nextPageToken: String?

    /// Creates a page.
    public init(voidedPurchases: [GooglePlayVoidedPurchase], nextPageToken: String?) {
        self.voidedPurchases = voidedPurchases
        self.nextPageToken = nextPageToken
    }

    /// Parses a `VoidedPurchasesListResponse` JSON object.
    /// - Throws: `UpstreamError(.invalidResponse)` when it is not one.
    public init(json: [UInt8]) throws {
        func invalid(_ why: String) -> UpstreamError {
            UpstreamError(service: GooglePlayClient.service, kind: .invalidResponse, message: "the voided purchases list \(why)")
        }
        guard let object = GoogleJSON.object(json) else { throw invalid("is not a JSON object") }
        var purchases: [GooglePlayVoidedPurchase] = []
        if let list = object["voidedPurchases"] {
            guard let items = list.arrayElements else { throw invalid("has a voidedPurchases member that is not an array") }
            for item in items {
                guard let entry = item.objectValue else { throw invalid("has an entry that is not an object") }
                purchases.append(try GooglePlayVoidedPurchase(json: entry))
            }
        }
        self.init(voidedPurchases: purchases, nextPageToken: object["tokenPagination"]?["nextPageToken"]?.nonEmptyString)
    }
}
