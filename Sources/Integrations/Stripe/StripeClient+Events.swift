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
    /// - Throws: `StripeRequestError` (a bad cursor or limit, before sending), `StripeAPIError`,
    ///   `UpstreamError` (unreachable, 429, 5xx, or a page that is not a list of events).
    public func listEvents(
        from: Date, to: Date, types: [String], startingAfter: String? = nil, limit: Int = 100
    ) async throws -> StripeEventPage {
        guard (1...100).contains(limit) else { throw StripeRequestError(.invalidConfiguration, "an event page holds 1 to 100 events") }
        guard types.count <= 20 else { throw StripeRequestError(.invalidConfiguration, "Stripe filters on at most 20 event types") }
        if let startingAfter { try Self.validateID(startingAfter, prefix: "evt_", name: "event") }
        var query = [
            "created%5Bgte%5D=\(Self.seconds(from))", "created%5Blte%5D=\(Self.seconds(to))", "limit=\(limit)",
        ]
        query += types.map { "types%5B%5D=" + Self.formEncoded($0) }
        if let startingAfter { query.append("starting_after=" + startingAfter) }
        let path = "/v1/events"
        let request = try makeRequest(method: "GET", path: path, query: query.joined(separator: "&"))
        let list = try await perform(request, path: path, decoding: RawEventList.self, what: "event list")
        var page = StripeEventPage(events: [], unreadable: [], hasMore: list.hasMore, lastID: nil)
        for raw in list.data {
            page.lastID = raw.id
            do {
                page.events.append(try StripeEvent(json: raw.bytes))
            } catch let error as StripeDecodingError {
                page.unreadable.append((raw.id, error.reason))
            }
        }
        return page
    }

    /// `GET /v1/charges/{id}`: a charge named by a dispute that did not carry its payment intent.
    /// - Throws: `StripeRequestError` (not a charge id), `StripeAPIError`, `UpstreamError`.
    public func retrieveCharge(id: String) async throws -> StripeCharge {
        try Self.validateID(id, prefix: "ch_", name: "charge")
        let path = "/v1/charges/\(id)"
        return try await perform(try makeRequest(method: "GET", path: path), path: path, decoding: StripeCharge.self, what: "charge")
    }

    /// `GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=`: the
    /// invoices payment intent `id` paid. Since API version 2025-03-31 neither a Charge nor an
    /// Invoice (unless `payments` is expanded) names the other; this list is the link.
    /// - Throws: `StripeRequestError` (not a payment intent id), `StripeAPIError`, `UpstreamError`.
    public func invoiceIDs(paidBy id: String) async throws -> [String] {
        try Self.validateID(id, prefix: "pi_", name: "payment intent")
        let path = "/v1/invoice_payments"
        let query = "payment%5Btype%5D=payment_intent&payment%5Bpayment_intent%5D=\(id)&limit=10"
        let list = try await perform(try makeRequest(method: "GET", path: path, query: query), path: path, decoding: StripeList<InvoicePayment>.self, what: "invoice payment list")
        return list.data.map(\.invoice.id)
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    private static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

/// An `invoice_payment`: only which invoice it paid.
private struct InvoicePayment: Decodable {
    let invoice: StripeExpandableID
}

/// `{"object": "list", "data": [...], "has_more"}` whose events are kept as their own JSON bytes,
/// so each is decoded (and a bad one skipped) exactly as a webhook body would be.
private struct RawEventList: Decodable {
    struct RawEvent: Decodable {
        let id: String
        let bytes: [UInt8]

        private enum Keys: String, CodingKey { case id }

        init(from decoder: any Decoder) throws {
            id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
            let value = try decoder.singleValueContainer().decode(AnyJSON.self)
            bytes = Array(try JSONSerialization.data(withJSONObject: value.object, options: [.fragmentsAllowed]))
        }
    }

    let data: [RawEvent]
    let hasMore: Bool

    private enum Keys: String, CodingKey {
        case data, object
        case hasMore = "has_more"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        guard try container.decode(String.self, forKey: .object) == "list" else {
            throw DecodingError.dataCorruptedError(forKey: .object, in: container, debugDescription: "not a list")
        }
        data = try container.decode([RawEvent].self, forKey: .data)
        hasMore = try container.decode(Bool.self, forKey: .hasMore)
    }
}

/// Any JSON value, decoded into Foundation objects so it can be written back as bytes.
private struct AnyJSON: Decodable {
    let object: Any

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var dictionary: [String: Any] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(AnyJSON.self, forKey: key).object }
            object = dictionary
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [Any] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(AnyJSON.self).object) }
            object = array
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                object = NSNull()
            } else if let bool = try? single.decode(Bool.self) {
                object = bool
            } else if let integer = try? single.decode(Int64.self) {
                object = integer
            } else if let number = try? single.decode(Double.self) {
                object = number
            } else {
                object = try single.decode(String.self)
            }
        }
    }
}
