#ifndef TOLLGATE_CSQLITE_SHIM_H
#define TOLLGATE_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro that casts -1 to a function pointer: Swift cannot import it. */
static inline sqlite3_destructor_type tollgate_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_db_config is variadic: Swift cannot call it directly. */
static inline int tollgate_sqlite_db_config_int(sqlite3 *db, int op, int value, int *out) {
    return sqlite3_db_config(db, op, value, out);
}
#endif
