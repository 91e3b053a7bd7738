import Foundation
import HTTPCore
import HTTPRouting
import TestSupport

/// Measures, inside one headless Chromium run, whether pages overflow their viewport.
///
/// `--dump-dom` carries no layout, so the layout is measured in the browser: a loopback proxy
/// (`OverflowCheck.Proxy`) serves a frame page that holds every page to measure in an iframe of
/// a device's width, and a script (an external file: the pages' CSP forbids inline scripts)
/// that, once everything has loaded, writes into the frame page's DOM what it measured per
/// frame: the document's scroll width against its viewport's, and every element that crosses
/// the viewport's start or end edge (an element wholly outside it, like a skip link parked at
/// -999px, is placed there on purpose and not counted). The proxy answers everything else from
/// the upstream (the app) and lets the pages be framed by their own origin only, which the
/// script needs to read their documents; the rest of their headers (CSP included) is kept.
enum OverflowCheck {
    /// One page in one viewport width.
    struct Frame: Sendable {
        let label: String
        let path: String
        let width: Int
        let height: Int
    }

    /// What the script measured in one frame.
    struct Measurement: Sendable, CustomStringConvertible {
        let label: String
        let scrollWidth: Int
        let clientWidth: Int
        /// The frame document's `<html lang>` and how many elements it has: proof that the page
        /// itself was measured, not an error answer in its place.
        let lang: String?
        let elements: Int
        /// Elements crossing an edge: `tag.class#id [left, right]`.
        let offenders: [String]
        /// Why the frame could not be measured (not loaded, not same-origin), else nil.
        let error: String?

        var overflows: Bool { error != nil || scrollWidth > clientWidth || !offenders.isEmpty }

        var description: String {
            if let error { return "\(label): not measured (\(error))" }
            return "\(label) (lang \(lang ?? "none"), \(elements) elements): scrollWidth \(scrollWidth) in \(clientWidth)"
                + (offenders.isEmpty ? "" : ", crossing the edge: \(offenders.prefix(8).joined(separator: "; "))")
        }
    }

    static let scriptPath = "/__overflow/measure.js"

    /// The frame page listing `frames` (its own width each), measured by `scriptPath`.
    static func framePage(_ frames: [Frame]) -> String {
        var html = #"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>overflow</title>"#
        html += #"<script src="\#(scriptPath)"></script></head><body>"#
        for frame in frames {
            html +=
                #"<iframe data-label="\#(escape(frame.label))" src="\#(escape(frame.path))" width="\#(frame.width)" height="\#(frame.height)" style="border:0;display:block"></iframe>"#
        }
        return html + #"<pre id="overflow-report"></pre></body></html>"#
    }

    /// Runs in the frame page at `load` (after every frame and what it loads): one JSON entry
    /// per frame, written into `#overflow-report`.
    static let script = #"""
        (function () {
          "use strict";
          function describe(element) {
            var name = element.tagName.toLowerCase();
            if (element.id) { name += "#" + element.id; }
            if (typeof element.className === "string" && element.className) { name += "." + element.className.trim().split(/\s+/).join("."); }
            return name;
          }
          function clipped(element, body) {
            for (var node = element.parentElement; node && node !== body; node = node.parentElement) {
              var style = node.ownerDocument.defaultView.getComputedStyle(node);
              if (style.overflowX !== "visible") { return true; }
            }
            return false;
          }
          function measure(frame) {
            var entry = { label: frame.getAttribute("data-label") };
            var document;
            try { document = frame.contentDocument; } catch (error) { entry.error = String(error); return entry; }
            if (!document || !document.documentElement || !document.body) { entry.error = "no document"; return entry; }
            var root = document.documentElement;
            var width = root.clientWidth;
            entry.scrollWidth = root.scrollWidth;
            entry.clientWidth = width;
            entry.lang = root.getAttribute("lang");
            entry.offenders = [];
            var all = document.body.querySelectorAll("*");
            entry.elements = all.length;
            for (var i = 0; i < all.length; i++) {
              var element = all[i];
              var box = element.getBoundingClientRect();
              if (box.width === 0 || box.height === 0) { continue; }
              var crossesEnd = box.left < width && box.right > width + 0.5;
              var crossesStart = box.right > 0 && box.left < -0.5;
              if ((crossesEnd || crossesStart) && !clipped(element, document.body)) {
                entry.offenders.push(describe(element) + " [" + Math.round(box.left) + ", " + Math.round(box.right) + "]");
              }
            }
            return entry;
          }
          window.addEventListener("load", function () {
            var frames = document.querySelectorAll("iframe[data-label]");
            var results = [];
            for (var i = 0; i < frames.length; i++) { results.push(measure(frames[i])); }
            document.getElementById("overflow-report").textContent = JSON.stringify(results);
          });
        })();
        """#

    /// The measurements in a dumped frame page (empty when the script wrote none).
    static func measurements(in dom: String) -> [Measurement] {
        guard let match = dom.firstMatch(of: /<pre id="overflow-report">([^<]*)<\/pre>/) else { return [] }
        let text = String(match.1).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
        guard let entries = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] else { return [] }
        return entries.map { entry in
            Measurement(
                label: entry["label"] as? String ?? "?",
                scrollWidth: entry["scrollWidth"] as? Int ?? 0,
                clientWidth: entry["clientWidth"] as? Int ?? 0,
                lang: entry["lang"] as? String,
                elements: entry["elements"] as? Int ?? 0,
                offenders: entry["offenders"] as? [String] ?? [],
                error: entry["error"] as? String)
        }
    }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }

    /// A loopback server answering the frame pages (`/__overflow/<name>`) and the script itself,
    /// and every other request from `upstream` with framing by the same origin allowed.
    final class Proxy: Sendable {
        let server: FakeHTTPServer

        /// - Parameter framePages: name → frames, served at `/__overflow/<name>`.
        init(framePages: [String: [Frame]], upstream: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) throws {
            let pages = framePages.mapValues { OverflowCheck.framePage($0) }
            server = try FakeHTTPServer { request in
                if request.path == OverflowCheck.scriptPath {
                    return HTTPResponse(status: .ok, contentType: "text/javascript", body: OverflowCheck.script)
                }
                if request.path.hasPrefix("/__overflow/"), let page = pages[String(request.path.dropFirst("/__overflow/".count))] {
                    return HTTPResponse(status: .ok, contentType: "text/html; charset=utf-8", body: page)
                }
                var response = await upstream(request)
                response.headers.remove("X-Frame-Options")
                if let policy = response.headers["Content-Security-Policy"] {
                    response.headers.set(
                        "Content-Security-Policy", policy.replacingOccurrences(of: "frame-ancestors 'none'", with: "frame-ancestors 'self'"))
                }
                return response
            }
        }

        /// The address of frame page `name`.
        func url(_ name: String) -> String { server.baseURL + "/__overflow/" + name }

        func stop() async { await server.stop() }
    }
}
