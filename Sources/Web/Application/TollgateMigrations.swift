import Storage

/// Every schema migration of Tollgate, in order. A shipped migration is never edited:
/// a change to the schema is a new entry at the end.
public enum TollgateMigrations {
    public static let all: [Migration] = []
}
