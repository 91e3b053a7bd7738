import HTTPCore
import StripeSimulator
import Testing

/// The Stripe simulator's one error type: what each kind answers, and the form decoder naming the
/// parameter Stripe would name.
@Suite("Stripe simulator errors")
struct StripeSimulatorErrorTests {
    @Test("Each kind answers its status and code, with the message as given")
    func statuses() {
        let expected: [(StripeSimulatorError.Kind, Int, String)] = [
            (.notFound, 404, "not_found"), (.forbidden, 403, "forbidden"), (.invalid, 400, "bad_request"),
            (.invalidParameter(param: "a[b"), 400, "bad_request"), (.actionFailed, 502, "bad_gateway")
        ]
        for (kind, status, code) in expected {
            let error = StripeSimulatorError(kind, "say what to do")
            #expect(error.status.code == status && error.code == code, "\(kind)")
            #expect(error.message == "say what to do" && error.description == "say what to do")
        }
    }

    @Test("A form body with a broken parameter name throws .invalidParameter naming it")
    func formDecoding() {
        #expect(throws: StripeSimulatorError(.invalidParameter(param: "a[b"), "Invalid array or hash syntax in parameter name")) {
            try StripeFormValue.decode("a[b=1")
        }
        #expect(throws: StripeSimulatorError(.invalidParameter(param: "a[b]"), "Invalid parameter: a value and a hash share one name")) {
            try StripeFormValue.decode("a=1&a[b]=2")
        }
        #expect(StripeSimulatorError(.invalidParameter(param: "x"), "m").param == "x")
        #expect(StripeSimulatorError(.invalid, "m").param == nil)
    }
}
