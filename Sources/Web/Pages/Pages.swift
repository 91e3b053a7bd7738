import HTTPCore
import HTTPRouting
import Templating

/// Renders the HTML pages in `templates/` with the site-wide values every page needs
/// (the app's name, the page title) and the shared layout partials.
public struct Pages: Sendable {
    public let templates: TemplateLibrary
    private let site: [String: TemplateValue]

    public init(templates: TemplateLibrary, appName: String, baseURL: String) {
        self.templates = templates
        self.site = ["app_name": .string(appName), "base_url": .string(baseURL)]
    }

    /// Renders template `name` with `values` plus the site values and `title`.
    /// - Throws: `TemplateError` when the template does not exist.
    public func render(_ name: String, title: String, status: HTTPStatus = .ok, _ values: [String: TemplateValue] = [:]) throws -> HTTPResponse {
        var context = site
        context["title"] = .string(title)
        for (key, value) in values { context[key] = value }
        var body: [UInt8] = []
        body.reserveCapacity(4096)
        try templates.render(name, .dictionary(context), into: &body)
        return .html(body, status: status)
    }

    /// The error page for `status` (`templates/error.html`, which also gets `status_<code>` = true
    /// to word each status its own way); never fails (falls back to a minimal escaped page).
    public func errorPage(status: HTTPStatus, message: String) -> HTTPResponse {
        let values: [String: TemplateValue] = [
            "status": .int(status.code),
            "reason": .string(status.reasonPhrase),
            "message": .string(message),
            "status_\(status.code)": .bool(true),
        ]
        if let response = try? render("error", title: status.reasonPhrase, status: status, values) {
            return response
        }
        let fallback = "<!doctype html><title>\(status.code)</title><p>\(HTMLEscaping.escape(message))</p>"
        return .html(Array(fallback.utf8), status: status)
    }
}
