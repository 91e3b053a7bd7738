import Foundation
import HTTPCore
import HTTPRouting

extension FakeGooglePlayCore {
    /// The androidpublisher purchase endpoints (subscriptionsv2 get, products get, acknowledge,
    /// voidedpurchases list).
    func purchasesEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        let rest = request.path.dropFirst("/androidpublisher/v3/applications/".count)
        var segments = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var action: String?
        if let last = segments.last, let colon = last.lastIndex(of: ":") {
            action = String(last[last.index(after: colon)...])
            segments[segments.count - 1] = String(last[..<colon])
        }
        let decoded = segments.map { FormURLEncoding.percentDecode($0) ?? "\u{0}" }
        guard decoded.first == packageName else {
            return Self.googleError(404, "No application was found for the given package name.", reason: "applicationNotFound", status: "NOT_FOUND")
        }
        if decoded.count >= 2, decoded[1] == "externalTransactions" {
            return externalTransactionsEndpoint(request, path: Array(decoded.dropFirst()), action: action)
        }
        switch (request.method, Array(decoded.dropFirst()), action) {
        case (.get, let path, nil) where path.count == 4 && path[0] == "purchases" && path[1] == "subscriptionsv2" && path[2] == "tokens":
            return getSubscription(token: path[3])
        case (.get, let path, nil) where path.count == 5 && path[0] == "purchases" && path[1] == "products" && path[3] == "tokens":
            return getProduct(productID: path[2], token: path[4])
        case (.get, let path, nil) where path == ["purchases", "voidedpurchases"]:
            return listVoided(request)
        case (.post, let path, "acknowledge")
        where path.count == 5 && path[0] == "purchases" && path[3] == "tokens"
            && (path[1] == "subscriptions" || path[1] == "products"):
            return acknowledge(kind: path[1], productID: path[2], token: path[4], body: request.body)
        default:
            return Self.googleError(404, "Not Found", reason: "notFound", status: "NOT_FOUND")
        }
    }

    static func notFound() -> HTTPResponse {
        googleError(404, "The purchase token was not found.", reason: "purchaseTokenNotFound", status: "NOT_FOUND")
    }

    private func getSubscription(token: String) -> HTTPResponse {
        guard let record = state.withLock({ $0.subscriptions[token] }) else { return Self.notFound() }
        let paid = record.state != .pending && record.state != .pendingPurchaseCanceled
        var lineItem: [String: Any] = [
            "productId": record.productID, "expiryTime": Self.rfc3339(record.expiry),
            "autoRenewingPlan": ["autoRenewEnabled": [.active, .inGracePeriod, .onHold, .paused].contains(record.state)],
            "offerDetails": (["basePlanId": "base", "offerTags": [String]()] as [String: Any]).merging(
                record.offerID.map { ["offerId": $0] } ?? [:], uniquingKeysWith: { $1 })
        ]
        if paid { lineItem["latestSuccessfulOrderId"] = record.orderID }
        if let next = record.deferredReplacementProductID { lineItem["deferredItemReplacement"] = ["productId": next] }
        var object: [String: Any] = [
            "kind": "androidpublisher#subscriptionPurchaseV2", "regionCode": "US", "subscriptionState": record.state.rawValue,
            "acknowledgementState": record.acknowledged ? "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED" : "ACKNOWLEDGEMENT_STATE_PENDING",
            "lineItems": [lineItem], "etag": "etag-\(token.utf8.count)"
        ]
        if paid { object["startTime"] = Self.rfc3339(record.startTime) }
        if let account = record.obfuscatedAccountID { object["externalAccountIdentifiers"] = ["obfuscatedExternalAccountId": account] }
        if let linked = record.linkedPurchaseToken { object["linkedPurchaseToken"] = linked }
        if record.testPurchase { object["testPurchase"] = [String: Any]() }
        return HTTPResponse.fakeJSON(object)
    }

    private func getProduct(productID: String, token: String) -> HTTPResponse {
        guard let record = state.withLock({ $0.products[token] }), record.productID == productID else { return Self.notFound() }
        var object: [String: Any] = [
            "kind": "androidpublisher#productPurchase",
            "purchaseTimeMillis": String(Int64((record.purchaseTime.timeIntervalSince1970 * 1000).rounded())),
            "purchaseState": record.state.rawValue, "consumptionState": record.consumed ? 1 : 0, "developerPayload": "",
            "orderId": record.orderID, "acknowledgementState": record.acknowledged ? 1 : 0, "productId": record.productID,
            "purchaseToken": token, "quantity": 1, "regionCode": "US"
        ]
        if let account = record.obfuscatedAccountID { object["obfuscatedExternalAccountId"] = account }
        if record.testPurchase { object["purchaseType"] = 0 }
        return HTTPResponse.fakeJSON(object)
    }

    private func acknowledge(kind: String, productID: String, token: String, body: [UInt8]) -> HTTPResponse {
        if !body.isEmpty, (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] == nil {
            return Self.googleError(400, "Invalid JSON payload received.", reason: "invalid", status: "INVALID_ARGUMENT")
        }
        let invalidState = Self.googleError(
            400, "The purchase is not in a valid state to perform the desired operation.", reason: "invalidPurchaseState", status: "INVALID_ARGUMENT")
        let mismatch = Self.googleError(400, "The product ID does not match the purchase token.", reason: "invalid", status: "INVALID_ARGUMENT")
        return state.withLock { state -> HTTPResponse in
            if kind == "subscriptions" {
                guard var record = state.subscriptions[token] else { return Self.notFound() }
                guard record.productID == productID else { return mismatch }
                let paid = ![.pending, .pendingPurchaseCanceled, .expired].contains(record.state)
                guard paid, !record.acknowledged else { return invalidState }
                record.acknowledged = true
                state.subscriptions[token] = record
            } else {
                guard var record = state.products[token] else { return Self.notFound() }
                guard record.productID == productID else { return mismatch }
                guard record.state == .purchased, !record.acknowledged else { return invalidState }
                record.acknowledged = true
                state.products[token] = record
            }
            state.acknowledgements.append(FakeGooglePlay.Acknowledgement(kind: kind, productID: productID, purchaseToken: token))
            return HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: [])
        }
    }

    /// `2023-12-14T22:13:20.123Z`, as Google writes timestamps.
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
