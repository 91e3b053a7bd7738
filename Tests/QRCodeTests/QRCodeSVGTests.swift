import Foundation
import Testing
@testable import QRCode

@Suite("SVG output")
struct QRCodeSVGTests {
    static let link = "https://pay.example.com/redeem/K7P2-9QXM-4D8R-2WTF?src=desktop"

    @Test("the SVG path covers exactly the dark modules, offset by the quiet zone")
    func pathCarriesModules() throws {
        for text in [Self.link, QRTestSupport.url(length: 300)] {
            let code = try QRCode(encoding: text)
            let svg = code.svg(label: "Redeem link")
            let d = try #require(QRTestSupport.attribute("d", of: "path", in: svg))
            let cells = try #require(QRTestSupport.cells(ofPath: d), "path has an unexpected shape")
            var expected = Set<[Int]>()
            for y in 0..<code.size {
                for x in 0..<code.size where code.isDark(x: x, y: y) {
                    expected.insert([x + QRCode.quietZone, y + QRCode.quietZone])
                }
            }
            #expect(cells == expected)
            // Runs are merged: exactly one subpath per maximal horizontal run of dark modules.
            var runs = 0
            for y in 0..<code.size {
                for x in 0..<code.size where code.isDark(x: x, y: y) && !code.isDark(x: x - 1, y: y) {
                    runs += 1
                }
            }
            #expect(d.filter { $0 == "M" }.count == runs)
            #expect(runs < expected.count)
        }
    }

    @Test("the SVG has a viewBox with the quiet zone, role, crispEdges, colours, and no script or link")
    func structure() throws {
        let code = try QRCode(encoding: Self.link)
        let svg = code.svg(label: "Scan to redeem", foreground: "#123456", background: "white")
        let side = code.size + 8
        #expect(svg.hasPrefix("<svg "))
        #expect(svg.hasSuffix("</svg>"))
        #expect(QRTestSupport.attribute("viewBox", of: "svg", in: svg) == "0 0 \(side) \(side)")
        #expect(QRTestSupport.attribute("role", of: "svg", in: svg) == "img")
        #expect(QRTestSupport.attribute("aria-label", of: "svg", in: svg) == "Scan to redeem")
        #expect(QRTestSupport.attribute("shape-rendering", of: "svg", in: svg) == "crispEdges")
        #expect(QRTestSupport.attribute("fill", of: "rect", in: svg) == "white")
        #expect(QRTestSupport.attribute("width", of: "rect", in: svg) == "\(side)")
        #expect(QRTestSupport.attribute("fill", of: "path", in: svg) == "#123456")
        #expect(svg.components(separatedBy: "<path").count == 2)
        for forbidden in ["<script", "href", "<image", "<use", "<foreignObject", "url("] {
            #expect(!svg.contains(forbidden), "\(forbidden)")
        }
        let defaults = code.svg(label: "x")
        #expect(QRTestSupport.attribute("fill", of: "path", in: defaults) == "#000")
        #expect(QRTestSupport.attribute("fill", of: "rect", in: defaults) == "#fff")
    }

    @Test("label and colours are HTML-escaped and cannot break out of their attributes")
    func escaping() throws {
        let code = try QRCode(encoding: "x")
        let svg = code.svg(
            label: #"Code "K7P2" <script>alert('x')</script> & more"#,
            foreground: #""/><script>1</script>"#, background: "#fff' onload='x")
        #expect(!svg.contains("<script"))
        #expect(!svg.contains("onload='"))
        #expect(
            QRTestSupport.attribute("aria-label", of: "svg", in: svg)
                == "Code &quot;K7P2&quot; &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more")
        #expect(svg.components(separatedBy: "<path").count == 2)
    }

    @Test(
        "the SVG rasterized by rsvg-convert decodes with zbarimg",
        arguments: [
            "https://pay.example.com/redeem/K7P2-9QXM-4D8R-2WTF?src=desktop",
            QRTestSupport.url(length: 300)
        ])
    func rasterizedSVGDecodes(text: String) async throws {
        let code = try QRCode(encoding: text)
        let directory = try QRTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svgFile = directory.appendingPathComponent("symbol.svg")
        let pngFile = directory.appendingPathComponent("symbol.png")
        try Data(code.svg(label: "Redeem link").utf8).write(to: svgFile)
        let pixels = String((code.size + 8) * 5)
        let render = try await QRTestSupport.run("rsvg-convert", ["-w", pixels, "-h", pixels, "-o", pngFile.path, svgFile.path])
        try #require(render.status == 0, "rsvg-convert failed with exit \(render.status)")
        #expect(try await QRTestSupport.decode(imageAt: pngFile) == Array(text.utf8))
    }

    @Test("a ~60-byte redeem link gives a compact SVG")
    func compactSize() throws {
        let code = try QRCode(encoding: Self.link)
        #expect(Self.link.utf8.count == 62)
        let bytes = code.svg(label: "Redeem link").utf8.count
        // Version 4 (33×33, ~550 dark modules): merged runs keep it well under 8 KB.
        #expect(code.version == 4)
        #expect(bytes < 6_000, "SVG is \(bytes) bytes")
    }
}
