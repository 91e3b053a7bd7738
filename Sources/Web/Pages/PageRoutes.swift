import HTTPCore
import HTTPRouting
import Templating

/// The home page, static files under `/static/`, and the OpenAPI document.
struct PageRoutes {
    let pages: Pages
    let staticFiles: StaticFiles
    /// Extra values of the home page (demo mode's section), empty otherwise.
    var home: [String: TemplateValue] = [:]
    /// Whether `base_url` is https (the pre-rendered pages then carry `Strict-Transport-Security`).
    var https = false

    /// The OpenAPI document lives in `Public/openapi.json` and is also served at `/openapi.json`.
    static let openAPIFile = "openapi.json"

    func add(to group: inout RouteGroup) {
        // The home page changes only with the language: rendered once per catalog's language here,
        // so a request chooses its language and copies no more than the response's reference.
        // Each carries its security headers already, and its fields are prepared for the wire: the
        // middleware and the server's serializer find nothing to do on them.
        var rendered: [String: HTTPResponse] = [:]
        for language in pages.templates.languages {
            guard var page = try? pages.render("home", language: language, home) else { continue }
            SecurityHeaders.applyAndPrepare(to: &page, https: https)
            rendered[language] = page
        }
        group.add(.get, "/") { [pages, home, rendered] request, _ in
            let language = pages.language(for: request)
            if let page = rendered[language] { return page }
            return try pages.render("home", language: language, home)
        }
        group.add(.get, "/static/{path*}") { [staticFiles] request, context in
            guard let response = staticFiles.response(for: context.parameters["path"] ?? "", request: request) else {
                throw APIError.notFound()
            }
            return response
        }
        group.add(.get, "/openapi.json") { [staticFiles] request, _ in
            guard var response = staticFiles.response(for: PageRoutes.openAPIFile, request: request) else {
                throw APIError.notFound("The OpenAPI document is not installed.")
            }
            response.headers.set("Access-Control-Allow-Origin", "*")
            return response
        }
    }
}
