import Glibc

/// The few file-system calls Storage makes itself, with errno turned into a message.
enum FileSystem {
    /// The directory part of `path`, or nil when `path` has none (a bare file name).
    static func parentDirectory(of path: String) -> String? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// `mkdir -p`: creates `path` and its missing parents. Returns nil on success, else the reason.
    static func createDirectories(_ path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += component
            if mkdir(prefix, 0o755) != 0 {
                let failure = errno
                guard failure == EEXIST else { return "cannot create directory '\(prefix)': \(describe(failure))" }
                var info = stat()
                guard stat(prefix, &info) == 0 else { return "cannot inspect '\(prefix)': \(describe(errno))" }
                guard info.st_mode & S_IFMT == S_IFDIR else { return "'\(prefix)' exists and is not a directory" }
            }
            prefix += "/"
        }
        return nil
    }

    /// Atomically replaces `destination` with `source`. Returns nil on success, else the reason.
    static func rename(_ source: String, to destination: String) -> String? {
        guard Glibc.rename(source, destination) == 0 else {
            return "cannot rename '\(source)' to '\(destination)': \(describe(errno))"
        }
        return nil
    }

    /// Flushes a directory entry change (a rename) to disk. Returns nil on success, else the reason.
    static func syncDirectory(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { return "cannot open directory '\(path)': \(describe(errno))" }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { return "cannot sync directory '\(path)': \(describe(errno))" }
        return nil
    }

    /// Creates `path` empty with mode 0600 whatever the umask, unless it exists, so SQLite (which
    /// gives its `-wal`, `-shm` and `-journal` files the database file's mode) keeps every file of
    /// the database private to the service's user. Returns nil on success or when the file
    /// exists, else the reason.
    static func createPrivateFile(_ path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let failure = errno
            return failure == EEXIST ? nil : "cannot create '\(path)': \(describe(failure))"
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else { return "cannot set the mode of '\(path)': \(describe(errno))" }
        return nil
    }

    /// Removes `path` if it exists; errors are ignored (used for clean-up only).
    static func removeIfPresent(_ path: String) {
        unlink(path)
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
