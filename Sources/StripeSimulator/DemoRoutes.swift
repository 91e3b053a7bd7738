import Foundation
import HTTPCore
import HTTPRouting
import Templating

/// Demo mode's Stripe, mounted only while the simulator is on (otherwise these paths are 404):
/// its API under `/demo/stripe/...` (what `stripe.api_base` points at) and its hosted checkout
/// page `/demo/checkout/{session_id}`, whose form pays, declines or pays later.
///
/// The simulator stands in for an outside system, so these routes call it directly, as the
/// other routes call a use case; Tollgate's own work happens when its webhooks arrive. The
/// composition root mounts them beside the web layer's routes and gives the page renderer
/// (`templates/demo_checkout.html` in the site's layout and catalogs); a refusal is a
/// `StripeSimulatorError`, shown as the site shows any error. Like Stripe's hosted page, the page speaks
/// the session's `locale` (`auto` or none: the browser's language); its texts are catalog keys,
/// and its two form errors are flags (`declined`, `email_invalid`), never English sentences.
public struct DemoRoutes: Sendable {
    /// Renders the hosted checkout page from its values with a status, in the session's `locale`
    /// (nil or `auto`: as the site chooses for `request`).
    public typealias RenderCheckoutPage =
        @Sendable (
            _ values: [String: TemplateValue], _ status: HTTPStatus, _ locale: String?, _ request: HTTPRequest
        ) throws -> HTTPResponse

    let simulator: StripeSimulator
    let render: RenderCheckoutPage

    public init(simulator: StripeSimulator, render: @escaping RenderCheckoutPage) {
        self.simulator = simulator
        self.render = render
    }

    public func add(to group: inout RouteGroup) {
        for method in [HTTPMethod.get, .post, .delete] {
            group.add(method, StripeSimulator.apiPath + "/{path*}", maxBodyBytes: 64 * 1024) { [simulator] request, context in
                await simulator.respond(to: request, path: "/" + (context.parameters["path"] ?? ""))
            }
        }
        group.add(.get, StripeSimulator.checkoutPath + "{session_id}") { [self] request, context in
            try page(request, sessionID: context.parameters["session_id"] ?? "")
        }
        group.add(.post, StripeSimulator.checkoutPath + "{session_id}", maxBodyBytes: 4096) { [self] request, context in
            let sessionID = context.parameters["session_id"] ?? ""
            // CSRF: another site's form cannot know the page's token; browsers that say where a
            // form comes from must say this site.
            if let site = request.headers["Sec-Fetch-Site"], site != "same-origin", site != "none" {
                throw StripeSimulatorError(.forbidden, "This payment form must be sent from its own page.")
            }
            let form = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
            func field(_ name: String) -> String { form.first { $0.name == name }?.value ?? "" }
            guard let choice = StripeSimulator.PaymentChoice(rawValue: field("choice")) else {
                throw StripeSimulatorError(.invalid, "Choose pay, decline or pay later.")
            }
            do {
                switch try await simulator.submit(sessionID: sessionID, formToken: field("token"), email: field("email"), choice: choice) {
                case .redirect(let url):
                    return HTTPResponse(status: .seeOther, headers: ["Location": url, "Cache-Control": "no-store"])
                case .declined:
                    return try page(request, sessionID: sessionID, email: field("email"), status: HTTPStatus(code: 402), error: .declined)
                }
            } catch let error as StripeSimulatorError {
                switch error.kind {
                case .notFound, .forbidden, .invalidParameter, .actionFailed: throw error
                // The one field `submit` checks is the email.
                case .invalid: return try page(request, sessionID: sessionID, email: field("email"), status: .badRequest, error: .emailInvalid)
                }
            }
        }
    }

    /// What the page says went wrong with the last submit.
    private enum PageError: String {
        case declined
        case emailInvalid = "email_invalid"
    }

    private func page(
        _ request: HTTPRequest, sessionID: String, email: String? = nil, status: HTTPStatus = .ok, error: PageError? = nil
    ) throws -> HTTPResponse {
        guard let checkout = simulator.hostedCheckout(id: sessionID) else {
            throw StripeSimulatorError(
                .notFound,
                "This demo checkout does not exist; the demo forgets checkouts when it restarts. Start a new one from the home page.")
        }
        var values: [String: TemplateValue] = [
            "session_id": .string(checkout.sessionID), "token": .string(checkout.formToken),
            "price_id": .string(checkout.priceID), "subscription": .bool(checkout.mode == "subscription"),
            "open": .bool(checkout.isOpen), "email": .string(email ?? checkout.prefilledEmail ?? "")
        ]
        if let error {
            values["error"] = .bool(true)
            values[error.rawValue] = .bool(true)
        }
        if let cancel = checkout.cancelURL { values["cancel_url"] = .string(cancel) }
        return try render(values, status, checkout.locale, request)
    }
}
