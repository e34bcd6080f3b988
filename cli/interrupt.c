/* Clean interrupts: one thread waits for SIGINT and SIGTERM (interrupt.h).
 *
 * Why a thread and not a handler: what must happen on a signal (wait for a
 * line being written to end, write finished answers, flush stdio, remove
 * files) is not async-signal-safe, and a handler that only sets a flag
 * would leave a long query running to its end. The signal thread is an
 * ordinary thread, so it may take locks and call stdio, and it ends the
 * process with _exit, never returning to the code it interrupted.
 *
 * This is the program's, not the library's: a process has one set of
 * signal dispositions, so the state below is necessarily process-wide. */
#include "interrupt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"

#define MAX_PARTIAL 16

static pthread_mutex_t output_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t state_mutex = PTHREAD_MUTEX_INITIALIZER; /* partial[], drain */
static const char *partial[MAX_PARTIAL];
static kcbp_cli_drain_fn drain_fn;
static void *drain_ctx;
static sigset_t default_mask, handled;
static bool installed;

void kcbp_cli_output_lock(void)
{
    pthread_mutex_lock(&output_mutex);
    kcbp_cli_progress_clear();
}

void kcbp_cli_output_unlock(void)
{
    pthread_mutex_unlock(&output_mutex);
}

void kcbp_cli_partial_begin(const char *path)
{
    pthread_mutex_lock(&state_mutex);
    for (int i = 0; i < MAX_PARTIAL; i++)
        if (!partial[i]) {
            partial[i] = path;
            break;
        }
    pthread_mutex_unlock(&state_mutex);
    kcbp_cli_test_stop(); /* the file half made */
}

void kcbp_cli_test_stop(void)
{
    if (getenv("KCBP_TEST_STOP_WRITING")) {
        raise(SIGSTOP);
        sleep(10);
    }
}

void kcbp_cli_partial_end(const char *path)
{
    pthread_mutex_lock(&state_mutex);
    for (int i = 0; i < MAX_PARTIAL; i++)
        if (partial[i] == path) {
            partial[i] = NULL;
            break;
        }
    pthread_mutex_unlock(&state_mutex);
}

void kcbp_cli_interrupt_set_drain(kcbp_cli_drain_fn fn, void *ctx)
{
    pthread_mutex_lock(&state_mutex);
    drain_fn = fn;
    drain_ctx = ctx;
    pthread_mutex_unlock(&state_mutex);
}

void kcbp_cli_interrupt_default_mask(sigset_t *mask)
{
    if (installed)
        *mask = default_mask;
    else
        pthread_sigmask(SIG_SETMASK, NULL, mask);
}

static void say(const char *s)
{
    ssize_t r = write(STDERR_FILENO, s, strlen(s));
    (void)r;
}

/* The signal thread: waits, then does everything of interrupt.h's list and
 * ends the process. The order matters: the output lock first (a line being
 * written is finished, no new one starts), then the command's finished
 * answers, the flush, and the files last (an export being written is not
 * an answer). */
static void *signal_thread(void *arg)
{
    (void)arg;
    int sig = 0;
    while (sigwait(&handled, &sig) != 0 || (sig != SIGINT && sig != SIGTERM))
        ;
    kcbp_cli_progress_interrupted();
    say(sig == SIGINT ? "kcbp: interrupted (SIGINT)\n" : "kcbp: terminated (SIGTERM)\n");
    pthread_mutex_lock(&output_mutex);
    pthread_mutex_lock(&state_mutex);
    kcbp_cli_drain_fn fn = drain_fn;
    void *ctx = drain_ctx;
    drain_fn = NULL;
    pthread_mutex_unlock(&state_mutex);
    if (fn)
        fn(ctx);
    fflush(stdout);
    pthread_mutex_lock(&state_mutex);
    for (int i = 0; i < MAX_PARTIAL; i++) {
        struct stat sb; /* a regular file only: never /dev/full, a FIFO or a link's target */
        if (partial[i] && lstat(partial[i], &sb) == 0 && S_ISREG(sb.st_mode))
            unlink(partial[i]);
    }
    _exit(128 + sig);
}

bool kcbp_cli_interrupt_install(void)
{
    sigemptyset(&handled);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &handled, &default_mask) != 0)
        return false;
    /* A signal the shell ignored for us (a background job's SIGINT) stays
     * ignored: sigwait would otherwise take it. */
    struct sigaction sa;
    if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
        sigdelset(&handled, SIGINT);
    pthread_t t;
    pthread_attr_t attr;
    bool ok = pthread_attr_init(&attr) == 0;
    if (ok) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        ok = pthread_create(&t, &attr, signal_thread, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!ok) {
        pthread_sigmask(SIG_SETMASK, &default_mask, NULL);
        return false;
    }
    /* SIGINT kept ignored: unblock it again so that it stays ignored, not pending */
    if (!sigismember(&handled, SIGINT)) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT);
        pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    }
    installed = true;
    return true;
}
