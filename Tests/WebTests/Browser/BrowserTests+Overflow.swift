import Foundation
import HTTPCore
import Integrations
import TestSupport
import Testing

/// Overflow measured in the browser (`OverflowCheck`): the runner the language test uses, and
/// the proof that it catches a page that really overflows.
extension BrowserTests {
    /// A desktop-sized window that loads a frame page with a device's User-Agent (the frames set
    /// their own widths; the pages choose their content by the User-Agent).
    static func frameWindow(as device: BrowserDevice) -> BrowserDevice {
        BrowserDevice(name: device.name + "-frames", userAgent: device.userAgent, width: 1300, height: 900, zoom: 1)
    }

    /// Loads each frame page (`"phone"` as an iPhone, anything else as a desktop) once, through an `OverflowCheck.Proxy` in front of `upstream` (the started app's address),
    /// and answers every frame's measurement. A frame page whose script wrote nothing is recorded
    /// as a failure.
    static func measureOverflow(_ framePages: [String: [OverflowCheck.Frame]], upstream: String, scratch: String) async throws -> [OverflowCheck
        .Measurement]
    {
        let proxy = try OverflowCheck.Proxy(framePages: framePages) { request in
            await Self.forward(request, to: upstream)
        }
        return try await measureOverflow(framePages, through: proxy, scratch: scratch)
    }

    /// Loads each frame page of `proxy` once; see `measureOverflow(_:upstream:scratch:)`.
    static func measureOverflow(_ framePages: [String: [OverflowCheck.Frame]], through proxy: OverflowCheck.Proxy, scratch: String) async throws
        -> [OverflowCheck.Measurement]
    {
        let jobs = framePages.keys.sorted().map { name in
            Job(
                page: Page(name: name, path: "", kind: .home),
                load: BrowserLoad(
                    url: proxy.url(name), device: frameWindow(as: name == "phone" ? .iPhone : .desktop), javaScript: true, dark: false, output: .dom))
        }
        let results = try await run(jobs, scratch: scratch)
        await proxy.stop()
        var measurements: [OverflowCheck.Measurement] = []
        for (job, result) in results {
            let found = OverflowCheck.measurements(in: result.dom)
            if found.isEmpty {
                Issue.record("overflow frame page \(job.page.name): no measurements (status \(result.status))\n\(result.stderr.suffix(2000))")
            }
            measurements += found
        }
        return measurements
    }

    /// `request` sent on to `base` (a GET of a page or what it loads), answered as received.
    static func forward(_ request: HTTPRequest, to base: String) async -> HTTPResponse {
        let passed = ["user-agent", "accept-language", "cookie", "accept"]
        let headers = request.headers.filter { passed.contains($0.name.lowercased()) }.map { (name: $0.name, value: $0.value) }
        guard let url = URL(string: base + request.target),
            let answer = try? await weighingClient.send(OutboundRequest(method: request.method.rawValue, url: url, headers: headers))
        else {
            return HTTPResponse(status: .badGateway, contentType: "text/plain", body: "the app did not answer")
        }
        var response = HTTPResponse(status: HTTPStatus(code: answer.status), body: answer.body)
        let hopByHop: Set<String> = ["content-length", "connection", "transfer-encoding", "keep-alive", "date"]
        for (name, value) in answer.headers where !hopByHop.contains(name) {
            response.headers.set(name, value)
        }
        return response
    }

    @Test(
        "The overflow check catches a page wider than a phone, left to right and right to left (negative proof)",
        .timeLimit(.minutes(5)))
    func overflowCheckCatchesWidePages() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let word = String(repeating: "W", count: 200)  // 200 characters without a break opportunity
        let style = try String(contentsOfFile: PackagePaths.root + "/Public/style.css", encoding: .utf8)
        @Sendable func page(_ direction: String, _ body: String, styled: Bool = false) -> HTTPResponse {
            let link = styled ? #"<link rel="stylesheet" href="/style.css">"# : ""
            return .html(
                Array(
                    #"<!doctype html><html lang="en" dir="\#(direction)"><head><meta name="viewport" content="width=device-width">\#(link)<title>t</title></head><body>\#(body)</body></html>"#
                        .utf8))
        }
        let upstream: @Sendable (HTTPRequest) async -> HTTPResponse = { request in
            switch request.path {
            case "/wide": page("ltr", "<main><h1>\(word)</h1></main>")
            case "/wide-rtl": page("rtl", "<main><h1>\(word)</h1></main>")
            case "/wide-box": page("ltr", #"<main><div style="width: 600px; height: 10px"></div></main>"#)
            // The real stylesheet breaks the same word: nothing crosses the edge.
            case "/wide-styled": page("ltr", "<main><h1>\(word)</h1></main>", styled: true)
            // A skip link parked outside the viewport on purpose is not overflow.
            case "/fits": page("ltr", ##"<a href="#m" style="position:absolute;left:-999px">skip</a><main id="m"><p>Short.</p></main>"##)
            case "/style.css": HTTPResponse(status: .ok, contentType: "text/css", body: style)
            default: HTTPResponse(status: .notFound, contentType: "text/plain", body: "no")
            }
        }
        let frames = ["/wide", "/wide-rtl", "/wide-box", "/wide-styled", "/fits"].map {
            OverflowCheck.Frame(label: $0, path: $0, width: BrowserDevice.iPhone.width, height: BrowserDevice.iPhone.height)
        }
        let proxy = try OverflowCheck.Proxy(framePages: ["phone": frames], upstream: upstream)
        let scratch = try TemporaryDirectory()
        let measured = try await Self.measureOverflow(["phone": frames], through: proxy, scratch: scratch.path)
        let overflowing = Set(measured.filter(\.overflows).map(\.label))
        #expect(measured.count == frames.count, "\(measured)")
        #expect(overflowing == ["/wide", "/wide-rtl", "/wide-box"], "\(measured)")
    }
}
