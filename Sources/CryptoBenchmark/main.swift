// Crypto benchmark: ES256 verifications/s and HMAC-SHA256 of 1 KiB per second on one core.
// Each measurement runs ~2 s; five runs per figure, the median is printed.
// Run: swift run -c release CryptoBenchmark
import Crypto
import Foundation

/// Runs `body` repeatedly for about `seconds`, returning operations per second.
func rate(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    var operations = 0
    var elapsed = 0.0
    while elapsed < seconds {
        for _ in 0..<256 { try body() }
        operations += 256
        let duration = clock.now - start
        elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
    return Double(operations) / elapsed
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func measure(_ name: String, target: Double, _ body: () throws -> Void) throws {
    var runs: [Double] = []
    for _ in 0..<5 { runs.append(try rate(seconds: 2, body)) }
    let figure = median(runs)
    let verdict = figure >= target ? "meets" : "BELOW"
    print("\(name): median \(Int(figure))/s over 5 runs (runs: \(runs.map { Int($0) })) — \(verdict) target \(Int(target))/s")
}

do {
    let signingKey = try SigningKey.generateES256()
    let verificationKey = try signingKey.verificationKey()
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzaWduZWREYXRlIjoxNjcyOTU2MTU0MDAwfQ".utf8)
    let signature = try signingKey.sign(message)
    try measure("ES256 verify", target: 5_000) {
        guard try verificationKey.isValidSignature(signature, for: message) else {
            throw CryptoError(.signatureMismatch, "benchmark signature did not verify")
        }
    }
    let mac = try HMACSHA256(key: Array("whsec_benchmark_secret".utf8))
    let kibibyte = try SecureRandom.bytes(count: 1024)
    var sink: UInt8 = 0
    try measure("HMAC-SHA256 1 KiB", target: 500_000) {
        sink ^= try mac.authenticationCode(for: kibibyte)[0]
    }
    print("(checksum \(sink))")
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
