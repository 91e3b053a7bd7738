import Foundation
import JSON
import Testing
import TestSupport

@testable import Integrations

/// Send Consumption Information against the fake App Store, which checks the body as Apple does:
/// the current request (`PUT /inApps/v2/transactions/consumption/{id}`), `customerConsented`
/// other than `true` refused with 400 4000035, an unknown `deliveryStatus` with 4000036.
@Suite("App Store: Send Consumption Information")
struct AppStoreConsumptionTests {
    @Test("The answer Apple takes: customerConsented true, the delivery status, sampleContentProvided; nothing else; 202")
    func accepted() async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        try setup.fake.addTransaction(
            AppStoreServerAPIClientTests.transaction("2000000000000301", environment: "Production"), signer: setup.pki.signer(),
            environment: .production)
        try await setup.client.sendConsumptionInformation(
            transactionID: "2000000000000301", deliveryStatus: .delivered, sampleContentProvided: false, environment: .production)
        let seen = try #require(setup.fake.consumptionRequests.last)
        #expect(seen.status == 202 && seen.environment == .production && seen.transactionID == "2000000000000301")
        #expect(seen.fields == ["customerConsented": "true", "deliveryStatus": "DELIVERED", "sampleContentProvided": "false"])
        await #expect(throws: AppStoreError.self, "an unknown transaction is Apple's refusal, not an outage") {
            try await setup.client.sendConsumptionInformation(
                transactionID: "2000000000000999", deliveryStatus: .undeliveredOther, sampleContentProvided: true, environment: .production)
        }
    }

    @Test(
        "The fake refuses as Apple does: customerConsented other than true, an unknown delivery status, a missing sampleContentProvided",
        arguments: [
            (#"{"customerConsented":false,"deliveryStatus":"DELIVERED","sampleContentProvided":true}"#, 4_000_035),
            (#"{"deliveryStatus":"DELIVERED","sampleContentProvided":true}"#, 4_000_035),
            (#"{"customerConsented":"true","deliveryStatus":"DELIVERED","sampleContentProvided":true}"#, 4_000_035),
            (#"{"customerConsented":true,"deliveryStatus":"LOST","sampleContentProvided":true}"#, 4_000_036),
            (#"{"customerConsented":true,"deliveryStatus":"DELIVERED"}"#, 4_000_000)
        ])
    func refused(_ body: String, _ errorCode: Int) async throws {
        let setup = try await AppStoreServerAPIClientTests.setup()
        try setup.fake.addTransaction(
            AppStoreServerAPIClientTests.transaction("2000000000000302", environment: "Production"), signer: setup.pki.signer(),
            environment: .production)
        let response = try await setup.client.send(
            "PUT", setup.client.productionBaseURL, path: "/inApps/v2/transactions/consumption/2000000000000302", body: Array(body.utf8),
            environment: .production)
        #expect(response.status == 400)
        guard case .object(let members)? = try? JSONValue.parse(response.body) else { Issue.record("not JSON"); return }
        #expect(members.first { $0.key == "errorCode" }?.value == .integer(Int64(errorCode)))
    }
}
