import Foundation

/// Reads the `.eml` files the file transport wrote, for links and codes inside them.
struct MailReader {
    let directory: String

    /// Delivered messages, decoded from quoted-printable, oldest written first. An outbox run
    /// delivers its batch at once (`OutboxWorker.runOnce`), so two messages of one run are written
    /// in whichever order their deliveries finish: to find one message, use `newest(matching:)`.
    func messages() throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let paths = names.filter { $0.hasSuffix(".eml") }.map { directory + "/" + $0 }
        let dated = try paths.map { path -> (Date, String) in
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return ((attributes[.modificationDate] as? Date) ?? .distantPast, try String(contentsOfFile: path, encoding: .utf8))
        }
        return dated.sorted { $0.0 < $1.0 }.map { Self.decodeQuotedPrintable($0.1) }
    }

    /// The newest message in which the regular expression `pattern` matches.
    func newest(matching pattern: String) throws -> String? {
        try messages().last { $0.range(of: pattern, options: .regularExpression) != nil }
    }

    /// The six digits of the newest sign-in code mail (a checkout's code mail may have gone out in
    /// the same outbox run).
    func newestSignInCode() throws -> String? {
        let pattern = #"inside the app\): [0-9]{6}"#
        guard let message = try newest(matching: pattern), let range = message.range(of: pattern, options: .regularExpression) else {
            return nil
        }
        return String(message[range].suffix(6))
    }

    /// The first `https://…` URL in the newest message that contains `pathPrefix`.
    func link(containing pathPrefix: String) throws -> String? {
        for message in try messages().reversed() {
            guard
                let range = message.range(
                    of: #"https?://[^\s"<>]+"#, options: .regularExpression,
                    range: message.range(of: pathPrefix).map {
                        message.index($0.lowerBound, offsetBy: -60, limitedBy: message.startIndex) ?? message.startIndex
                    }.map { $0..<message.endIndex })
            else { continue }
            let url = String(message[range])
            if url.contains(pathPrefix) { return url.replacingOccurrences(of: "&amp;", with: "&") }
        }
        return nil
    }

    static func decodeQuotedPrintable(_ text: String) -> String {
        var bytes: [UInt8] = []
        let input = Array(text.utf8)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "="), index + 1 < input.count {
                if input[index + 1] == 0x0D, index + 2 < input.count, input[index + 2] == 0x0A { index += 3; continue }
                if input[index + 1] == 0x0A { index += 2; continue }
                if index + 2 < input.count, let value = UInt8(String(decoding: input[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                    bytes.append(value)
                    index += 3
                    continue
                }
            }
            bytes.append(input[index])
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
