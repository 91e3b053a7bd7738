#ifndef TOLLGATE_CSQLITE_SHIM_H
#define TOLLGATE_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <stdint.h>
#include <unistd.h>

/* SQLITE_TRANSIENT is a macro that casts -1 to a function pointer: Swift cannot import it. */
static inline sqlite3_destructor_type tollgate_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config is variadic: Swift cannot call it directly. */
static inline int tollgate_sqlite_db_config_int(sqlite3 *db, int op, int value, int *out) {
    return sqlite3_db_config(db, op, value, out);
}

/* A busy handler that retries every 200 microseconds until `timeout_ms` have passed (at least:
   each sleep lasts no less than asked). SQLite's own handler sleeps 1, 2, 5, 10, 15, 20, 25...
   ms between tries, so a lock held for 4 ms can cost its waiter 8; the writer waits on the
   checkpointer's short RESTART this way, and every write queued behind it with it. */
static int tollgate_sqlite_busy_retry(void *context, int count) {
    long long timeout_us = (long long)(intptr_t)context * 1000;
    if ((long long)count * 200 >= timeout_us) return 0;
    usleep(200);
    return 1;
}

static inline int tollgate_sqlite_busy_timeout(sqlite3 *db, int timeout_ms) {
    return sqlite3_busy_handler(db, tollgate_sqlite_busy_retry, (void *)(intptr_t)timeout_ms);
}

/* Syncs a file of the connection's main database (fdatasync) through SQLite's own handle,
   never a second descriptor: closing one would drop the process's POSIX locks on the file.
   `op` is SQLITE_FCNTL_FILE_POINTER for the database file, SQLITE_FCNTL_JOURNAL_POINTER for
   its write-ahead log (SQLITE_MISUSE while the connection has not opened that file). */
static inline int tollgate_sqlite_sync_file(sqlite3 *db, int op) {
    sqlite3_file *file = 0;
    int rc = sqlite3_file_control(db, "main", op, &file);
    if (rc != SQLITE_OK) return rc;
    if (file == 0 || file->pMethods == 0) return SQLITE_MISUSE;
    return file->pMethods->xSync(file, SQLITE_SYNC_NORMAL | SQLITE_SYNC_DATAONLY);
}

/* sqlite3_config is variadic too. Memory statistics take one process-wide mutex on every
   allocation, which every connection then contends for; nothing here reads them. Must run
   before SQLite initializes (returns SQLITE_MISUSE after). */
static inline int tollgate_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif
