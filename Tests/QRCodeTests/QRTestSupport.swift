import Foundation
import TestSupport
import Testing
@testable import QRCode

/// Helpers shared by the QR tests: temp directories, netpbm rendering, external tools.
enum QRTestSupport {
    /// A fresh directory for one test's files.
    static func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("qrcode-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Encodes `bytes` off the concurrency pool. A version 30-40 symbol takes about a second of
    /// CPU in a debug build (mask scoring dominates); awaited here, it does not hold one of the
    /// pool's two threads while other suites' servers need them.
    static func encode(bytes: [UInt8]) async throws -> QRCode {
        try await offPool { try QRCode(bytes: bytes) }
    }

    /// `QRCode(encoding:)` off the concurrency pool, for large texts (see `encode(bytes:)`).
    static func encode(text: String) async throws -> QRCode {
        try await offPool { try QRCode(encoding: text) }
    }

    /// A binary PGM (P5) of `code` with `pixelsPerModule` pixels per module and the
    /// four-module quiet zone: the decoder sees exactly the module matrix.
    static func pgm(of code: QRCode, pixelsPerModule: Int = 4) -> Data {
        let quiet = QRCode.quietZone
        let side = (code.size + 2 * quiet) * pixelsPerModule
        var data = Data("P5\n\(side) \(side)\n255\n".utf8)
        data.reserveCapacity(data.count + side * side)
        for py in 0..<side {
            let y = py / pixelsPerModule - quiet
            for px in 0..<side {
                let x = px / pixelsPerModule - quiet
                data.append(code.isDark(x: x, y: y) ? 0 : 255)
            }
        }
        return data
    }

    /// Runs `tool` from PATH with `arguments`, off the concurrency pool; returns its exit status
    /// and standard output. Fails the test, with the fix in the message, when the tool is not installed.
    static func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: Data) {
        let path = try #require(
            ChildProcessRunner.locate(tool),
            "\(tool) is not installed; run scripts/install-test-tools (installs zbar-tools and librsvg2-bin)"
        )
        let result = try await ChildProcessRunner.run(path, arguments)
        return (result.status, result.stdout)
    }

    /// The bytes `zbarimg` reads from the image at `url` (raw bytes, no charset guessing).
    static func decode(imageAt url: URL) async throws -> [UInt8] {
        let result = try await run("zbarimg", ["--raw", "-q", "-Sbinary", url.path])
        try #require(result.status == 0, "zbarimg found no QR code in \(url.lastPathComponent) (exit \(result.status))")
        return [UInt8](result.output)
    }

    /// Renders `code` to a PGM in a fresh directory and returns what zbarimg decodes.
    static func decode(_ code: QRCode, pixelsPerModule: Int = 4) async throws -> [UInt8] {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("symbol.pgm")
        try pgm(of: code, pixelsPerModule: pixelsPerModule).write(to: file)
        return try await decode(imageAt: file)
    }

    /// The dark cells (in SVG user units, quiet zone included) that an SVG path made of
    /// `M x y h n v 1 h -n z` commands covers; nil when the path has any other shape.
    static func cells(ofPath d: String) -> Set<[Int]>? {
        var cells = Set<[Int]>()
        var scanner = Substring(d)
        func number() -> Int? {
            var digits = ""
            if scanner.first == "-" { digits.append("-"); scanner.removeFirst() }
            while let c = scanner.first, c.isNumber { digits.append(c); scanner.removeFirst() }
            while scanner.first == " " { scanner.removeFirst() }
            return Int(digits)
        }
        func expect(_ command: Character) -> Bool {
            guard scanner.first == command else { return false }
            scanner.removeFirst()
            return true
        }
        while !scanner.isEmpty {
            guard expect("M"), let x = number(), let y = number(),
                expect("h"), let width = number(), width > 0,
                expect("v"), number() == 1,
                expect("h"), number() == -width,
                expect("z")
            else { return nil }
            for cx in x..<(x + width) { cells.insert([cx, y]) }
        }
        return cells
    }

    /// The value of attribute `name` on the first element named `element` in `svg`.
    static func attribute(_ name: String, of element: String, in svg: String) -> String? {
        guard let elementStart = svg.range(of: "<\(element) ") else { return nil }
        let rest = svg[elementStart.upperBound...]
        guard let end = rest.firstIndex(of: ">") else { return nil }
        let tag = " " + rest[..<end]
        guard let valueStart = tag.range(of: " \(name)=\"") else { return nil }
        let value = tag[valueStart.upperBound...]
        guard let close = value.firstIndex(of: "\"") else { return nil }
        return String(value[..<close])
    }

    /// A redeem-style https URL of exactly `length` bytes.
    static func url(length: Int) -> String {
        let prefix = "https://pay.example.com/redeem/"
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789-")
        var url = prefix
        var i = 0
        while url.utf8.count < length {
            url.append(alphabet[(i * 7 + 3) % alphabet.count])
            i += 1
        }
        return String(url.prefix(length))
    }

    /// The standard's byte-mode capacity at level M for versions 1...40 (ISO/IEC 18004 Table 7).
    static let standardByteCapacityM: [Int] = [
        14, 26, 42, 62, 84, 106, 122, 152, 180, 213,
        251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
        711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370,
        1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331
    ]
}
