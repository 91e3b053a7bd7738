// libFuzzer target: the HTTP/1.1 request parser (head, Content-Length and chunked bodies,
// pipelining). The first input byte picks a chunk size; the rest is fed to the parser whole
// and in chunks of that size, and both runs must give the same requests and both refuse or
// both not: the parser must not depend on how the bytes arrive. (Which refusal may differ: a
// line that is both too long and ends in a bare LF is a 400 when seen whole but a 414 when
// the LF has not arrived yet.) Built by scripts/fuzz.
@testable import HTTPCore
@testable import HTTPRouting

private let limits: HTTPRequestParser.Limits = {
    // Small limits, so the fuzzer reaches every 413/414/431 path with short inputs.
    var configuration = HTTPServerConfiguration()
    configuration.maxRequestLineBytes = 256
    configuration.maxHeaderLineBytes = 512
    configuration.maxHeaderBytes = 1024
    configuration.maxHeaderCount = 12
    return HTTPRequestParser.Limits(configuration)
}()

private struct Parsed: Equatable {
    var requests: [String] = []
    var error: String?
}

private func parse(_ chunks: [ArraySlice<UInt8>]) -> Parsed {
    var parser = HTTPRequestParser(limits: limits)
    var buffer = ByteBuffer()
    var parsed = Parsed()
    var head: HTTPRequestHead?
    do throws(HTTPParseError) {
        for chunk in chunks {
            buffer.append(chunk)
            while true {
                if head == nil {
                    guard let next = try parser.parseHead(&buffer) else { break }
                    try parser.beginBody(for: next, limit: 300)
                    head = next
                }
                guard let current = head, let body = try parser.parseBody(&buffer) else { break }
                // What a responder would use of the request, so those paths run too.
                let request = HTTPRequest(
                    method: current.method, target: current.target, minorVersion: current.minorVersion,
                    headers: current.headers, body: body
                )
                let query = request.queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
                let fields = current.headers.fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
                parsed.requests.append(
                    "\(current.method) \(current.target) 1.\(current.minorVersion) keepAlive=\(current.keepAlive) "
                        + "continue=\(current.expectsContinue) query=\(query) json=\(request.declaresJSONBody)\n\(fields)\n\(body)"
                )
                head = nil
            }
        }
    } catch {
        parsed.error = "\(error.status.code) \(error.message)"
    }
    return parsed
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let chunkSize = Int(data[0] & 0x3F) + 1
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let whole = parse([input[...]])
    let pieces = parse(stride(from: 0, to: input.count, by: chunkSize).map { input[$0..<min($0 + chunkSize, input.count)] })
    if whole.requests != pieces.requests || (whole.error == nil) != (pieces.error == nil) {
        fatalError("chunking changed the outcome:\nwhole: \(whole)\nchunks of \(chunkSize): \(pieces)")
    }
    return 0
}
