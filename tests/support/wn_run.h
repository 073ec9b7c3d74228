/* The test programs' helpers for the file system and for running a built
 * program: one copy each (tests/support/wn_run.c), linked into every test
 * program with the rest of tests/support. Each fails the running cmocka
 * test on an error it cannot recover from, so callers need not check. */
#ifndef WN_RUN_H
#define WN_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <winnow/winnow.h>

/* ---- files --------------------------------------------------------------- */

/* The whole file, NUL-terminated, malloc'd; *len (may be NULL) receives its
 * size. Plain stdio rather than wn_file_read(&bytes): GCC's
 * -Wdangling-pointer cannot see that an out-parameter never points at
 * itself and flags every pointer derived from the result once inlined. */
char *wn_test_slurp(const char *path, size_t *len);

/* Writes len bytes to path (created or truncated); fails the test on
 * any error. */
void wn_test_write(const char *path, const void *bytes, size_t len);
/* The same for a NUL-terminated text. */
void wn_test_write_text(const char *path, const char *text);

/* A new directory of the test's own, made by mkdtemp(3) as
 * "$TMPDIR/name-XXXXXX" ($TMPDIR unset or empty, or too long for out:
 * /tmp), its path in out. 0, or -1 when none could be made (for a cmocka
 * setup function to return). Remove it with wn_test_remove_tree. */
int wn_test_temp_dir(char *out, size_t size, const char *name);

/* Removes path and everything below it, links not followed (rm -rf); a
 * path that does not exist is fine. Fails the test if anything is left. */
void wn_test_remove_tree(const char *path);

/* ---- running a program --------------------------------------------------- */

typedef struct wn_run {
  int status; /* exit code, or 128 + signal */
  int signal; /* the signal that ended it, or 0 */
  char *out;  /* stdout, NUL-terminated */
  size_t out_len;
  char *err; /* stderr, NUL-terminated */
  size_t err_len;
} wn_run;

/* Starts argv[0] with argv (NULL-terminated), stdin from stdin_path (NULL:
 * /dev/null), stdout and stderr into the files out_path and err_path
 * (created or truncated; no pipe can fill up). alarm_s > 0: the program is
 * killed by SIGALRM after that many seconds (one that would serve forever). */
pid_t wn_test_spawn(const char *const *argv, const char *stdin_path, const char *out_path,
                    const char *err_path, unsigned alarm_s);

/* Waits for pid: its exit code, or 128 + the signal that ended it. */
int wn_test_wait(pid_t pid);

/* Runs prog with args (NULL-terminated, at most 62), as wn_test_spawn does,
 * with the outputs in fresh files in tmp_dir, read into r and removed. */
void wn_test_run(wn_run *r, const char *tmp_dir, const char *stdin_path, unsigned alarm_s,
                 const char *prog, const char *const *args);

void wn_run_free(wn_run *r);

/* ---- the daemon ------------------------------------------------------------ */

/* The port a daemon started with --port-file port_file writes there, read
 * every 50 ms for up to 20 s; fails the test if it never comes. */
uint16_t wn_test_wait_port(const char *port_file);

/* ---- a store ----------------------------------------------------------------- */

/* Walks every record of store raw: each must decode (wn_store_record_decode)
 * and so must its counters (wn_store_counters_check); a bad one is named on
 * stderr and fails the test. Returns how many records there are. */
size_t wn_test_store_walk(wn_store *store);

/* Writes bytes under key (key_len bytes; key NULL: none, the database is
 * only made) into database db of the store in dir with LMDB directly, to
 * plant damage a store would never write. The store must be closed in
 * this process (LMDB allows one environment per file per process). */
void wn_test_lmdb_put(const char *dir, const char *db, const void *key, size_t key_len,
                      const void *bytes, size_t len);

#endif
