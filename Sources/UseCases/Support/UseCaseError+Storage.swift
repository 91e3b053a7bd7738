import Storage

extension UseCaseError {
    /// The refusal for a storage failure a retry may cure: a write that kept losing conflicts
    /// after its own retries (PostgreSQL 40001/40P01), a lock, statement or pool wait that timed
    /// out, SQLite busy. It answers `503 upstream_unavailable` with `Retry-After: 1`, which
    /// clients retry (API.md "Conventions"), instead of a `500` that says the request was wrong
    /// to try. Nil for every other error.
    public init?(transientStorageFailure error: any Error) {
        guard let storage = error as? StorageError, storage.isBusy else { return nil }
        self.init(.unavailable, code: "upstream_unavailable", "The service is busy right now. Please try again in a moment.", retryAfterSeconds: 1)
    }
}
