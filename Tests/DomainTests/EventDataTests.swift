import Foundation
import Testing

@testable import Domain

/// What an event's `data` says of a purchase's stored attribution, and the bytes of the body:
/// values keep their JSON types and keys are sorted at every depth.
@Suite("Event data")
struct EventDataTests {
    @Test("Attribution keeps its values' types (true, 1, 0, \"1\", an Int64 amount) and gathers ply_* into ply_context")
    func attributionTypes() throws {
        let stored =
            #"{"utm_source":"news/letter","ply_paid":true,"ply_n":1,"ply_zero":0,"campaign_id":"1","#
            + #""conversion_details":{"amount":9007199254740993,"free":false}}"#
        let attribution = try #require(EventData.attribution(stored))
        let body = EventQueue.body(
            id: "evt_1", type: .purchaseCreated, occurredAt: Date(timeIntervalSince1970: 1_700_000_000), sequence: 3,
            data: ["purchase_id": .null, "attribution": attribution])
        #expect(
            body == #"{"id":"evt_1","type":"purchase.created","occurred_at":"2023-11-14T22:13:20Z","sequence":3,"data":{"#
                + #""attribution":{"campaign_id":"1","conversion_details":{"amount":9007199254740993,"free":false},"#
                + #""ply_context":{"n":1,"paid":true,"zero":0},"utm_source":"news/letter"},"purchase_id":null}}"#)
        #expect(EventData.attribution(nil) == nil)
        #expect(EventData.attribution("{}") == nil)
        #expect(EventData.attribution("[1]") == nil)
        #expect(EventData.attribution("not json") == nil)
    }
}
