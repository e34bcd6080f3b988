/* Progress lines on stderr for long commands (kcbp scene, batch, bench, and
 * the --poses streams of collide, distance and sweep; issue 28).
 *
 *   kcbp batch: 1234/20000 scenes, 61.7/s, 4:31 left
 *
 * Shown when stderr is a terminal (one line, redrawn at most 5 times a
 * second, erased at the end) or when --progress asks for it (then, when
 * stderr is not a terminal, a line of its own at most every 2 seconds and
 * one at the end); nothing otherwise, so logs and pipes are unchanged.
 * Without a total (a stream of poses) the line has the count and the rate.
 *
 * One progress per process (the program runs one command); every function
 * may be called from any thread. */
#ifndef KCBP_CLI_PROGRESS_H
#define KCBP_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* --progress given: show it even when stderr is not a terminal. */
void kcbp_cli_progress_force(void);
/* Starts counting: "kcbp CMD: done/total UNIT"; total 0 when unknown. CMD
 * and UNIT are kept (string literals). */
void kcbp_cli_progress_begin(const char *cmd, const char *unit, uint64_t total);
/* total known later (or changed). */
void kcbp_cli_progress_total(uint64_t total);
/* n more done; redraws when it is time. */
void kcbp_cli_progress_add(uint64_t n);
/* A note after the count ("bunny2.obj n=100 hull"); copied. */
void kcbp_cli_progress_note(const char *note);
/* The end: erases the line on a terminal, prints the last one otherwise. */
void kcbp_cli_progress_end(void);
/* Before a line of stdout (kcbp_cli_output_lock calls it): when stdout is
 * the same terminal, erases the progress line, which the next count
 * redraws below the output. */
void kcbp_cli_progress_clear(void);
/* For the signal thread: ends a terminal line, so that its message starts
 * on a line of its own. */
void kcbp_cli_progress_interrupted(void);

/* "4:31" (m:ss) or "2:03:45" (h:mm:ss) for s seconds, rounded up; "?" for
 * negative or not finite. out holds 32 bytes. Exposed for the tests. */
void kcbp_cli_progress_eta(char out[32], double s);

#endif
