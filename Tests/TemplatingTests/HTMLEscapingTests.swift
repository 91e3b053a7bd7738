import Testing
@testable import Templating

@Suite("HTML escaping")
struct HTMLEscapingTests {
    @Test("every special character becomes a character reference")
    func escapesSpecials() {
        #expect(
            HTMLEscaping.escape(#"<a href="x" title='y'>&`=</a>"#)
                == "&lt;a href&#61;&quot;x&quot; title&#61;&#39;y&#39;&gt;&amp;&#96;&#61;&lt;/a&gt;")
    }

    @Test("plain and non-ASCII text passes through unchanged")
    func passesThrough() {
        let text = "Grüße, 日本語, emoji 🎟️ and plain words 123"
        #expect(HTMLEscaping.escape(text) == text)
        #expect(HTMLEscaping.escape("") == "")
    }

    @Test("escaping into a buffer appends after existing bytes")
    func appendsToBuffer() {
        var buffer = Array("x:".utf8)
        HTMLEscaping.escape("a<b", into: &buffer)
        HTMLEscaping.escape("é&", into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "x:a&lt;bé&amp;")
    }

    @Test("a script value is inert in text and in quoted and unquoted attributes")
    func scriptInjection() throws {
        let attack: TemplateValue = [
            "v": "<script>alert(1)</script>",
            "q": #"" onmouseover="alert(1)"#,
            "s": "' onfocus='alert(1)",
            "u": "x onclick=alert(1)"
        ]
        let html = try render(
            #"<p>{{v}}</p><a title="{{q}}" data-x='{{s}}' class={{u}}>"#, attack)
        #expect(
            html == "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"
                + #"<a title="&quot; onmouseover&#61;&quot;alert(1)" data-x='&#39; onfocus&#61;&#39;alert(1)' class=x onclick&#61;alert(1)>"#)
        #expect(!html.contains("<script"))
        #expect(!html.contains(#"" onmouseover"#))
        #expect(!html.contains("' onfocus"))
        #expect(!html.contains("onclick="))
    }
}
