import Foundation

/// One page of `GET /v1/events`: the events Stripe kept (30 days), newest first as Stripe lists
/// them, and whether older ones follow (`starting_after` the last id).
public struct StripeEventPage: Sendable {
    /// The events of the page that could be read, in Stripe's order (newest first).
    public var events: [StripeEvent]
    /// Events of a handled type whose object could not be read: their ids and why (logged and
    /// skipped, as the webhook endpoint acknowledges and drops them).
    public var unreadable: [(id: String, reason: String)]
    /// Whether more (older) events match.
    public var hasMore: Bool
    /// The id of the page's last (oldest) event: `starting_after` for the next page.
    public var lastID: String?
}

extension StripeClient {
    /// `GET /v1/events`: the events of `types` created in `[from, to]` (whole seconds, both ends
    /// included), `limit` per page (1–100), after `startingAfter` when paging.
    /// - Throws: `StripeError.request` (a bad cursor or limit, before sending), `StripeError.api`,
    ///   `UpstreamError` (unreachable, 429, 5xx, or a page that is not a list of events).
    public func listEvents(
        from: Date, to: Date, types: [String], startingAfter: String? = nil, limit: Int = 100
    ) async throws -> StripeEventPage {
        guard (1...100).contains(limit) else { throw StripeError.request(.init(.invalidConfiguration, "an event page holds 1 to 100 events")) }
        guard types.count <= 20 else { throw StripeError.request(.init(.invalidConfiguration, "Stripe filters on at most 20 event types")) }
        if let startingAfter { try Self.validateID(startingAfter, prefix: "evt_", name: "event") }
        var query = [
            "created%5Bgte%5D=\(Self.seconds(from))", "created%5Blte%5D=\(Self.seconds(to))", "limit=\(limit)"
        ]
        query += types.map { "types%5B%5D=" + Self.formEncoded($0) }
        if let startingAfter { query.append("starting_after=" + startingAfter) }
        let path = "/v1/events"
        let request = try makeRequest(method: "GET", path: path, query: query.joined(separator: "&"))
        let body = try await performBytes(request, path: path)
        guard let list = StripeListBytes(body) else {
            throw UpstreamError(service: "stripe", kind: .invalidResponse, message: "GET \(path): Stripe answered with an unreadable event list")
        }
        var page = StripeEventPage(events: [], unreadable: [], hasMore: list.hasMore, lastID: nil)
        for element in list.elements {
            // Each event is decoded from its own bytes, exactly as a webhook body is: a bad one is
            // reported alone.
            do {
                let event = try StripeEvent(json: Array(element))
                page.lastID = event.id
                page.events.append(event)
            } catch StripeError.decoding(let error) {
                let id = (try? JSONDecoder().decode(EventID.self, from: Data(element)))?.id ?? ""
                page.lastID = id.isEmpty ? page.lastID : id
                page.unreadable.append((id, error.reason))
            }
        }
        return page
    }

    /// `GET /v1/charges/{id}`: a charge named by a dispute that did not carry its payment intent.
    /// - Throws: `StripeError.request` (not a charge id), `StripeError.api`, `UpstreamError`.
    public func retrieveCharge(id: String) async throws -> StripeCharge {
        try Self.validateID(id, prefix: "ch_", name: "charge")
        let path = "/v1/charges/\(id)"
        return try await perform(try makeRequest(method: "GET", path: path), path: path, decoding: StripeCharge.self, what: "charge")
    }

    /// `GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=`: the
    /// invoices payment intent `id` paid. Since API version 2025-03-31 neither a Charge nor an
    /// Invoice (unless `payments` is expanded) names the other; this list is the link.
    /// - Throws: `StripeError.request` (not a payment intent id), `StripeError.api`, `UpstreamError`.
    public func invoiceIDs(paidBy id: String) async throws -> [String] {
        try Self.validateID(id, prefix: "pi_", name: "payment intent")
        let path = "/v1/invoice_payments"
        let query = "payment%5Btype%5D=payment_intent&payment%5Bpayment_intent%5D=\(id)&limit=10"
        let list = try await perform(
            try makeRequest(method: "GET", path: path, query: query), path: path, decoding: StripeList<InvoicePayment>.self,
            what: "invoice payment list")
        return list.data.map(\.invoice.id)
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    private static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

/// An event's id alone (to name one whose object cannot be read).
private struct EventID: Decodable {
    let id: String
}

/// An `invoice_payment`: only which invoice it paid.
private struct InvoicePayment: Decodable {
    let invoice: StripeExpandableID
}
