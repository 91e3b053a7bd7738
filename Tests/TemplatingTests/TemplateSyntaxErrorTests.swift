import Testing
@testable import Templating

@Suite("Template syntax errors")
struct TemplateSyntaxErrorTests {
    /// Parses `source` as file `templates/success.html` and returns the error description.
    private func parseError(_ source: String) -> String? {
        do {
            _ = try Template(name: "success", source: source, file: "templates/success.html")
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test("an unclosed tag points at its opening braces")
    func unclosedTag() {
        #expect(
            parseError("line one\nline two\n  <b>{{name</b>\n")
                == "templates/success.html:3:6: tag opened here is never closed")
        #expect(
            parseError("a\nb\n{{{raw}}")
                == "templates/success.html:3:1: triple-brace tag opened here is never closed with }}}")
        #expect(parseError("a\nb\nend {{") == "templates/success.html:3:5: tag opened here is never closed")
    }

    @Test("an unclosed section points at where it was opened")
    func unclosedSection() {
        #expect(
            parseError("<p>\n</p>\n    {{#code}}\n<b>{{code}}</b>\n")
                == "templates/success.html:3:5: section \"code\" opened here is never closed")
        #expect(
            parseError("{{#a}}\n{{#b}}\n  {{^c}}\n{{/b}}{{/a}}")
                == "templates/success.html:4:1: closing tag {{/b}} does not match section \"c\" opened at line 3, column 3")
    }

    @Test("a mismatched closing tag names both sections")
    func mismatchedClose() {
        #expect(
            parseError("x\ny\n{{#a}}z{{/b}}")
                == "templates/success.html:3:8: closing tag {{/b}} does not match section \"a\" opened at line 3, column 1")
    }

    @Test("a closing tag without a section is an error")
    func strayClose() {
        #expect(parseError("x\ny\nz {{/a}}") == "templates/success.html:3:3: closing tag {{/a}} has no open section")
    }

    @Test("empty and invalid names, and set-delimiter tags, are errors")
    func invalidNames() {
        #expect(parseError("1\n2\n{{ }}") == "templates/success.html:3:1: tag has no name")
        #expect(
            parseError("1\n2\nab{{a b}}")
                == "templates/success.html:3:3: invalid name \"a b\" (use letters, digits, _ and -, joined by .)")
        #expect(parseError("1\n2\n{{#a..b}}{{/a..b}}")?.hasPrefix("templates/success.html:3:1: invalid name") == true)
        #expect(parseError("1\n2\n{{> ../x}}") == "templates/success.html:3:1: invalid partial name \"../x\"")
        #expect(parseError("1\n2\n{{=<% %>=}}") == "templates/success.html:3:1: set-delimiter tags are not supported")
    }

    @Test("columns count characters, not bytes")
    func unicodeColumns() {
        #expect(parseError("ok\nok\nGrüße 🎟️ {{#x}}") == "templates/success.html:3:9: section \"x\" opened here is never closed")
    }

    @Test("without a file the template name is reported")
    func nameAsFile() {
        let error = #expect(throws: TemplateError.self) { try Template(name: "email/x", source: "{{#a}}") }
        #expect(error == TemplateError(file: "email/x", line: 1, column: 1, message: "section \"a\" opened here is never closed"))
    }

    @Test("an unknown partial fails at load time at the partial tag")
    func unknownPartial() {
        let error = loadError(["page": "a\nb\n  {{> layout_footer}}\n"])
        #expect(error?.description == "page:3:3: unknown partial \"layout_footer\"")
    }

    @Test("a tag's position is right after other tags on earlier lines and earlier on its own line")
    func positionsAfterOtherTags() {
        let source = "{{> known}} Grüße\n{{#s}}🎟️ {{> known}}{{/s}}\n\n  é {{> known}} {{> missing}}\n{{> known}}"
        #expect(loadError(["page": source, "known": "k"])?.description == "page:4:17: unknown partial \"missing\"")
    }

    @Test("a partial that includes itself, directly or through another, fails at load time")
    func recursivePartials() {
        #expect(
            loadError(["page": "{{> self}}", "self": "x\n{{#a}}{{> self}}{{/a}}"])?.description
                == "self:2:7: partial \"self\" includes itself: page → self → self")
        #expect(
            loadError(["a": "1\n2\n{{> b}}", "b": "{{> a}}"])?.description
                == "b:1:1: partial \"a\" includes itself: a → b → a")
    }

    @Test("partials nested deeper than the limit fail at load time")
    func depthLimit() throws {
        let limit = TemplateLibrary.maximumPartialDepth
        var deep: [String: String] = [:]
        for level in 0...limit { deep["p\(level)"] = "{{> p\(level + 1)}}" }
        deep["p\(limit + 1)"] = "end"
        let error = try #require(loadError(deep))
        #expect(error.message.hasPrefix("partials nest deeper than \(limit) levels: p0 → p1 →"))
        #expect(error.file == "p\(limit)")
        // One level less is fine.
        deep["p\(limit)"] = "end"
        deep["p\(limit + 1)"] = nil
        #expect(try TemplateLibrary(templates: deep).render("p0", [:]) == "end")
    }
}
