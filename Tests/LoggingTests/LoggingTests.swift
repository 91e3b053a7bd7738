import Foundation
import Glibc
import Logging
import Testing

@Suite("Structured logs")
struct LoggingTests {
    @Test("Each line is one JSON object with the logger's fields, escaped")
    func jsonLines() throws {
        let sink = MemoryLogSink()
        let logger = Logger(sink: sink).with([("request_id", "abc")])
        logger.info("request", [("path", "/a\"b\n"), ("status", 200), ("ok", true)])
        logger.debug("dropped")
        let line = try #require(sink.lines.first)
        #expect(sink.lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "request")
        #expect(object["request_id"] as? String == "abc")
        #expect(object["path"] as? String == "/a\"b\n")
        #expect(object["status"] as? Int == 200)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let stamp = try #require(object["ts"] as? String)
        #expect(stamp.count == 24 && stamp.hasSuffix("Z"))
        let logged = try #require(formatter.date(from: stamp))
        #expect(abs(logged.timeIntervalSinceNow) < 60)
    }

    @Test("Fields added by `with` come after the logger's own, in order and escaped, and only on the copy's lines")
    func fieldsAddedByWith() throws {
        let sink = MemoryLogSink()
        let base = Logger(sink: sink, fields: [("service", "t\"g")])
        let request = base.with("request_id", "r-1").with([("attempt", 2), ("note", "a\nb")])
        request.info("first", [("status", 200)])
        base.info("second")
        #expect(
            sink.lines.map { String($0.drop { $0 != "," }) } == [
                #","level":"info","event":"first","service":"t\"g","request_id":"r-1","attempt":2,"note":"a\nb","status":200}"#,
                #","level":"info","event":"second","service":"t\"g"}"#
            ])
    }

    @Test("Each line's time lies between the clock read before and after it, across second boundaries")
    func timestampsFollowTheClock() throws {
        let sink = MemoryLogSink()
        let logger = Logger(sink: sink)
        func milliseconds() -> Int {
            var spec = timespec()
            clock_gettime(CLOCK_REALTIME, &spec)
            return spec.tv_sec * 1000 + spec.tv_nsec / 1_000_000
        }
        var bounds: [(Int, Int)] = []
        let end = milliseconds() + 2_100
        while milliseconds() < end {
            let before = milliseconds()
            logger.info("tick")
            bounds.append((before, milliseconds()))
            usleep(3_000)
        }
        var seconds = Set<Int>()
        for (line, (before, after)) in zip(sink.lines, bounds) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let stamp = try #require(object["ts"] as? String)
            let logged = Int((try #require(RFC3339.parse(stamp), "\(stamp)") * 1000).rounded())
            #expect(stamp.count == 24 && before <= logged && logged <= after, "\(stamp) not within [\(before), \(after)]")
            seconds.insert(logged / 1000)
        }
        #expect(seconds.count >= 2, "the run crossed no second")
    }

    @Test("Plain and escaped values come out as the same JSON strings they went in as")
    func escaping() throws {
        let sink = MemoryLogSink()
        let values = ["plain-id_123", "", "caf\u{E9} \u{1F600}", "tab\there", "quote\"back\\slash", "\u{1}\u{1F}\u{7F}", "/path?x=1"]
        for value in values { Logger(sink: sink).info("e", [("v", .string(value))]) }
        #expect(sink.lines.count == values.count)
        for (line, value) in zip(sink.lines, values) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["v"] as? String == value)
            #expect(!line.dropLast().contains("\n"))
        }
    }

    @Test("A line of values that each take their most bytes (every byte escaped, the longest numbers) is written whole")
    func worstCaseValuesFitTheirBound() throws {
        let sink = MemoryLogSink()
        let controls = String(repeating: "\u{1}", count: 300)
        let fields: [(String, LogValue)] = [
            ("\u{2}key\"", .string(controls)), ("min", .int(.min)), ("tiny", .double(-2.2250738585072014e-308)),
            ("huge", .double(-1.7976931348623157e308)), ("nan", .double(.nan)), ("no", .bool(false)), ("empty", .string(""))
        ]
        Logger(sink: sink).with(fields).error(String(repeating: "\"", count: 50), fields)
        let line = try #require(sink.lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["\u{2}key\""] as? String == controls)
        #expect(object["event"] as? String == String(repeating: "\"", count: 50))
        #expect(object["min"] as? Int == .min)
        #expect(object["tiny"] as? Double == -2.2250738585072014e-308)
        #expect(object["nan"] is NSNull && object["no"] as? Bool == false && object["empty"] as? String == "")
    }

    @Test("A line whose bound is larger than its thread's whole stack is written whole (its buffer is not put on the stack)")
    func lineLargerThanTheStack() throws {
        let sink = MemoryLogSink()
        let value = String(repeating: "x", count: 200_000)  // a bound of 1.2 MB: six bytes for each
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            Logger(sink: sink).with("request_id", "r-1").error("big", [("body", .string(value))])
            done.signal()
        }
        thread.stackSize = 256 * 1024
        thread.start()
        done.wait()
        let line = try #require(sink.lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["body"] as? String == value && object["request_id"] as? String == "r-1")
    }

    @Test("The buffered sink writes batches in order within its interval, and everything on flush")
    func bufferedSink() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let reader = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        let sink = BufferedLogSink(descriptor: fds[1], interval: .milliseconds(20), flushBytes: 1 << 20)
        for index in 0..<100 { sink.write("line \(index)\n") }
        // Without an explicit flush the timer writes them out.
        var received = ""
        for _ in 0..<200 where !received.hasSuffix("line 99\n") {
            try await Task.sleep(for: .milliseconds(10))
            received += String(decoding: reader.availableDataNonBlocking(), as: UTF8.self)
        }
        #expect(received == (0..<100).map { "line \($0)\n" }.joined())
        sink.write("last\n")
        sink.flush()
        #expect(String(decoding: reader.availableDataNonBlocking(), as: UTF8.self) == "last\n")
        close(fds[1])
    }

    @Test("Past its size the buffered sink writes at once, batch after batch, each line once; dropping it writes the rest")
    func bufferedSinkWhenFull() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let reader = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        var sink: BufferedLogSink? = BufferedLogSink(descriptor: fds[1], interval: .seconds(60), flushBytes: 64)
        var expected = ""
        var received = ""
        // Several batches of exactly 64 bytes (four lines of 16), each written by the flush its
        // size starts (the timer is a minute away): the swapped buffers neither lose nor repeat a line.
        for batch in 0..<5 {
            let lines = (0..<4).map { "batch \(batch) line 0\($0)\n" }
            for line in lines { sink?.write(line) }
            expected += lines.joined()
            for _ in 0..<500 where received != expected {
                try await Task.sleep(for: .milliseconds(10))
                received += String(decoding: reader.availableDataNonBlocking(), as: UTF8.self)
            }
            #expect(received == expected)
        }
        sink?.write("short\n")
        sink = nil
        #expect(String(decoding: reader.availableDataNonBlocking(), as: UTF8.self) == "short\n")
        close(fds[1])
    }
}

extension FileHandle {
    /// What is readable now, without blocking.
    func availableDataNonBlocking() -> Data {
        let descriptor = fileDescriptor
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(descriptor, F_SETFL, flags) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}

/// Numbers in log lines are written without making Strings; they must read exactly as Swift's
/// own `description` writes them.
@Suite("Log numbers")
struct LogNumberTests {
    static func written(_ value: LogValue) -> String {
        var out: [UInt8] = []
        value.appendJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("Integers, from Int.min to Int.max, as String(value)")
    func integers() {
        var generator = SystemRandomNumberGenerator()
        var values = [Int.min, Int.max, 0, -1, 9, 10, 99, 100, 1_000_000_000_000_000_000]
        for _ in 0..<10_000 { values.append(Int.random(in: Int.min...Int.max, using: &generator) >> Int.random(in: 0..<63)) }
        for value in values { #expect(Self.written(.int(value)) == String(value)) }
    }

    @Test("Whole thousandths (durations) as String(value); other doubles too")
    func doubles() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 0.001, 0.01, 0.1, 1, 2, 10.5, 999.999, 1e11 + 0.001, 999_999_999_999.999, 1e12, 1e15, 1.5e-7, 0.0005]
        for thousandths in -20_000...20_000 { values.append(Double(thousandths) / 1000) }
        for _ in 0..<20_000 {
            values.append(Double(Int.random(in: -1_000_000_000_000_000...1_000_000_000_000_000, using: &generator)) / 1000)
            values.append(((Double.random(in: 0..<100_000, using: &generator)) * 1_000_000).rounded() / 1000)
            values.append(Double.random(in: -1e6...1e6, using: &generator))
        }
        for value in values { #expect(Self.written(.double(value)) == String(value), "\(value)") }
        #expect(Self.written(.double(.infinity)) == "null" && Self.written(.double(.nan)) == "null")
    }
}
