// SPDX-License-Identifier: GPL-3.0-or-later
// A write/sync fault injector for tests, loaded with LD_PRELOAD. It stands between the program
// and libc's write, pwrite, writev, fsync and fdatasync, and makes them fail for files whose path
// contains a given text — as a full disk (ENOSPC) or a failing device (EIO) would.
//
// Configuration, a line of space-separated words:
//   match=TEXT      only files whose path contains TEXT (required for anything to fail)
//   write=enospc|eio  writes fail with that error ...
//   after=N         ... once N more bytes have been written to matching files (the write that
//                   crosses the mark is cut short there, as on a filling disk); default 0
//   sync=eio        fsync/fdatasync of matching files fail with EIO
//   off             nothing fails
// Where the configuration comes from:
//   - the environment at start: BROKER_FAULT (the line itself);
//   - BROKER_FAULT_CONTROL=FILE: the line is read again from FILE whenever FILE changes, so that a
//     test can switch faults on and off in a running child process;
//   - in process: brokerfault_configure("..."), found with dlsym(RTLD_DEFAULT, ...).
// The counts of calls made to fail are in brokerfault_failures().
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

struct fault_state
{
    char match[256];
    int write_errno;     // 0: writes pass
    long long allowance; // bytes that may still be written before writes fail
    int sync_errno;      // 0: syncs pass
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fault_state g_state;
static atomic_int g_armed;
static atomic_long g_failures;
static char g_control[512];
static struct timespec g_control_mtime;
static off_t g_control_size = -1;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void parse_locked(const char *spec)
{
    struct fault_state next;
    memset(&next, 0, sizeof next);
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", spec ? spec : "");
    char *save = NULL;
    for (char *word = strtok_r(copy, " \t\r\n", &save); word; word = strtok_r(NULL, " \t\r\n", &save)) {
        if (strncmp(word, "match=", 6) == 0)
            snprintf(next.match, sizeof next.match, "%s", word + 6);
        else if (strcmp(word, "write=enospc") == 0)
            next.write_errno = ENOSPC;
        else if (strcmp(word, "write=eio") == 0)
            next.write_errno = EIO;
        else if (strncmp(word, "after=", 6) == 0)
            next.allowance = atoll(word + 6);
        else if (strcmp(word, "sync=eio") == 0)
            next.sync_errno = EIO;
    }
    g_state = next;
    atomic_store(&g_armed, next.match[0] != 0 && (next.write_errno != 0 || next.sync_errno != 0));
}

int brokerfault_configure(const char *spec)
{
    pthread_mutex_lock(&g_lock);
    parse_locked(spec);
    pthread_mutex_unlock(&g_lock);
    return 0;
}

long brokerfault_failures(void)
{
    return atomic_load(&g_failures);
}

static void initialise_once(void)
{
    const char *control = getenv("BROKER_FAULT_CONTROL");
    if (control)
        snprintf(g_control, sizeof g_control, "%s", control);
    brokerfault_configure(getenv("BROKER_FAULT"));
}

// Every thread sees the environment's configuration before its first write passes.
static void initialise(void)
{
    pthread_once(&g_once, initialise_once);
}

// Reads the control file again when it changed. Called with g_lock held.
static void refresh_locked(void)
{
    if (!g_control[0])
        return;
    struct stat info;
    if (stat(g_control, &info) != 0)
        return;
    if (info.st_size == g_control_size && info.st_mtim.tv_sec == g_control_mtime.tv_sec
        && info.st_mtim.tv_nsec == g_control_mtime.tv_nsec)
        return;
    g_control_size = info.st_size;
    g_control_mtime = info.st_mtim;
    char spec[1024] = {0};
    FILE *file = fopen(g_control, "re");
    if (!file)
        return;
    size_t n = fread(spec, 1, sizeof spec - 1, file);
    spec[n] = 0;
    fclose(file);
    parse_locked(spec);
}

static int matches_locked(int fd)
{
    char link[64];
    char target[1024];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = 0;
    return strstr(target, g_state.match) != NULL;
}

// How many of `count` bytes a write to `fd` may write: count when no fault applies, fewer at the
// allowance mark, -1 (errno set) when the write fails.
static ssize_t permitted(int fd, size_t count)
{
    initialise();
    if (!g_control[0] && !atomic_load(&g_armed))
        return (ssize_t)count;
    pthread_mutex_lock(&g_lock);
    refresh_locked();
    ssize_t allowed = (ssize_t)count;
    if (atomic_load(&g_armed) && g_state.write_errno && matches_locked(fd)) {
        if (g_state.allowance <= 0) {
            errno = g_state.write_errno;
            allowed = -1;
            atomic_fetch_add(&g_failures, 1);
        } else {
            if ((long long)count > g_state.allowance)
                allowed = (ssize_t)g_state.allowance;
            g_state.allowance -= allowed;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return allowed;
}

static int sync_fails(int fd)
{
    initialise();
    if (!g_control[0] && !atomic_load(&g_armed))
        return 0;
    pthread_mutex_lock(&g_lock);
    refresh_locked();
    const int fails = atomic_load(&g_armed) && g_state.sync_errno && matches_locked(fd);
    const int error = g_state.sync_errno;
    pthread_mutex_unlock(&g_lock);
    if (fails) {
        atomic_fetch_add(&g_failures, 1);
        errno = error;
    }
    return fails;
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buffer, size_t count)
{
    const ssize_t allowed = permitted(fd, count);
    if (allowed < 0)
        return -1;
    return REAL(write, ssize_t (*)(int, const void *, size_t))(fd, buffer, (size_t)allowed);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset)
{
    const ssize_t allowed = permitted(fd, count);
    if (allowed < 0)
        return -1;
    return REAL(pwrite, ssize_t (*)(int, const void *, size_t, off_t))(fd, buffer, (size_t)allowed, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset)
{
    const ssize_t allowed = permitted(fd, count);
    if (allowed < 0)
        return -1;
    return REAL(pwrite64, ssize_t (*)(int, const void *, size_t, off_t))(fd, buffer, (size_t)allowed, offset);
}

ssize_t writev(int fd, const struct iovec *vector, int count)
{
    size_t total = 0;
    for (int i = 0; i < count; ++i)
        total += vector[i].iov_len;
    const ssize_t allowed = permitted(fd, total);
    if (allowed < 0)
        return -1;
    if ((size_t)allowed < total) {
        // Cut short at the mark: write the first `allowed` bytes only.
        ssize_t written = 0;
        for (int i = 0; i < count && written < allowed; ++i) {
            size_t part = vector[i].iov_len;
            if ((ssize_t)part > allowed - written)
                part = (size_t)(allowed - written);
            const ssize_t n = REAL(write, ssize_t (*)(int, const void *, size_t))(fd, vector[i].iov_base, part);
            if (n < 0)
                return written ? written : -1;
            written += n;
        }
        return written;
    }
    return REAL(writev, ssize_t (*)(int, const struct iovec *, int))(fd, vector, count);
}

int fsync(int fd)
{
    if (sync_fails(fd))
        return -1;
    return REAL(fsync, int (*)(int))(fd);
}

int fdatasync(int fd)
{
    if (sync_fails(fd))
        return -1;
    return REAL(fdatasync, int (*)(int))(fd);
}
