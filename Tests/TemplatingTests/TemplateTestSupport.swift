@testable import Templating

/// Renders `source` as a one-template library (plus `partials`) named `page`.
func render(_ source: String, _ context: TemplateValue, partials: [String: String] = [:]) throws -> String {
    var templates = partials
    templates["page"] = source
    return try TemplateLibrary(templates: templates).render("page", context)
}

/// The error thrown while loading `templates`, or nil when they load.
func loadError(_ templates: [String: String]) -> TemplateError? {
    do {
        _ = try TemplateLibrary(templates: templates)
        return nil
    } catch let error as TemplateError {
        return error
    } catch {
        return nil
    }
}
