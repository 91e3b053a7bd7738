// Measures how steadily this machine's CPUs run while something else (a benchmark) runs, and
// optionally which of a request log's slow requests ran while the CPUs were slow. Used by
// scripts/bench to tell latency the server causes from latency the machine causes.
// Usage: MachineSteadiness SECONDS [REQUEST_LOG ROUTE SLOW_MS]
// Prints key=value lines (see docs/BENCHMARKS.md for how they are read).
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 5, let seconds = Double(arguments[1]), seconds > 0,
    arguments.count == 2 || Double(arguments[4]) != nil
else {
    FileHandle.standardError.write(Data("usage: MachineSteadiness SECONDS [REQUEST_LOG ROUTE SLOW_MS]\n".utf8))
    exit(64)
}

let unit = 25e-6
let slowThreshold = 3.0
let probe = SteadinessProbe(unitSeconds: unit, pause: .milliseconds(1))
let from = Date().timeIntervalSince1970
let samples = probe.run(seconds: seconds, threads: ProcessInfo.processInfo.activeProcessorCount)
let to = Date().timeIntervalSince1970
let episodes = SlowEpisodes.find(in: samples, unitSeconds: unit, threshold: slowThreshold, mergeGap: 0.005)
    .filter { $0.samples >= 2 }
let slowTime = episodes.reduce(0) { $0 + $1.duration }
let slowSamples = samples.filter { $0.cpu >= slowThreshold * unit }.count

func percent(_ part: Int, _ whole: Int) -> String { whole == 0 ? "0.0" : String(format: "%.1f", 100 * Double(part) / Double(whole)) }
print("probe_samples=\(samples.count)")
print("slow_samples_percent=\(percent(slowSamples, samples.count))")
print("episodes=\(episodes.count)")
print("episodes_per_second=\(String(format: "%.2f", Double(episodes.count) / (to - from)))")
print("time_in_episodes_percent=\(String(format: "%.1f", 100 * slowTime / (to - from)))")
if !episodes.isEmpty {
    let durations = episodes.map(\.duration).sorted()
    print("episode_median_ms=\(String(format: "%.1f", 1000 * durations[durations.count / 2]))")
    print("episode_max_ms=\(String(format: "%.1f", 1000 * durations[durations.count - 1]))")
    print("worst_slowdown=\(String(format: "%.1f", episodes.map(\.worstSlowdown).max() ?? 0))")
}
if arguments.count == 5 {
    // Give the server's buffered log a moment to reach the file.
    Thread.sleep(forTimeInterval: 1.5)
    let text = (try? String(contentsOfFile: arguments[2], encoding: .utf8)) ?? ""
    let attribution = RequestLogAttribution.measure(
        logLines: text.split(separator: "\n"), route: arguments[3], from: from, to: to,
        slowMilliseconds: Double(arguments[4])!, episodes: episodes)
    print("requests=\(attribution.requests)")
    print("requests_in_episodes_percent=\(percent(attribution.requestsInEpisodes, attribution.requests))")
    print("slow_requests=\(attribution.slowRequests)")
    print("slow_requests_in_episodes_percent=\(percent(attribution.slowRequestsInEpisodes, attribution.slowRequests))")
}
