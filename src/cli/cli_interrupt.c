/*
 * cli_interrupt.c: what the command does on Ctrl-C (SIGINT) or SIGTERM. The library never
 * installs handlers; the command does: it removes the temporary files of outputs not yet renamed
 * into place (so the previous outputs stay whole), says what was kept, and exits 130. Only
 * async-signal-safe calls (unlink, write, _exit) run in the handler.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define MAX_TEMPS 8
static char temps[MAX_TEMPS][1200];
static volatile sig_atomic_t ntemps;
static char message[1024];
static pid_t owner; /* the command's process; its forked batch workers leave silently */

static void on_interrupt(int sig)
{
    (void)sig;
    if (getpid() != owner)
        _exit(130);
    for (int i = 0; i < ntemps; i++)
        unlink(temps[i]);
    const ssize_t ignored = write(STDERR_FILENO, message, strlen(message));
    (void)ignored;
    _exit(130);
}

void rs_cli_on_interrupt(const char *what_is_kept)
{
    snprintf(message, sizeof message, "\nrelaxsim: interrupted; %s\n", what_is_kept);
    owner = getpid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void rs_cli_track_temp(const char *path)
{
    if (ntemps < MAX_TEMPS) {
        snprintf(temps[ntemps], sizeof temps[0], "%s", path);
        ntemps++;
    }
}

void rs_cli_untrack_temps(void)
{
    ntemps = 0;
}
