/* Clean interrupts (issue 28): what the program does on SIGINT or SIGTERM.
 *
 * kcbp_cli_interrupt_install, called first thing in main, blocks both
 * signals in every thread and leaves them to one thread of their own,
 * which on a signal: ends a progress line, takes the output lock (so that
 * no line is cut: every writer of stdout holds it for a whole line), lets
 * the command write what it has finished but not yet written (the drain,
 * kcbp batch's held-back scenes), flushes stdout, removes the files being
 * written (kcbp_cli_partial_begin) and ends the process with status 130
 * (SIGINT) or 143 (SIGTERM). Whatever the main thread is computing, even
 * one query of a minute, is dropped at once: nothing it would have printed
 * is printed, nothing half-written stays.
 *
 * Child processes (gnuplot) get the default signal mask back
 * (kcbp_cli_interrupt_default_mask). */
#ifndef KCBP_CLI_INTERRUPT_H
#define KCBP_CLI_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

/* Starts the signal thread. Returns false (and changes nothing: the
 * signals then end the program as usual) when it cannot be started. */
bool kcbp_cli_interrupt_install(void);

/* The output lock: held by whoever writes a line of stdout (the common
 * printing functions take it) and by the signal thread from the moment it
 * acts. Not recursive. */
void kcbp_cli_output_lock(void);
void kcbp_cli_output_unlock(void);

/* A file from when it is opened for writing until it is complete: removed
 * if a signal comes in between. At most 16 at a time (more are written
 * without the guarantee). end with the same pointer. */
void kcbp_cli_partial_begin(const char *path);
void kcbp_cli_partial_end(const char *path);

/* What a command has finished but not yet written, for the signal thread to
 * write (under the output lock, to stdout, before the flush); NULL to
 * remove. Called at most once. */
typedef void (*kcbp_cli_drain_fn)(void *ctx);
void kcbp_cli_interrupt_set_drain(kcbp_cli_drain_fn fn, void *ctx);

/* For tests/test_interrupt.py: with KCBP_TEST_STOP_WRITING set in the
 * environment, the process stops itself (SIGSTOP) here, so that a signal
 * can be sent at exactly this point (a file half made, a line written in
 * part); once continued, it gives the signal thread 10 s to act before it
 * goes on. Nothing otherwise. */
void kcbp_cli_test_stop(void);

/* The signal mask the program had before install (for posix_spawnattr). */
void kcbp_cli_interrupt_default_mask(sigset_t *mask);

#endif
