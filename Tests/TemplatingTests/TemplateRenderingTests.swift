import Testing
@testable import Templating

@Suite("Template rendering")
struct TemplateRenderingTests {
    @Test("variables: strings, integers, booleans; null and missing render nothing")
    func variables() throws {
        let context: TemplateValue = ["s": "text", "n": -42, "big": 9_000_000_000, "yes": true, "no": false, "nothing": nil]
        #expect(
            try render("{{s}}|{{n}}|{{big}}|{{yes}}|{{no}}|{{nothing}}|{{missing}}|{{ s }}", context)
                == "text|-42|9000000000|true|false|||text")
    }

    @Test("raw forms {{{x}}} and {{& x}} do not escape; {{x}} does")
    func rawForms() throws {
        let context: TemplateValue = ["body": "<b>bold</b> & <svg/>"]
        #expect(
            try render("{{{body}}}|{{& body}}|{{&body}}|{{{ body }}}", context)
                == "<b>bold</b> & <svg/>|<b>bold</b> & <svg/>|<b>bold</b> & <svg/>|<b>bold</b> & <svg/>")
        #expect(try render("{{body}}", context) == "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;svg/&gt;")
    }

    @Test("dotted names reach into nested dictionaries; a broken path renders nothing")
    func dottedNames() throws {
        let context: TemplateValue = ["a": ["b": ["c": "deep"]], "x": "top"]
        #expect(try render("{{a.b.c}}|{{a.b.missing}}|{{a.missing.c}}|{{x.y}}", context) == "deep|||")
        #expect(try render("{{#a.b}}{{c}}{{/a.b}}", context) == "deep")
    }

    @Test("sections over true, false, null, missing, empty string, zero and empty list")
    func sectionTruthiness() throws {
        let context: TemplateValue = ["t": true, "f": false, "n": nil, "e": "", "z": 0, "l": [], "s": "x", "i": 3]
        let source =
            "{{#t}}T{{/t}}{{#f}}F{{/f}}{{#n}}N{{/n}}{{#missing}}M{{/missing}}{{#e}}E{{/e}}{{#z}}Z{{/z}}{{#l}}L{{/l}}{{#s}}S{{.}}{{/s}}{{#i}}I{{.}}{{/i}}"
        #expect(try render(source, context) == "TSxI3")
    }

    @Test("a list section renders once per item with the item as context")
    func listSection() throws {
        let context: TemplateValue = ["items": [["name": "a"], ["name": "b<"], ["name": "c"]]]
        #expect(
            try render("<ul>{{#items}}<li>{{name}}</li>{{/items}}</ul>", context)
                == "<ul><li>a</li><li>b&lt;</li><li>c</li></ul>")
    }

    @Test("a dictionary section renders once with the dictionary pushed")
    func dictionarySection() throws {
        let context: TemplateValue = ["user": ["email": "a@b.c"], "email": "outer"]
        #expect(try render("{{#user}}{{email}}{{/user}}/{{email}}", context) == "a@b.c/outer")
    }

    @Test("inverted sections render exactly when the section would not")
    func invertedSections() throws {
        let context: TemplateValue = ["t": true, "f": false, "l": [], "full": [1], "n": nil]
        let source = "{{^t}}1{{/t}}{{^f}}2{{/f}}{{^l}}3{{/l}}{{^full}}4{{/full}}{{^n}}5{{/n}}{{^missing}}6{{/missing}}"
        #expect(try render(source, context) == "2356")
    }

    @Test("nested lists with {{.}} render every item")
    func nestedLists() throws {
        let context: TemplateValue = ["rows": [[1, 2], [3], []], "words": ["x", "<y>"]]
        #expect(try render("{{#rows}}[{{#.}}{{.}},{{/.}}]{{/rows}}", context) == "[1,2,][3,][]")
        #expect(try render("{{#words}}{{.}} {{/words}}", context) == "x &lt;y&gt; ")
    }

    @Test("names not found in the item are looked up in outer contexts")
    func contextStack() throws {
        let context: TemplateValue = [
            "currency": "EUR", "shop": "Tollgate",
            "products": [["name": "Pro", "price": 5], ["name": "Max", "price": 9, "currency": "USD"]]
        ]
        #expect(
            try render("{{#products}}{{name}} {{price}} {{currency}} @ {{shop}}; {{/products}}", context)
                == "Pro 5 EUR @ Tollgate; Max 9 USD @ Tollgate; ")
        // A dotted name resolves its first key outward, the rest only inside what was found.
        let nested: TemplateValue = ["a": ["b": "outer"], "items": [["a": ["c": 1]]]]
        #expect(try render("{{#items}}[{{a.b}}]{{/items}}", nested) == "[]")
    }

    @Test("a key holding null hides the same key further out")
    func nullShadows() throws {
        let context: TemplateValue = ["name": "outer", "inner": ["name": nil]]
        #expect(try render("{{#inner}}[{{name}}]{{/inner}}", context) == "[]")
    }

    @Test("partials render with the current context, including inside a list")
    func partials() throws {
        let partials = [
            "layout_header": "<h1>{{title}}</h1>",
            "row": "<li>{{name}} ({{title}})</li>",
            "email/footer": "-- {{shop}}"
        ]
        let context: TemplateValue = ["title": "T&C", "shop": "Tollgate", "items": [["name": "a"], ["name": "b"]]]
        #expect(
            try render("{{> layout_header}}<ul>{{#items}}{{>row}}{{/items}}</ul>{{> email/footer}}", context, partials: partials)
                == "<h1>T&amp;C</h1><ul><li>a (T&amp;C)</li><li>b (T&amp;C)</li></ul>-- Tollgate")
    }

    @Test("partials may include partials")
    func nestedPartials() throws {
        let partials = ["outer": "[{{> inner}}]", "inner": "<{{x}}>"]
        #expect(try render("{{> outer}}", ["x": "1"], partials: partials) == "[<1>]")
    }

    @Test("comments render nothing, including multi-line comments")
    func comments() throws {
        #expect(try render("a{{! a comment with {braces} }}b{{!\nline two\n}}c", [:]) == "abc")
    }

    @Test("standalone section, inverted, comment and partial lines leave no blank lines")
    func standaloneLines() throws {
        let source = """
            <ul>
              {{#items}}
              <li>{{.}}</li>
              {{/items}}
              {{^items}}
              <li>none</li>
              {{/items}}
            {{! a comment line }}
              {{> foot}}
            </ul>
            """
        let partials = ["foot": "<!--end-->\n"]
        #expect(
            try render(source, ["items": ["a", "b"]], partials: partials)
                == "<ul>\n  <li>a</li>\n  <li>b</li>\n<!--end-->\n</ul>")
        #expect(
            try render(source, ["items": []], partials: partials)
                == "<ul>\n  <li>none</li>\n<!--end-->\n</ul>")
    }

    @Test("tags sharing a line with text or other tags keep the line")
    func nonStandaloneLines() throws {
        #expect(try render("a {{#t}}x{{/t}} b\n{{#t}}{{/t}}\nc {{! note }}\n", ["t": true]) == "a x b\n\nc \n")
        // Variables are never standalone.
        #expect(try render("  {{v}}\nnext", ["v": "1"]) == "  1\nnext")
    }

    @Test("standalone lines ending in CRLF and at the end of the source are removed whole")
    func standaloneCRLFAndEnd() throws {
        #expect(try render("a\r\n{{#t}}\r\nb\r\n{{/t}}", ["t": true]) == "a\r\nb\r\n")
    }

    @Test("unicode in templates and values passes through unchanged")
    func unicode() throws {
        let context: TemplateValue = ["name": "Zoë 👩‍💻 日本", "list": ["ä", "ß"]]
        #expect(try render("¡Hola {{name}}! {{#list}}«{{.}}»{{/list}} ✓", context) == "¡Hola Zoë 👩‍💻 日本! «ä»«ß» ✓")
    }

    @Test(".txt templates are plain text: {{x}} is not HTML-escaped")
    func plainTextTemplates() throws {
        let library = try TemplateLibrary(templates: [
            "email/code.txt": "Hi {{name}}, code {{code}}\n{{> email/sig.txt}}",
            "email/sig.txt": "-- {{shop}}",
            "email/code": "<p>Hi {{name}}</p>"
        ])
        let context: TemplateValue = ["name": "O'Brien & <Co>", "code": "AB-12", "shop": "A&B"]
        #expect(try library.render("email/code.txt", context) == "Hi O'Brien & <Co>, code AB-12\n-- A&B")
        #expect(try library.render("email/code", context) == "<p>Hi O&#39;Brien &amp; &lt;Co&gt;</p>")
    }

    @Test("rendering into a buffer appends; the same library renders many times identically")
    func renderIntoBuffer() throws {
        let library = try TemplateLibrary(templates: ["a": "<{{x}}>"])
        var buffer = Array("start".utf8)
        try library.render("a", ["x": "1"], into: &buffer)
        try library.render("a", ["x": "2"], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "start<1><2>")
    }

    @Test("an unknown template name is a TemplateError naming it")
    func unknownTemplate() throws {
        let library = try TemplateLibrary(templates: ["a": "x"])
        #expect(library.contains("a"))
        #expect(!library.contains("b"))
        #expect(library.names == ["a"])
        let error = #expect(throws: TemplateError.self) { try library.render("b", [:]) }
        #expect(error?.description.contains("no template named \"b\"") == true)
    }
}
