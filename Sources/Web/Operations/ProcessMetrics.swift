#if canImport(Glibc)
    import Glibc
#endif
import Logging

/// The process families Prometheus's client libraries export (`process_cpu_seconds_total`,
/// `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_open_fds`,
/// `process_max_fds`, `process_start_time_seconds`), read from `/proc/self` when scraped, and
/// `tollgate_build_info`. A figure `/proc` does not give is left out rather than written as 0.
enum ProcessMetrics {
    static func write(to text: inout PrometheusText) {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        if let stat = procFields("/proc/self/stat"), stat.count > 19, ticks > 0 {
            // After the command name: state is field 3, utime 14, stime 15, starttime 22 (1-based),
            // so index = field - 3.
            if let user = Double(stat[11]), let system = Double(stat[12]) {
                text.family("process_cpu_seconds_total", .counter, help: "Total user and system CPU time spent in seconds.")
                text.sample("process_cpu_seconds_total", (user + system) / ticks)
            }
            if let started = Double(stat[19]), let boot = bootTime() {
                text.family("process_start_time_seconds", .gauge, help: "Start time of the process since the Unix epoch in seconds.")
                text.sample("process_start_time_seconds", boot + started / ticks)
            }
        }
        if let statm = readFile("/proc/self/statm")?.split(separator: " "), statm.count > 1,
            let virtualPages = Double(statm[0]), let residentPages = Double(statm[1])
        {
            text.family("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.")
            text.sample("process_resident_memory_bytes", residentPages * pageSize)
            text.family("process_virtual_memory_bytes", .gauge, help: "Virtual memory size in bytes.")
            text.sample("process_virtual_memory_bytes", virtualPages * pageSize)
        }
        if let open = openDescriptors() {
            text.family("process_open_fds", .gauge, help: "Number of open file descriptors.")
            text.sample("process_open_fds", open)
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max, limit.rlim_cur <= UInt64(Int.max) {
            text.family("process_max_fds", .gauge, help: "Maximum number of open file descriptors.")
            text.sample("process_max_fds", Int(limit.rlim_cur))
        }
        text.family("tollgate_build_info", .gauge, help: "Always 1; the labels say which build is running.")
        text.sample("tollgate_build_info", [("version", BuildInfo.version)], 1)
    }

    /// The space-separated fields of `/proc/self/stat` after the command name (which may itself
    /// hold spaces and parentheses, so the split starts after the last `)`).
    private static func procFields(_ path: String) -> [Substring]? {
        guard let text = readFile(path), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// The `btime` line of `/proc/stat`: when the machine booted, in seconds since the epoch.
    private static func bootTime() -> Double? {
        guard let text = readFile("/proc/stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingSpaces())
        }
        return nil
    }

    private static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count - 1  // the descriptor opendir itself holds
    }

    /// A small file of `/proc`, whole (they report a size of 0, so read until the end).
    private static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > 1 << 20 { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " || text.last == "\n" { text.removeLast() }
        return text
    }
}

/// What this build is (`tollgate --version`, `tollgate_build_info`).
public enum BuildInfo {
    /// The release version (the newest of App's `TollgateReleases`).
    public static let version = "0.3.0"
}
