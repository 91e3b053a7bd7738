import Integrations
import Testing

/// The store errors' texts, case by case: what logs, report queues and API messages show stays
/// what each error said before they were one type per service.
@Suite("Integrations error texts")
struct ErrorTextTests {
    @Test("StripeError says what its case says")
    func stripe() {
        #expect(StripeError.webhook(.missingHeader).description == "the Stripe-Signature header is missing")
        #expect(
            StripeError.webhook(.timestampOutsideTolerance(ageSeconds: 412, toleranceSeconds: 300)).description
                == "Stripe-Signature timestamp is 412 s old; tolerance is 300 s")
        #expect(StripeError.decoding(.init(what: "event", reason: "field `id` is missing")).description == "Stripe event: field `id` is missing")
        let api = StripeError.API(
            httpStatus: 400, type: "invalid_request_error", code: "parameter_missing", message: "Missing", param: "mode", requestID: "req_1")
        #expect(StripeError.api(api).description == "Stripe 400 invalid_request_error parameter_missing: Missing (param mode) [req_1]")
        #expect(StripeError.request(.init(.invalidID, "not a Stripe session id")).description == "not a Stripe session id")
        #expect(StripeError.api(api).apiError == api && StripeError.api(api).requestError == nil)
    }

    @Test("AppStoreError says `kind: message`, a configuration problem its message alone")
    func appStore() {
        #expect(AppStoreError.verification(.init(.wrongEnvironment, "sandbox data")).description == "wrong_environment: sandbox data")
        #expect(AppStoreError.api(.init(.notASubscription, "a consumable")).description == "not_a_subscription: a consumable")
        #expect(AppStoreError.receipt(.init(.wrongBundleID, "com.other")).description == "wrong_bundle_id: com.other")
        #expect(AppStoreError.configuration(.init("cannot read root certificate file x")).description == "cannot read root certificate file x")
        let token = AppStoreError.externalPurchaseToken(.init(.invalidField, field: "bundleId", "bundleId is missing"))
        #expect(token.description == "invalid_field: bundleId is missing")
        #expect(token.tokenError?.field == "bundleId" && token.verificationError == nil)
    }

    @Test("UpstreamError: an outage reads `service: message`; a report the whole refusal, never retryable")
    func upstream() {
        let outage = UpstreamError(service: "stripe", kind: .badStatus(503), message: "POST /v1/x: 503")
        #expect(outage.description == "stripe: POST /v1/x: 503" && outage.retryable && outage.reportError == nil)
        let invalid = UpstreamError.invalidReport("event e_1: quantity 0 is below 1")
        #expect(invalid.description == "tollgate invalid_report: event e_1: quantity 0 is below 1")
        #expect(!invalid.retryable && invalid.service == "tollgate" && invalid.message == "event e_1: quantity 0 is below 1")
        let refused = UpstreamError(
            report: .init(
                kind: .rejected, service: "app_store", httpStatus: 400, code: "4", message: "refused",
                fieldErrors: [.init(errorCode: 4, errorMessage: "missing", fieldName: "amount", lineItemID: "l1")]))
        #expect(refused.description == "app_store rejected 400 4: refused [4 amount (line item l1): missing]")
        #expect(!refused.retryable && refused.reportError?.httpStatus == 400)
    }
}
